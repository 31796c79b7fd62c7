"""Facts about JAX and XLA that the rules model, in one place.

Source: ``jax/_src/lax/parallel.py`` of jax 0.12.0.1 (``_emit_async_start_custom_call``,
``psum_scatter_start`` and the ``*_lowering`` rules that build async configs), and the
measurements in the team's ``truth_table.md`` (jax 0.12.0.1, jaxlib 0.12.0.1, numpy 2.5.5,
Python 3.12.1, CPU). Section numbers below refer to that table.

``_emit_async_start_custom_call(target_name, ctx, x, cfg, called_computations=None)`` does::

    cfg = dict(cfg)
    if "channel_handle" in cfg:
        cfg["channel_id"] = cfg.pop("channel_handle").handle
    if "use_global_device_ids" in cfg:
        cfg["use_global_device_ids"] = cfg["use_global_device_ids"].value
    json.dumps(cfg, default=_json_default)   # default: np.integer, np.floating, np.ndarray only
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

JAX_VERSION = "0.12.0.1"

EMIT_QUALNAME = "jax._src.lax.parallel._emit_async_start_custom_call"


class SinkKind(Enum):
    """What the sink argument carries."""

    #: the argument is the whole config mapping
    CONFIG = "config"
    #: the argument is copied unconverted into the config under ``SinkSpec.key``, after being
    #: bound as a jaxpr equation parameter (so it must also be hashable)
    VALUE = "value"
    #: the parameter is a ``**kwargs`` that becomes the config: the call's keyword arguments
    #: other than ``SinkSpec.named`` are its entries
    KEYWORDS = "keywords"
    #: the ``bind`` of a primitive whose registered lowering rule reaches a sink: every keyword is a
    #: jaxpr equation parameter, which must be hashable whatever the rule does with it (none is a
    #: config entry by this spec; ``SinkSpec.used_at`` is the rule)
    PARAMETERS = "parameters"
    #: a function of the project that calls a sink, so a primitive it is registered for as the lowering rule
    #: gets a ``PARAMETERS`` sink, in whichever module the registration is; no call of it is a sink call.
    #: ``qualnames``: the function's, and for a ``__call__``, its class's and the project's subclasses' (the
    #: names a registration writes: ``register_lowering(p, SkipRule())``)
    RULE = "rule"


@dataclass(frozen=True)
class SinkSpec:
    """A callable whose argument reaches JAX's config serializer.

    Attributes:
        qualnames: fully qualified names the callee may resolve to.
        param: the parameter name (used for keyword arguments).
        position: 0-based positional index, or ``None`` for keyword-only parameters.
        kind: :class:`SinkKind` of the argument.
        key: for ``SinkKind.VALUE``, the config key the value lands under.
        wrapper_module: for a derived sink (a wrapper found by the summaries), the dotted name of
            the module that defines it; ``None`` for built-in and configured sinks.
        named: for ``SinkKind.KEYWORDS``, the wrapper's named parameters (keywords that are not
            config entries).
        used_at: for a sink of a primitive's ``bind`` (:mod:`asynccfg_lint.analysis.programs`), the
            qualified name of the registered lowering rule that puts the keyword into its config;
            diagnostics at a ``bind`` argument name where (``path:line``).
        used_param: the rule's parameter the keyword ``param`` arrives in, when the two differ
            (a lambda rule ``lambda ctx, x, *, g: rule(ctx, x, groups=g)``); ``None``: ``param``.
            For a keyword the rule reads (``read``), ``param.read``: where it does is looked up so.
        read: for a keyword the registered rule reads instead of putting it into its config, how:
            the attribute name (``knobs.level``: ``"level"``, a VALUE under ``key``), or
            :data:`NAMED_TUPLE_FIELDS` / :data:`DATACLASS_FIELDS` (``knobs._asdict()``,
            ``dataclasses.asdict(knobs)`` as the config or spread into it: a CONFIG of its fields).
        bind_keyword: the argument becomes a keyword of a primitive's ``bind`` (a jaxpr equation
            parameter, which JAX hashes): a public ``*_start`` function's argument, and a wrapper's
            parameter passed on to a ``bind`` (also through further wrappers). A value that only
            reaches a config (``functools.partial(rule, groups=[0, 1])``) is never hashed.
        forwarded: a wrapper's parameter that the wrapper passes on to a primitive's ``bind`` (through
            further wrappers too): ``used_at`` and ``used_param`` are then that ``bind`` sink's, so a
            finding at the wrapper's call names where the rule uses the value; the spec is the
            wrapper's, not a ``bind``'s (:attr:`binds`).
        narrowed: the parameter reaches the config past an ``isinstance`` test of it whose branch converts
            it (``if isinstance(mode, enum.IntEnum): mode = int(mode)``): a call's value that the test
            rules out there does not arrive (:func:`asynccfg_lint.analysis.functions.narrowed_parameter`).
        removed: for a wrapper's config (``SinkKind.CONFIG``), the literal keys it takes out of the dict on every path
            before the sink (``cfg.pop("trace_file", None)``, ``{k: cfg.pop(k) for k in HOST_ONLY if k in cfg}``): a
            caller's entries under them never reach JAX.
        registered_in: for a sink of a primitive's ``bind``, the module whose registration made it (the
            prefilter runs the primitive's module again when that is another module).
    """

    qualnames: frozenset[str]
    param: str
    position: int | None
    kind: SinkKind
    key: str | None = None
    wrapper_module: str | None = None
    named: frozenset[str] = frozenset()
    used_at: str | None = None
    used_param: str | None = None
    read: str | None = None
    bind_keyword: bool = False
    forwarded: bool = False
    narrowed: bool = False
    removed: frozenset[str] = frozenset()
    registered_in: str | None = None

    @property
    def binds(self) -> bool:
        """True for a sink of a primitive's ``bind`` itself (not a wrapper that forwards to one)."""
        return self.used_at is not None and not self.forwarded

    @property
    def short_names(self) -> frozenset[str]:
        """The last dotted component of each qualified name: what the prefilter looks for.

        For a primitive's ``bind`` (:attr:`binds`) it is the primitive's name (``my_start_p``):
        every call names it, and ``bind`` alone is in almost every file of JAX; for an element of a table of
        primitives (``pkg.ops.m_p[125].bind``) the table's name, ``m_p``; for a ``__call__``, its class.
        """
        if self.binds:
            return frozenset(table_name(name.rsplit(".", 2)[-2]) for name in self.qualnames if name.count(".") >= 1)
        # a ``__call__`` rule is registered as an instance of its class: the class is what a registration names
        return frozenset(name.rsplit(".", 2)[-2] if name.endswith(".__call__") and name.count(".") >= 2
                         else name.rsplit(".", 1)[-1] for name in self.qualnames)


