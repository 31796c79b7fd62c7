"""Generate the benchmark's dense tree: modules that each call the sink with a traced config.

Every module imports JAX's sink, builds a config in one of five builder forms (dict display,
``dict(...)``, a helper function returning a dict, ``cfg[k] = v`` mutations, ``.update``) and passes
it to ``jax._src.lax.parallel._emit_async_start_custom_call``, so the prefilter lets every file
through and the whole pipeline runs on each one. Every third module carries one fault (an
``Enum`` member, a ``set``, ``np.bool_``, NaN, a tuple key or a wrong JSON type under ``tiled``),
so the checker reports and ``fix`` rewrites a realistic share of them. Ordinary code around the
sink (a class and helpers, varied per module) keeps the modules from being nothing but sinks::

    python benchmarks/dense_tree.py OUT_DIR [--files 500]

The output is deterministic: the same ``--files`` gives byte-identical modules.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

#: the builder forms, one per module in turn
BUILDERS = ("display", "dict_call", "helper", "setitem", "update")

#: (fault name, expression of the faulty value, key it goes under); module i has FAULTS[i // 3 % 6] when i % 3 == 0
FAULTS = (
    ("enum_member", "Mode.RING", '"mode"'),
    ("set", "{1, 2}", '"groups_seen"'),
    ("numpy_bool", "np.bool_(True)", '"overlap"'),
    ("nan", 'float("nan")', '"timeout_s"'),
    ("tuple_key", "1", "(0, 1)"),
    ("wrong_json_type", '"yes"', '"tiled"'),
)

_HEADER = '''"""Generated module {index} of the asynccfg-lint benchmark's dense tree ({builder}, fault: {fault})."""
import enum
import math

import numpy as np
{import_line}


class Mode(enum.Enum):
    RING = "ring"
    TREE = "tree"
'''

_FILLER = '''

class Buffer{index}_{part}:
    """A bounded buffer: ordinary code the checker parses but does not analyse."""

    def __init__(self, size: int, name: str = "buffer{index}") -> None:
        self.size = size
        self.name = name
        self.items: list[int] = []

    def push(self, value: int) -> None:
        if len(self.items) >= self.size:
            self.items.pop(0)
        self.items.append(value)

    def total(self, scale: float = {scale}) -> float:
        return sum(item * scale for item in self.items if item % 2 == 0)

    def __repr__(self) -> str:
        return f"Buffer({{self.name!r}}, {{len(self.items)}}/{{self.size}})"


def shard_sizes_{index}_{part}(n: int, parts: int = {parts}) -> list[int]:
    """Split ``n`` items into ``parts`` nearly equal shards."""
    base, extra = divmod(n, parts)
    return [base + (1 if j < extra else 0) for j in range(parts)]


def log_ratio_{index}_{part}(a: float, b: float) -> float:
    try:
        return math.log(a / b)
    except (ZeroDivisionError, ValueError):
        return 0.0
'''

#: each builder: (helper definitions at module level, body lines building ``cfg``); {entries} is
#: the config's ``key: value`` pairs, {kwargs}/{setitems}/{update} the same pairs in other spellings
_BUILDER_CODE = {
    "display": ("", "    cfg = {{{entries}}}\n"),
    "dict_call": ("", "    cfg = dict({{{entries}}}, replica_count=axis_size)\n"),
    "helper": (
        "\n\ndef _make_config(axis_size, dimension):\n    return {{{entries}}}\n",
        "    cfg = _make_config(axis_size, dimension)\n",
    ),
    "setitem": ("", "    cfg = {{}}\n{setitems}"),
    "update": ("", '    cfg = {{"replica_count": axis_size}}\n    cfg.update({{{entries}}})\n'),
}

_LOWERING = '''

