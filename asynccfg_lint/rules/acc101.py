"""ACC101 unsupported-value-type: a config value JAX's JSON serializer (or the primitive's bind) rejects."""

from __future__ import annotations

from asynccfg_lint.rules.rule import ERROR, Rule, quote_key

SEVERITY = ERROR

RULE = Rule(
    code="ACC101",
    name="unsupported-value-type",
    summary="A config value of a type JAX's JSON serializer rejects.",
    failure=(
        "`json.dumps(cfg, default=_json_default)` in `_emit_async_start_custom_call` raises "
        "`ValueError: Unsupported type for JSON serialization` when the jitted function is lowered. "
        "A keyword of a primitive's `bind` that JAX cannot hash (a list, set, dict or ndarray, also "
        "inside a tuple) raises `TypeError` at `bind`, whatever the lowering rule does with it."
    ),
    default_enabled=True,
    bad_example='cfg = {"tiled": np.bool_(True)}\n',
    good_example='cfg = {"tiled": bool(np.bool_(True))}\n',
    severity=SEVERITY,
)

#: the remedy of an unhashable parameter whose type names none of its own, under a key XLA parses as a scalar
HASHABLE_REMEDY = "pass a bool, int or float"
#: a jax.Array bound as a ``bind`` keyword: the bind runs in a traced function (jit, shard_map), where a jnp value
#: is a tracer and ``int(...)`` of it raises ConcretizationTypeError (measured on jax 0.12.0.1:
#: ``p.bind(x, depth=int(jnp.int32(3)))`` under ``jax.jit(shard_map(...))``); a Python or numpy scalar lowers
JAX_ARRAY_BIND_REMEDY = ("pass a Python or numpy scalar instead (3, np.int32(3)): the bind runs traced, where "
                         "int(...) of a jnp value raises ConcretizationTypeError")
#: ... holding a sequence (a list, an ndarray, a set) elsewhere: a tuple is hashable and is the same JSON array
#: (measured: ``bind(x, groups=(tuple(range(8)),))`` lowers, compiles and runs under ``replica_groups``)
HASHABLE_SEQUENCE_REMEDY = "pass a tuple instead (a tuple of tuples for a nested list)"
#: ... holding a mapping
HASHABLE_MAPPING_REMEDY = "pass a tuple of (key, value) pairs and build the dict in the lowering rule"
#: ... holding an instance of a dataclass whose ``eq`` left it without ``__hash__`` (measured: the same record
#: declared ``@dataclass(frozen=True)`` binds, and its rule's ``dataclasses.asdict(opts)`` lowers)
HASHABLE_DATACLASS_REMEDY = "declare the dataclass @dataclass(frozen=True), which makes its instances hashable"


def hashable_remedy(scalar_key: bool, mapping: bool) -> str:
    """What to pass instead of an unhashable ``bind`` parameter: a scalar under a key XLA parses as one
    (``tiled``), else a tuple (of pairs, for a ``mapping``)."""
    if scalar_key:
        return HASHABLE_REMEDY
    return HASHABLE_MAPPING_REMEDY if mapping else HASHABLE_SEQUENCE_REMEDY


def unserializable(where: str, type_name: str, error: str, remedy: str | None) -> str:
    """``where`` (a config place) holds ``type_name``, which ``_json_default`` rejects with ``error``."""
    tail = f"; {remedy}" if remedy else ""
    return f"{where} is {type_name}, which JAX cannot serialize to JSON: lowering raises {error}{tail}"


def bind_keyword(name: str | None) -> str:
    """The place of a ``bind`` keyword that is a jaxpr equation parameter only: ``keyword "sizes" of bind``."""
    return f"keyword {quote_key(name)} of bind" if name is not None else "a keyword of bind"


def element_of(where: str) -> str:
    """The place of an element of the value at ``where``."""
    return f"an element of {where}"


def field_of(where: str, name: str) -> str:
    """The place of the field ``name`` of the record at ``where`` (a frozen dataclass hashes its fields)."""
    return f"field {quote_key(name)} of {where}"


def unhashable(where: str, type_name: str, remedy: str) -> str:
    """``where`` (a ``*_start`` argument bound as a jaxpr parameter) holds the unhashable ``type_name``."""
    return (f"{where} is {type_name}, which JAX cannot hash: binding the primitive raises TypeError (jaxpr "
            f"equation parameters must be hashable) before any config exists; {remedy}")