@functools.lru_cache(maxsize=1 << 16)
def spec_order(spec: SinkSpec) -> tuple:
    """A key that orders sink specs totally and the same in every process (a set of them iterates in an order
    that depends on ``PYTHONHASHSEED``): where several specs match one call, the first one's finding is the one
    reported, and its message must not change from run to run ("(used at ...)" would name either of two lines).
    Every field counts, in the dataclass's order (a frozenset sorted, ``None`` first). Kept per spec (each
    ``SinkFinder`` sorts the specs of every name: 45 k keys for a module of 1,000 primitives)."""
    return tuple(_orderable(getattr(spec, field.name)) for field in dataclasses.fields(spec))


def _orderable(value: object) -> tuple:
    if value is None:
        return (0,)
    if isinstance(value, frozenset):
        return (1, sorted(value))
    return (1, value.value if isinstance(value, Enum) else value)


def table_name(part: str) -> str:
    """A name part without the literal index that
    :meth:`~asynccfg_lint.analysis.parse.ParsedModule.qualified_names` gives an element of a table
    (``m_p[125]`` -> ``m_p``): the name the table has in the source text."""
    return part.partition("[")[0]


def primitive_words(primitive: Iterable[str]) -> frozenset[str]:
    """The identifiers code names a primitive of qualified names ``primitive`` with (``psum_p`` of
    ``jax._src.lax.parallel.psum_p``; ``m_p`` of ``pkg.m_p[125]``)."""
    return frozenset(table_name(name.rpartition(".")[2]) for name in primitive)


def sink_words(sinks: Iterable[SinkSpec]) -> frozenset[str]:
    """The identifiers a call of one of ``sinks`` names: each qualified name's last part, or for a primitive's
    ``bind`` the primitive's (``psum_p`` of ``jax._src.lax.parallel.psum_p.bind``; ``m_p`` of ``m_p[125].bind``)."""
    words: set[str] = set()
    for spec in sinks:
        for name in spec.qualnames:
            parts = name.split(".")
            words.add(table_name(parts[-2] if parts[-1] == "bind" and len(parts) > 1 else parts[-1]))
    return frozenset(words)


#: :attr:`SinkSpec.read` of a keyword whose fields the rule puts into its config: ``knobs._asdict()``
#: (``typing.NamedTuple``) and ``dataclasses.asdict(knobs)``
NAMED_TUPLE_FIELDS, DATACLASS_FIELDS = "_asdict()", "dataclasses.asdict()"
#: :attr:`SinkSpec.read` of a keyword whose pairs the rule turns into a dict under a key: ``dict(table)``
#: of a bind's ``table=((Mode.PUSH, 1),)`` (a tuple gets through bind, a dict would not)
PAIRS_DICT = "dict()"
#: :attr:`SinkSpec.read` of a keyword whose pairs' keys alone the rule keeps as they are, converting their
#: values: ``{k: int(v) for k, v in table}``
PAIRS_KEYS = "dict() keys"


def method_read(name: str) -> str:
    """:attr:`SinkSpec.read` of a keyword whose method ``name`` the rule calls without arguments for a dict
    it puts into its config (``{**opts.to_cfg(), "k": 1}``): ``"to_cfg()"``; ``_asdict`` is
    :data:`NAMED_TUPLE_FIELDS`."""
    return NAMED_TUPLE_FIELDS if name == "_asdict" else f"{name}()"