def lower_{index}(ctx, x, *, axis_size: int, dimension: int):
    """The lowering rule: builds the config and emits the async collective."""
{body}    return {sink}("all-gather-start", ctx, x, cfg)
'''


@dataclass(frozen=True)
class DenseTree:
    """What :func:`write_dense_tree` wrote.

    Attributes:
        root: the directory holding the modules.
        files: number of modules (every one has a sink call).
        lines: total number of lines.
        faulty: number of modules with one fault (each gives one diagnostic).
    """

    root: Path
    files: int
    lines: int
    faulty: int


def module_source(index: int) -> tuple[str, bool]:
    """Return the text of module ``index`` and whether it carries a fault."""
    builder = BUILDERS[index % len(BUILDERS)]
    fault = FAULTS[index // 3 % len(FAULTS)] if index % 3 == 0 else None
    entries = [('"all_gather_dimension"', "dimension"), ('"tiled"', "True"),
               ('"replica_groups"', "[list(range(axis_size))]"), ('"chunk_bytes"', str(1 << (10 + index % 10)))]
    if fault is not None:
        _, value, key = fault
        entries = [entry for entry in entries if entry[0] != key] + [(key, value)]
    helpers, body = _BUILDER_CODE[builder]
    fields = {
        "entries": ", ".join(f"{key}: {value}" for key, value in entries),
        "setitems": "".join(f"    cfg[{key}] = {value}\n" for key, value in entries),
    }
    if index % 2:
        import_line, sink = "import jax._src.lax.parallel", "jax._src.lax.parallel._emit_async_start_custom_call"
    else:
        import_line, sink = "from jax._src.lax import parallel", "parallel._emit_async_start_custom_call"
    parts = [_HEADER.format(index=index, builder=builder, fault=fault[0] if fault else "none", import_line=import_line)]
    parts += [_FILLER.format(index=index, part=part, scale=1 + index % 7, parts=2 + index % 5)
              for part in range(1 + index % 3)]
    parts.append(helpers.format(**fields))
    parts.append(_LOWERING.format(index=index, body=body.format(**fields), sink=sink))
    return "".join(parts), fault is not None


def write_dense_tree(root: Path, files: int = 500) -> DenseTree:
    """Write ``files`` modules ``mod_0000.py`` ... into ``root`` (created if needed)."""
    root.mkdir(parents=True, exist_ok=True)
    lines = faulty = 0
    for index in range(files):
        text, has_fault = module_source(index)
        (root / f"mod_{index:04d}.py").write_text(text, encoding="utf-8")
        lines += text.count("\n")
        faulty += has_fault
    return DenseTree(root, files, lines, faulty)


_WRAPPER_MODULE = '''"""Generated wrapper module {index} of the scaling benchmark: a wrapper, and a call of its neighbour's."""
from jax._src.lax import parallel
from . import {previous} as previous


def send_{index}(ctx, x, cfg):
    return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, cfg)


def lower_{index}(ctx, x):
    return previous.send_{previous_index}(ctx, x, {{"tiled": True, "chunk": {index}}})
'''


def write_wrapper_package(root: Path, files: int) -> Path:
    """Write the package ``root/wrappers``: ``files`` small modules, each a wrapper of the sink whose
    neighbour (module ``i - 1``, the first one's is the last) calls it. Returns the package folder.

    The scaling benchmark: every module is analysed in the first round (it names the sink) and
    again in the second (it calls its neighbour's wrapper), and each must be matched against
    every wrapper of the package.
    """
    package = root / "wrappers"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for index in range(files):
        previous = (index - 1) % files
        text = _WRAPPER_MODULE.format(index=index, previous=f"mod_{previous:04d}", previous_index=previous)
        (package / f"mod_{index:04d}.py").write_text(text, encoding="utf-8")
    return package


_RULES_HEADER = '''"""Generated module of the scaling benchmark: {rules} primitives, each with a lowering rule and a bind."""
import enum

import numpy as np
from jax._src import core
from jax._src.lax import parallel
from jax.interpreters import mlir


class Sched(enum.Enum):
    RING = "ring"
'''

_RULE = '''

p{index} = core.Primitive("rules{index}_start")


def _abstract_eval{index}(x, *, depth, mode):
    if not isinstance(depth, int):
        raise TypeError("depth must be an int")
    return x


p{index}.def_abstract_eval(_abstract_eval{index})


def _rule{index}(ctx, x, *, depth, mode):
    cfg = {{"permutation": [[0, 0]], "depth": depth, "mode": mode, "i": {index}}}
    return parallel._emit_async_start_custom_call("collective-permute-start", ctx, x, cfg)


mlir.register_lowering(p{index}, _rule{index})


def user{index}(x):
    return p{index}.bind(x, depth={index}, mode={mode})
'''


def write_rules_module(root: Path, rules: int) -> Path:
    """Write ``root/rules_<rules>.py``: one module of ``rules`` primitives, each with an abstract eval, a
    lowering rule that puts its bind keywords into the config, its registration and a ``bind`` (every third
    one passes an enum member: a finding at the bind, whose fix is kept only when the abstract eval leaves
    the keyword unread). Returns the file.

    The scaling benchmark within one file: what the analysis asks about each rule (is its primitive bound?
    is a name serialised before its use?) must not scan the whole module each time.
    """
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"rules_{rules}.py"
    modes = ("Sched.RING", "Sched.RING.value", '"tree"')
    text = _RULES_HEADER.format(rules=rules) + "".join(
        _RULE.format(index=index, mode=modes[index % 3]) for index in range(rules))
    path.write_text(text, encoding="utf-8")
    return path


def sink_free_source() -> str:
    """A realistic module without any sink (the start-up benchmark checks it)."""
    return '"""An ordinary module: nothing here reaches an async collective."""\nimport math\n' + "".join(
        _FILLER.format(index=0, part=part, scale=2, parts=4) for part in range(3))


def main() -> None:
    """Command line: write the dense tree into a directory."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="directory to write the modules into")
    parser.add_argument("--files", type=int, default=500, help="number of modules (default: 500)")
    args = parser.parse_args()
    tree = write_dense_tree(args.out, args.files)
    print(f"{tree.files} modules, {tree.lines} lines, {tree.faulty} with a fault, in {tree.root}")


if __name__ == "__main__":
    main()
