"""The type catalog (``asynccfg_lint/analysis/infer/catalog``): its model in-process, and every row verified
against the installed library and JAX's real serializer.

The verification (marker ``jax``) evaluates each row's probe inside a real lowering rule
(``tests/catalog_probe.py``): a :class:`TypeRow`'s value must be an instance of its ``runtime``
class and get its verdict from the real ``_emit_async_start_custom_call`` (serializes or not; a
valid key or not); a :class:`CallRow`'s or :class:`MemberRow`'s value must be an instance of the
runtime class of its result type (of one of them, for a union). A row without a probe, or whose
probe raises, fails. Rows marked ``by_reading`` (torch, not installable here) are listed, not run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from asynccfg_lint.analysis.checker import check_source
from asynccfg_lint.analysis.infer.catalog import CATALOG, TABLES, CatalogError, extended, user_row
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, CallRow, Catalog, Known, MemberRow, TypeRow
from asynccfg_lint.run.selection import Selection

PROBE = Path(__file__).with_name("catalog_probe.py")
WITH_UNKNOWN = Selection(extend_select=("ACC201",))


def _probe(row) -> str:
    """The expression that verifies ``row``."""
    if isinstance(row, TypeRow):
        return row.probe
    if isinstance(row, CallRow):
        return row.probe
    return row.probe_for(CATALOG.types[row.owner].probe)


def _row_id(row) -> str:
    if isinstance(row, TypeRow):
        return f"type {row.name}"
    if isinstance(row, CallRow):
        return f"call {row.qualname}" + (f"({row.argument})" if row.argument else "")
    return f"{row.kind} {row.owner} {row.name}".rstrip()


def _executed_rows():
    return [row for row in CATALOG.rows if not row.by_reading]


# ---------------------------------------------------------------- in-process: the model
def test_every_row_names_its_fact_and_has_a_probe():
    for row in CATALOG.rows:
        assert row.fact.strip(), _row_id(row)
        assert _probe(row).strip(), f"{_row_id(row)} has no probe: it cannot be verified"


def test_counts_of_rows_verified_and_judged_by_reading():
    judged = [row for row in CATALOG.rows if row.by_reading]
    print(f"\ncatalog: {len(CATALOG.rows)} rows, {len(CATALOG.rows) - len(judged)} verified, "
          f"{len(judged)} judged by reading")
    assert {_row_id(row).split(" ")[1] for row in judged if isinstance(row, TypeRow)} == {
        "torch.Tensor", "torch.Size", "torch.dtype", "torch.device"}
    assert all(row in TABLES["torch"].ROWS for row in judged)


def test_a_row_referring_to_an_undefined_type_is_rejected():
    with pytest.raises(CatalogError, match="no row defines"):
        Catalog((CallRow("mypkg.f", "mypkg.Undefined", "a fact", "f()"),))
    with pytest.raises(CatalogError, match="defined twice"):
        Catalog(CATALOG.rows + (CATALOG.rows[0],))


def test_member_walk_and_union():
    context = Known(frozenset({"jax._src.interpreters.mlir.LoweringRuleContext"}))
    avals = CATALOG.member(context, ATTRIBUTE, "avals_in")
    element = CATALOG.member(avals, ELEMENT)
    assert element == Known(frozenset({"jax._src.core.ShapedArray"}))
    assert CATALOG.member(element, ATTRIBUTE, "dtype") == Known(frozenset({"numpy.dtype"}))
    assert CATALOG.member(element, ATTRIBUTE, "no_such_attribute") is None
    created = CATALOG.call("omegaconf.OmegaConf.create")
    assert created == Known(frozenset({"omegaconf.DictConfig", "omegaconf.ListConfig"}))
    assert [v.name for v in CATALOG.verdicts(created)] == ["omegaconf.DictConfig", "omegaconf.ListConfig"]


def test_user_rows_extend_the_catalog():
    catalog = extended(frozenset({"mypkg.io.cache_root=pathlib.Path", "mypkg.sanitize"}))
    assert catalog.call("mypkg.io.cache_root") == Known(frozenset({"pathlib.Path"}))
    assert catalog.call("mypkg.sanitize") is None
    with pytest.raises(CatalogError, match="not a catalog type"):
        user_row("mypkg.f", "no.such.Type")


@pytest.mark.parametrize("expression, expected", [
    ("ctx.avals_in[0].dtype", {"ACC101"}),
    ("str(ctx.avals_in[0].dtype)", set()),
    ("ctx.avals_in[0].dtype.name", set()),
    ("ctx.avals_in[0].shape", set()),
    ("ctx.avals_out[0].inner_aval.ndim", set()),
    ("ctx.module_context.new_channel()", set()),
    ("ctx.module_context.axis_context.mesh.devices", {"ACC101"}),
    ("ctx.module_context.axis_context.mesh.device_ids", set()),
    ("ctx.module_context.axis_context.mesh.shape", set()),
    ("ctx.module_context.axis_context.mesh.shape.keys()", {"ACC101"}),
    ("ctx.module_context.axis_context.manual_axes", {"ACC101"}),
    # the aval's AbstractMesh (measured under shard_map: axis_types is (AxisType.Manual,))
    ("ctx.avals_in[0].sharding.mesh.axis_types", {"ACC101"}),
    ("ctx.avals_in[0].sharding.mesh.axis_types[0]", {"ACC101"}),
    ("[str(t) for t in ctx.avals_in[0].sharding.mesh.axis_types]", set()),
    ("[t.name for t in ctx.avals_in[0].sharding.mesh.axis_types]", set()),
    ("ctx.avals_in[0].sharding.mesh.axis_names", set()),
    ("tuple(ctx.avals_in[0].sharding.mesh.axis_sizes)", set()),
    ("ctx.avals_in[0].sharding.mesh.axis_sizes", set()),
    ("ctx.avals_in[0].sharding.mesh.shape_tuple", set()),
    ("ctx.avals_in[0].sharding.mesh._any_axis_manual", set()),
    ("ctx.avals_in[0].sharding.mesh.abstract_mesh", {"ACC101"}),
    ("ctx.avals_in[0].sharding.spec.unreduced", {"ACC101"}),
    ("str(ctx.avals_in[0].sharding.spec)", set()),
    ("ctx.module_context.axis_context.mesh.axis_sizes", set()),
    ("ctx.module_context.axis_context.mesh.local_devices", {"ACC101"}),
    # numpy's, jax.numpy's and ml_dtypes' info objects
    ("np.finfo(np.float32).dtype", {"ACC101"}),
    ("str(np.finfo(np.float32).dtype)", set()),
    ("np.finfo(np.float32).max", set()),
    ("np.finfo(np.float64).max", set()),
    ("np.finfo(np.float32).smallest_subnormal", set()),
    ("np.finfo(np.float32).precision", set()),
    ("np.iinfo(np.int32)", {"ACC101"}),
    ("np.iinfo(np.int32).max", set()),
    ("np.iinfo(np.int32).dtype", {"ACC101"}),
    ("np.finfo(ctx.avals_in[0].dtype).dtype", {"ACC101"}),
    ("jnp.finfo(jnp.float32).dtype", {"ACC101"}),
    ("jnp.finfo(jnp.float32).eps", set()),
    ("jnp.iinfo(jnp.int32)", {"ACC101"}),
    ("jnp.iinfo(jnp.int32).min", set()),
    ("jnp.finfo(jnp.bfloat16).eps", {"ACC101"}),
    ("ml_dtypes.finfo(ml_dtypes.bfloat16).dtype", {"ACC101"}),
    ("ml_dtypes.finfo(ml_dtypes.bfloat16).dtype.name", set()),
    ("pathlib.Path('/tmp') / 'x'", {"ACC101"}),
    ("str(pathlib.Path('/tmp') / 'x')", set()),
    ("pathlib.Path('/tmp').joinpath('a').name", set()),
    ("jax.devices()", {"ACC101"}),
    ("jax.devices()[0].id", set()),
    ("ml_dtypes.finfo(ml_dtypes.bfloat16).max", {"ACC101"}),
    ("np.array([1.0]).sum()", set()),
    ("np.array([1.0]).any()", {"ACC101"}),
    ("OmegaConf.create({'a': 1})", {"ACC101"}),
])
def test_classifier_verdicts_from_the_catalog(expression, expected):
    source = (
        "import pathlib\nimport jax\nimport jax.numpy as jnp\nimport ml_dtypes\nimport numpy as np\nfrom omegaconf import OmegaConf\n"
        "from jax._src.interpreters import mlir\nfrom jax._src.lax.parallel import _emit_async_start_custom_call\n\n"
        "def rule(ctx: mlir.LoweringRuleContext, x):\n"
        f"    return _emit_async_start_custom_call('t', ctx, x, {{'v': {expression}}})\n"
    )
    assert {d.code for d in check_source(source, "t.py", WITH_UNKNOWN)} == expected


# ---------------------------------------------------------------- against the real libraries
@pytest.fixture(scope="module")
def measured() -> dict[str, dict]:
    if sys.version_info < (3, 12):
        pytest.skip(f"jax 0.12.0.1 needs Python >= 3.12; this is {sys.version.split()[0]}")
    pytest.importorskip("jax")
    rows = {_row_id(row): _probe(row) for row in _executed_rows()}
    imports = [table.IMPORTS for name, table in TABLES.items() if name != "torch"]
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8", "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, str(PROBE)], input=json.dumps({"imports": imports, "probes": rows}),
                               capture_output=True, text=True, env=env, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    return {item["id"]: item for item in map(json.loads, completed.stdout.splitlines())}


def _is_instance(mro: list[str], row: TypeRow) -> bool:
    runtime = row.runtime.replace("builtins.NoneType", "builtins.NoneType")
    return mro[0] == runtime if row.exact else runtime in mro


@pytest.mark.jax
@pytest.mark.parametrize("row", _executed_rows(), ids=_row_id)
def test_row_holds_on_the_real_library(row, measured):
    result = measured.get(_row_id(row))
    assert result is not None, f"{_row_id(row)} was not verified"
    assert "error" not in result, f"the probe {_probe(row)!r} raised {result.get('error')}"
    if isinstance(row, TypeRow):
        assert _is_instance(result["mro"], row), f"{row.probe} is a {result['mro'][0]}, not a {row.runtime}"
        serializes = result["value"] == "ok"
        assert serializes == row.verdict.serializes, f"{row.probe}: JAX says {result['value']}"
        if result["value"] not in ("ok", "ValueError"):
            pytest.fail(f"{row.probe}: lowering raised {result['value']}")
        assert (result["key"] == "ok") == row.verdict.key_ok, f"{row.probe} as a key: {result['key']}"
        assert result["key"] in ("ok", "TypeError", "unhashable", "ValueError")
    else:
        results = CATALOG.resolve(row.result).names
        assert any(_is_instance(result["mro"], CATALOG.types[name]) for name in results), (
            f"{_probe(row)} is a {result['mro'][0]}, not one of {sorted(results)}")
        # the value's verdict is the result type's (one of them, for a union)
        verdicts = {(CATALOG.types[name].verdict.serializes, CATALOG.types[name].verdict.key_ok)
                    for name in results if _is_instance(result["mro"], CATALOG.types[name])}
        assert (result["value"] == "ok", result["key"] == "ok") in verdicts, (
            f"{_probe(row)}: JAX says value {result['value']}, key {result['key']}")


def test_rows_judged_by_reading_are_listed_in_the_docs():
    design = " ".join((Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8").split())
    for row in CATALOG.rows:
        if row.by_reading:
            assert _row_id(row) in design, f"{_row_id(row)} is judged by reading but not listed in docs/design.md"


def test_a_message_never_contradicts_its_fix():
    """A jax scalar of unknown value, and array arithmetic, get a ``.tolist()`` fix: the message says ``.tolist()`` too."""
    source = ("import jax.numpy as jnp\nfrom jax._src.lax.parallel import _emit_async_start_custom_call\n"
              "def rule(ctx, x, n):\n    return _emit_async_start_custom_call('t', ctx, x, "
              "{'a': jnp.int32(3) / 2, 'b': jnp.int32(n), 'c': jnp.int32(3)})\n")
    found = [(d.message.rsplit("; ", 1)[1], d.fix.description) for d in check_source(source, "t.py", with_fixes=True)]
    assert found == [("use x.tolist()", "append .tolist()"), ("use x.tolist()", "append .tolist()"),
                     ("use int(...)", "wrap in int(...)")]


def _classifier_probe(row) -> tuple[str, TypeRow] | None:
    """The config value that shows the classifier applies ``row``, and the type whose verdict it must get.

    An element row is checked through a comprehension over the owner (``[e for e in <owner>]``), so
    its verdict is that of an element; a union result is checked only when JAX treats its members alike.
    """
    if isinstance(row, TypeRow) or row in TABLES["enum"].ROWS:
        return None  # the enum probes use the functional API; members of classes the code defines: fixtures
    names = sorted(CATALOG.resolve(row.result).names)
    verdicts = {(CATALOG.types[n].verdict.serializes) for n in names}
    if len(verdicts) != 1:
        return None
    if isinstance(row, MemberRow) and row.kind == ELEMENT:
        return f"[e for e in ({CATALOG.types[row.owner].probe})]", CATALOG.types[names[0]]
    return _probe(row), CATALOG.types[names[0]]


_IMPORTS = "\n".join(table.IMPORTS.replace("; ", "\n") for name, table in TABLES.items() if name != "torch")


@pytest.mark.parametrize("row", [r for r in _executed_rows() if _classifier_probe(r) is not None], ids=_row_id)
def test_classifier_applies_the_row(row):
    """The default rules give every row's value its real verdict, and the value is never unknown (ACC201)."""
    expression, result = _classifier_probe(row)
    source = (f"{_IMPORTS}\nfrom jax._src.lax.parallel import _emit_async_start_custom_call\n\n"
              "def rule(ctx: mlir.LoweringRuleContext, x):\n"
              f"    return _emit_async_start_custom_call('t', ctx, x, {{'v': {expression}}})\n")
    codes = {d.code for d in check_source(source, "t.py", WITH_UNKNOWN)}
    assert codes == (set() if result.verdict.serializes else {"ACC101"}), expression