def read_method(read: str | None) -> str | None:
    """The method name of a :func:`method_read` (not one of the fields reads, nor :data:`PAIRS_DICT`), else ``None``."""
    if read is None or not read.endswith("()") or read in (NAMED_TUPLE_FIELDS, DATACLASS_FIELDS, PAIRS_DICT):
        return None
    return read[:-2]

BUILTIN_SINKS: tuple[SinkSpec, ...] = (
    SinkSpec(frozenset({EMIT_QUALNAME}), param="cfg", position=3, kind=SinkKind.CONFIG),
    # psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    # `tiled` is copied into the config as {"tiled": tiled} (truth table section 5); the other
    # public *_start arguments are converted or rejected before a config exists.
    SinkSpec(
        frozenset({"jax.lax.psum_scatter_start", "jax._src.lax.parallel.psum_scatter_start"}),
        param="tiled",
        position=None,
        kind=SinkKind.VALUE,
        key="tiled",
        bind_keyword=True,  # psum_scatter_start binds it (reduce_scatter_start_p) before the rule copies it
    ),
)

#: key -> attribute that _emit_async_start_custom_call reads from its value (section 2).
SPECIAL_KEY_ATTRIBUTE: dict[str, str] = {
    "channel_handle": "handle",
    "use_global_device_ids": "value",
}

#: the key a special key's attribute value is emitted under.
SPECIAL_KEY_EMITTED_AS: dict[str, str] = {
    "channel_handle": "channel_id",
    "use_global_device_ids": "use_global_device_ids",
}


class XlaShape(Enum):
    """The JSON shape XLA's collective config parser expects for a known key (section 4)."""

    #: a number, bool or null read as a bool (``tiled``, ``use_global_device_ids``): any number will do
    FLAG = "a number or bool"
    #: a number, bool or null read as a 64-bit integer (``channel_id``, the ``*_dimension`` keys,
    #: ``split_count``, the elements of ``replica_groups`` and ``permutation``; see :func:`reads_as_int64`)
    SCALAR = "a number or bool that fits a 64-bit integer"
    #: an array of arrays of numbers (``replica_groups``)
    NESTED_NUMBERS = "a list of lists of numbers"
    #: one row of ``NESTED_NUMBERS``
    NUMBERS = "a list of numbers"
    #: an array of [source, target] pairs (``permutation``; RET_CHECK pair.size() == 2)
    PAIRS = "a list of [source, target] pairs"
    #: one row of ``PAIRS``
    PAIR = "a [source, target] pair"

    @property
    def element(self) -> XlaShape | None:
        """The shape each element of a value of this shape must have."""
        return {
            XlaShape.NESTED_NUMBERS: XlaShape.NUMBERS,
            XlaShape.NUMBERS: XlaShape.SCALAR,
            XlaShape.PAIRS: XlaShape.PAIR,
            XlaShape.PAIR: XlaShape.SCALAR,
        }.get(self)

    @property
    def length(self) -> int | None:
        """The number of elements a value of this shape must have, when fixed."""
        return 2 if self is XlaShape.PAIR else None

    @property
    def scalar(self) -> bool:
        """True for the shapes of a single number or bool (an array or a string aborts)."""
        return self in (XlaShape.FLAG, XlaShape.SCALAR)


#: keys XLA parses whatever the target; a value of another JSON shape aborts or fails compile.
XLA_KEYS: dict[str, XlaShape] = {
    "tiled": XlaShape.FLAG,
    "channel_id": XlaShape.SCALAR,
    "use_global_device_ids": XlaShape.FLAG,
    "all_gather_dimension": XlaShape.SCALAR,
    "scatter_dimension": XlaShape.SCALAR,
    "split_dimension": XlaShape.SCALAR,
    "concat_dimension": XlaShape.SCALAR,
    "split_count": XlaShape.SCALAR,
    "permutation": XlaShape.PAIRS,
    "replica_groups": XlaShape.NESTED_NUMBERS,
}

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1


def reads_as_int64(number: int | float) -> bool:
    """True when XLA's JSON reader can take ``number`` as a 64-bit integer (measured by the oracle).

    XLA's parser keeps an integer literal as int64 when it fits, as uint64 when it fits that,
    and as a double otherwise; a float literal is a double. Reading the value as int64 then
    aborts the process for a uint64 above ``INT64_MAX`` and for a double outside
    ``[-2**63, 2**63]`` (compared as doubles: ``-(2**63) - 1024`` rounds to ``-2**63`` and
    passes, ``2**63`` as a float passes, ``1e19`` aborts).
    """
    if isinstance(number, int):
        if INT64_MIN <= number <= UINT64_MAX:
            return number <= INT64_MAX
        try:
            number = float(number)
        except OverflowError:
            return False
    return -(2.0**63) <= number <= 2.0**63


#: CPython refuses to print ints longer than this (sys.get_int_max_str_digits); json.dumps then
#: raises ValueError (section 1, "int with 5000 digits").
INT_MAX_STR_DIGITS = 4300
