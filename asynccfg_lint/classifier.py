"""Value classifier: infer what each config value is and decide what JAX and XLA will do with it.

The verdicts follow the team's truth table (jax 0.12.0.1), as encoded in
:mod:`asynccfg_lint.types` and :mod:`asynccfg_lint.jax_facts`.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import struct
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import libcst as cst

from asynccfg_lint import objects
from asynccfg_lint import types as T
from asynccfg_lint.infer import arguments, lookup
from asynccfg_lint.infer.catalog import extended
from asynccfg_lint.infer.model import ATTRIBUTE, ELEMENT, METHOD, OPERATOR, Known
from asynccfg_lint.jax_facts import (
    INT_MAX_STR_DIGITS,
    SPECIAL_KEY_ATTRIBUTE,
    SPECIAL_KEY_EMITTED_AS,
    XLA_KEYS,
    XlaShape,
    reads_as_int64,
)
from asynccfg_lint.parse import ParsedModule
from asynccfg_lint.programs import LOWERING_RULE_CONTEXT, is_rule_context
from asynccfg_lint.resolution import (
    Binding,
    unpacked_value,
    attribute_bindings,
    bindings_of_name,
    is_import,
    local_definition,
    qualified_names,
    reaching,
    string_value,
)
from asynccfg_lint.tracer import (
    ASYNC_RUNNERS,
    MAX_DEPTH,
    DictTracer,
    Entry,
    TracedDict,
    is_dataclass,
    is_typed_dict,
    returns_of,
    unpacked_values,
)

if TYPE_CHECKING:
    from asynccfg_lint.workspace import Workspace

#: float constructors -> the ``struct`` format of their width when narrower than a double
#: (``np.float32("1e39")`` is infinity; JAX's hook then emits ``float(x)``)
_FLOAT_CONSTRUCTORS: dict[str, str | None] = {
    "builtins.float": None,
    "numpy.float64": None,
    "numpy.double": None,
    "numpy.float_": None,
    "numpy.longdouble": None,  # converted with float() by _json_default: past a double's range it is infinity
    "numpy.float32": "f",
    "numpy.single": "f",
    "numpy.float16": "e",
    "numpy.half": "e",
}


@dataclass(frozen=True)
class Inferred:
    """What the classifier knows about one value.

    Attributes:
        type: the :class:`~asynccfg_lint.types.PyType`, or ``None`` when unknown.
        nonfinite: the value is NaN or an infinity.
        beyond_int64: a number literal XLA cannot read as a 64-bit integer
            (:func:`~asynccfg_lint.jax_facts.reads_as_int64`; it aborts on such ids).
        elements: element expressions of a literal container, checked one by one.
        traced: the entries of a dict value.
        member_value: for an enum member, the expression its ``.value`` comes from.
        cls: for an instance of a class defined in this module, that class (its attributes
            are what ``_emit_async_start_custom_call`` reads under the special keys).
        ndim: for a numpy array, its number of dimensions when the code shows it (``np.array(True)``
            is 0, ``np.arange(4)`` is 1).
        item: for a numpy array, the type of one element when its dtype is known
            (``numpy.bool_`` for ``np.array([True])``, ``numpy number`` for ``np.arange(4)``).
        numpy_scalar: the value is a numpy scalar, not an array, even when ``type`` is unknown
            (an element of an array of unknown dtype): comparing it gives a ``numpy.bool_``.
        model: the value's type in the catalog (:mod:`asynccfg_lint.infer`), when the catalog
            produced it; its members (``ctx.avals_in[0].dtype``) are looked up there.
    """

    type: T.PyType | None
    nonfinite: bool = False
    beyond_int64: bool = False
    elements: tuple[cst.BaseExpression, ...] = ()
    traced: TracedDict | None = None
    member_value: cst.BaseExpression | None = None
    cls: cst.ClassDef | None = None
    ndim: int | None = None
    item: T.PyType | None = None
    numpy_scalar: bool = False
    model: Known | None = None


UNKNOWN = Inferred(None)
#: what :meth:`ValueClassifier._literal` returns for an expression that is not a literal
_NOT_LITERAL = object()


@dataclass(frozen=True)
class Origin:
    """A source of a value: the expression that produced it and what it is.

    ``node`` is where a diagnostic points (1-based line, 0-based column once positioned).

    A value of another project module has ``home`` (that module: ``inferred``'s nodes belong
    to it) and ``source`` (where the value is written there); ``node`` is then the expression of
    this module it arrived through. An enum member of another module's class, written here, has
    only ``home``.
    """

    node: cst.CSTNode
    inferred: Inferred
    home: ParsedModule | None = field(default=None, compare=False)
    source: cst.CSTNode | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Finding:
    """A fault found at ``node`` (not yet positioned): rule ``code`` and its ``message``.

    ``fix`` is the mechanical remedy from the type catalog (:class:`~asynccfg_lint.types.FixTemplate`),
    made for the value at ``node``; ``None`` when the fault has none. ``written_at`` is
    ``path:line`` of the offending value when it is written in another module (``node`` is then
    the expression of the checked module it arrives through, and there is no fix). ``used_at`` is
    where a registered lowering rule puts a value passed to ``prim.bind`` (``node`` is then the
    ``bind`` argument): ``path:line``, or the rule's qualified name when its module is not read.

    Where the fix may go is decided by :func:`asynccfg_lint.fixes.fix_site` from two more facts:
    ``use`` is the expression of the config the value itself arrives through (an entry's value,
    a container's element, a key: ``node`` itself or around it when the value is written there,
    else a name or call leading to ``node``); ``outer`` are the config expressions of the
    containers around the value, innermost first (``flags`` in ``{"k": flags}`` for an element of
    ``flags = [np.bool_(1)]``). Both are ``None``/empty for a value read through an attribute of
    a special key (its fix goes to where the attribute's value is written).
    """

    node: cst.CSTNode
    code: str
    message: str
    fix: T.FixTemplate | None = None
    written_at: str | None = None
    use: cst.CSTNode | None = None
    outer: tuple[cst.CSTNode, ...] = ()
    used_at: str | None = None


def _arriving_through(findings: list[Finding], expr: cst.CSTNode) -> list[Finding]:
    """``findings`` about the value of the config expression ``expr`` and what it holds, with ``expr`` recorded.

    A finding without a ``use`` is about the value of ``expr`` itself; one with another ``use`` is
    about something inside it, so ``expr`` is one of its ``outer`` containers.
    """
    return [replace(f, use=expr) if f.use is None else f if f.use is expr else replace(f, outer=(*f.outer, expr))
            for f in findings]


#: characters ``str.splitlines`` breaks at that ``json.dumps(..., ensure_ascii=False)`` leaves as they are
_LINE_BREAKS_JSON_KEEPS = {ord(c): f"\\u{ord(c):04x}" for c in "\x85\u2028\u2029"}


def quote_key(key: str | None) -> str:
    """A config key as a message shows it: quoted and escaped as JSON writes a string (``"a\\nb"``, ``"q\\"r"``).

    Keys are arbitrary strings; pasted raw, a line break would split a diagnostic over two
    printed lines and a quote would end the quoted key early. Non-ASCII letters stay readable;
    the line separators JSON leaves raw but ``str.splitlines`` breaks at are escaped too.
    """
    return json.dumps(key, ensure_ascii=False).translate(_LINE_BREAKS_JSON_KEEPS)


@dataclass
class ConfigPath:
    """Where in the config a value sits, for messages: top-level key, then nested steps."""

    key: str | None
    steps: list[str] = field(default_factory=list)

    def describe(self) -> str:
        head = f"key {quote_key(self.key)}" if self.key is not None else "a computed key"
        if not self.steps:
            return f"value for {head}"
        return f"{' of '.join(reversed(self.steps))} under {head}"

    def child(self, step: str) -> ConfigPath:
        return ConfigPath(self.key, [*self.steps, step])


class ValueClassifier:
    """Infer value types in one module and check config entries against JAX's rules.

    Args:
        parsed: the module, with metadata.
        tracer: the module's :class:`~asynccfg_lint.tracer.DictTracer`.
        sanitizers: qualified names of functions whose result is JSON-safe (from the configuration).
        workspace: the check's modules, to follow names imported from other project modules
            (each module's nodes are classified by that module's classifier); ``None`` stays
            within ``parsed``.
    """

    def __init__(self, parsed: ParsedModule, tracer: DictTracer, sanitizers: frozenset[str] = frozenset(),
                 workspace: Workspace | None = None) -> None:
        self.parsed = parsed
        self.tracer = tracer
        self.sanitizers = sanitizers
        self.workspace = workspace
        #: the type catalog, with the rows declared in ``[tool.asynccfg-lint.types]`` (``QUALNAME=TYPE`` entries)
        self.catalog = extended(sanitizers)
        self._memo: dict[int, list[Origin]] = {}
        #: nodes the classifier made (``type(...)`` of an argparse option): kept alive, since memos key on ``id``
        self._synthetic: list[cst.CSTNode] = []
        self._active: set[int] = set()

    # ================================================================ inference
    def origins(self, expr: cst.BaseExpression, depth: int = 0) -> list[Origin]:
        """Return the sources ``expr`` may get its value from, each with what it is."""
        key = id(expr)
        if key in self._memo:
            return self._memo[key]
        if depth > MAX_DEPTH or key in self._active:
            return [Origin(expr, UNKNOWN)]
        self._active.add(key)
        try:
            result = self._origins(expr, depth)
        finally:
            self._active.discard(key)
        self._memo[key] = result
        return result

    def _one(self, expr: cst.CSTNode, inferred: Inferred) -> list[Origin]:
        return [Origin(expr, inferred)]

    # -- the type model (asynccfg_lint.infer) -------------------------------------------------
    @staticmethod
    def _typed(expr: cst.CSTNode, found: list[lookup.Typed] | None) -> list[Origin] | None:
        """Origins at ``expr`` for the catalog types ``found`` (one per member of a union), or ``None``."""
        if found is None:
            return None
        first = found[0][0]
        if len(found) > 1 and all((t.json, t.key_ok) == (first.json, first.key_ok) for t, _ in found):
            # a union whose members JAX treats alike (OmegaConf.create: a DictConfig or a ListConfig) is one
            # value, with a fix only where every member has the same one
            verdict = replace(first, name=" or ".join(t.name for t, _ in found),
                              fix=first.fix if all(t.fix == first.fix for t, _ in found) else None,
                              key_fix=first.key_fix if all(t.key_fix == first.key_fix for t, _ in found) else None)
            names = frozenset(name for _, known in found for name in known.names)
            return [Origin(expr, Inferred(verdict, model=Known(names)))]
        return [Origin(expr, Inferred(pytype, model=known)) for pytype, known in found]

    def _member(self, expr: cst.CSTNode, receiver: cst.BaseExpression, kind: str, name: str, depth: int,
                with_arguments: bool = False) -> list[Origin] | None:
        """What the catalog says ``receiver``'s member is, when it knows every possible receiver."""
        origins = self.origins(receiver, depth + 1)
        if not origins or any(o.home is not None for o in origins):
            return None
        models = [lookup.model_of(self.catalog, o.inferred.type, o.inferred.model) for o in origins]
        return self._typed(expr, lookup.member(self.catalog, models, kind, name, with_arguments))

    def _origins(self, expr: cst.BaseExpression, depth: int) -> list[Origin]:  # noqa: C901 - a dispatch table
        value = _int_constant(expr)
        if value is not None:
            return self._one(expr, _int_inferred(value))
        if isinstance(expr, cst.Float):
            return self._one(expr, _float_inferred(T.FLOAT, float(expr.value.replace("_", ""))))
        if isinstance(expr, cst.Imaginary):
            return self._one(expr, Inferred(T.COMPLEX))
        if isinstance(expr, cst.Ellipsis):
            return self._one(expr, Inferred(T.CONSTANTS["builtins.Ellipsis"][0]))
        if isinstance(expr, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
            return self._one(expr, Inferred(self._string_type(expr)))
        if isinstance(expr, (cst.List, cst.Tuple)):
            kind = T.LIST if isinstance(expr, cst.List) else T.TUPLE
            elements = tuple(e.value for e in expr.elements if not isinstance(e, cst.StarredElement))
            return self._one(expr, Inferred(kind, elements=elements))
        if isinstance(expr, (cst.Set, cst.SetComp)):
            return self._one(expr, Inferred(T.CALL_RESULTS["builtins.set"]))
        if isinstance(expr, cst.ListComp):
            return self._one(expr, Inferred(T.LIST, elements=(expr.elt,)))
        if isinstance(expr, cst.GeneratorExp):
            return self._one(expr, Inferred(T.GENERATOR))
        if isinstance(expr, (cst.Dict, cst.DictComp)):
            return self._one(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))
        if isinstance(expr, cst.Lambda):
            return self._one(expr, Inferred(T.FUNCTION))
        if isinstance(expr, cst.IfExp):
            return self.origins(expr.body, depth + 1) + self.origins(expr.orelse, depth + 1)
        if isinstance(expr, cst.BooleanOperation):
            return self.origins(expr.left, depth + 1) + self.origins(expr.right, depth + 1)
        if isinstance(expr, cst.NamedExpr):
            return self.origins(expr.value, depth + 1)
        if isinstance(expr, cst.UnaryOperation):
            return self._unary(expr, depth)
        if isinstance(expr, cst.BinaryOperation):
            return self._binary(expr, depth)
        if isinstance(expr, cst.Comparison):
            return self._one(expr, Inferred(self._comparison(expr, depth)))
        if isinstance(expr, cst.Name):
            return self._name(expr, depth)
        if isinstance(expr, cst.Attribute):
            return self._attribute(expr, depth)
        if isinstance(expr, cst.Call):
            return self._call(expr, depth)
        if isinstance(expr, cst.Await):
            return self._awaited(expr.expression, depth)
        if isinstance(expr, cst.Subscript):
            return self._subscript(expr, depth)
        return self._one(expr, UNKNOWN)

    # -- literals --------------------------------------------------------------------------
    @staticmethod
    def _string_type(expr: cst.BaseExpression) -> T.PyType:
        node = expr
        while isinstance(node, cst.ConcatenatedString):
            node = node.left
        prefix = node.prefix if isinstance(node, (cst.SimpleString, cst.FormattedString)) else ""
        if "b" in prefix.lower():
            return T.CALL_RESULTS["builtins.bytes"]
        return T.STR

    # -- operators -------------------------------------------------------------------------
    def _unary(self, expr: cst.UnaryOperation, depth: int) -> list[Origin]:
        if isinstance(expr.operator, cst.Not):
            return self._one(expr, Inferred(T.BOOL))
        inner = self.origins(expr.expression, depth + 1)
        return [replace(o, node=expr) if o.node is expr.expression else o for o in inner]

    def _binary(self, expr: cst.BinaryOperation, depth: int) -> list[Origin]:
        symbol = _OPERATOR_SYMBOLS.get(type(expr.operator))
        modelled = self._member(expr, expr.left, OPERATOR, symbol, depth) if symbol is not None else None
        if modelled is not None:  # Path("/") / "x", a datetime minus a datetime
            return modelled
        # elements of another module's list are that module's nodes: they are not carried over
        left = [o.inferred if o.home is None else replace(o.inferred, elements=())
                for o in self.origins(expr.left, depth + 1)]
        right = [o.inferred if o.home is None else replace(o.inferred, elements=())
                 for o in self.origins(expr.right, depth + 1)]
        combined = left + right
        if any(i.type is None for i in combined):
            return self._one(expr, UNKNOWN)
        types = [i.type for i in combined]
        for kind in T.ARRAY_TYPES:
            arrays = [t for t in types if T.array_kind(t) is kind]
            if arrays:  # keeps what is known of the array (a numpy array of complex stays rejected)
                # the result's shape and dtype are the operands' combined (jnp.int32(3) / 2 is a float
                # array): only .tolist() is certain to keep the value
                result = _tolist(arrays[0]) if arrays[0].fix is not None else arrays[0]
                return self._one(expr, Inferred(result))
        if any(t is T.COMPLEX for t in types):  # 1 + 2j
            return self._one(expr, Inferred(T.COMPLEX))
        bitwise = isinstance(expr.operator, (cst.BitOr, cst.BitAnd, cst.BitXor))
        if bitwise and len(set(types)) == 1 and types[0].name.startswith("enum"):
            return self._one(expr, Inferred(types[0]))  # Flag.A | Flag.B is a member of the same flag
        # inf // 2 and inf % 2 are NaN, but x / inf, x // inf and x % inf are finite for finite x
        nonfinite = any(i.nonfinite for i in left) or (
            any(i.nonfinite for i in right) and not isinstance(expr.operator, (cst.Divide, cst.FloorDivide, cst.Modulo))
        )
        if all(t.json is T.JsonKind.STRING for t in types) and isinstance(expr.operator, cst.Add):
            return self._one(expr, Inferred(T.STR))
        if isinstance(expr.operator, cst.Modulo) and types[0].json is T.JsonKind.STRING:
            return self._one(expr, Inferred(T.STR))
        if all(t.json in (T.JsonKind.NUMBER, T.JsonKind.BOOL) for t in types):
            if any(t.name.startswith("numpy") for t in types):
                return self._one(expr, Inferred(T.NUMPY_NUMBER, nonfinite=nonfinite))
            if isinstance(expr.operator, cst.Divide) or any(t is T.FLOAT for t in types):
                return self._one(expr, Inferred(T.FLOAT, nonfinite=nonfinite))
            return self._one(expr, Inferred(T.INT))
        if all(t.json is T.JsonKind.ARRAY for t in types) and isinstance(expr.operator, cst.Add):
            elements = tuple(e for i in combined for e in i.elements)
            return self._one(expr, Inferred(T.LIST, elements=elements))
        return self._one(expr, UNKNOWN)

    def _comparison(self, expr: cst.Comparison, depth: int) -> T.PyType | None:
        operands = [expr.left] + [c.comparator for c in expr.comparisons]
        if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons):
            return T.BOOL
        return self._elementwise_bool(operands, depth, ufunc=False)

    def _elementwise_bool(self, operands: list[cst.BaseExpression], depth: int, ufunc: bool) -> T.PyType | None:
        """What a comparison of ``operands``, or a numpy predicate (``ufunc``) of them, gives.

        An array operand makes it an array of bools (a jax.Array for a jax operand; a numpy predicate
        of a list is an ndarray). Otherwise a numpy scalar operand, or any numpy predicate of
        scalars, makes it a ``numpy.bool_`` (which JAX rejects), and a comparison of Python scalars
        is a ``bool``. When an operand may be either a scalar or an array, the result is unknown.
        Measured with numpy 2.5.5: ``np.sum(a) > 0``, ``np.array(True) > 0`` (a 0-d array),
        ``np.isnan(1.0)`` are ``numpy.bool``; ``np.arange(3) > 0``, ``np.isnan([1.0])`` are arrays.
        An ndarray of unknown shape counts as an array, as it always has for comparisons.
        """
        arrays: set[T.PyType] = set()
        numpy_scalar = unknown = other = False
        for operand in operands:
            for origin in self.origins(operand, depth + 1):
                inferred, pytype = origin.inferred, origin.inferred.type
                kind = T.array_kind(pytype)
                if kind is T.NUMPY_ARRAY and inferred.ndim == 0 or inferred.numpy_scalar or T.is_numpy_scalar(pytype):
                    numpy_scalar = True
                elif kind is not None:
                    arrays.add(kind)
                elif ufunc and pytype is not None and pytype.json is T.JsonKind.ARRAY:
                    arrays.add(T.NUMPY_ARRAY)  # numpy converts a list or tuple to an array
                elif pytype is not None and pytype.json in _SCALAR_KINDS:
                    pass  # a Python scalar (or a str subclass such as numpy.str_)
                elif pytype is None or pytype.name.startswith("numpy"):
                    unknown = True  # unknown, or a "numpy value" that may be a scalar or an array
                else:
                    other = True  # a list, dict or object: Python compares it, numpy may broadcast against it
        if ufunc and arrays:
            # np.isnan(jax_array) is an ndarray, or a numpy.bool_ for a 0-d one: only numpy arrays are certain
            return T.NUMPY_ARRAY if arrays == {T.NUMPY_ARRAY} else None
        for kind in T.ARRAY_TYPES:  # element-wise comparison: an array of bools
            if kind in arrays:
                return kind
        if unknown or other and (numpy_scalar or ufunc):
            return None
        return T.NUMPY_BOOL if numpy_scalar or ufunc else T.BOOL

    # -- names and attributes --------------------------------------------------------------
    def _constant(self, expr: cst.BaseExpression) -> list[Origin] | None:
        for name in qualified_names(self.parsed, expr):
            if name in T.CONSTANTS:
                pytype, nonfinite = T.CONSTANTS[name]
                return self._one(expr, Inferred(pytype, nonfinite=nonfinite))
            module, _, attr = name.rpartition(".")
            if module in ("numpy", "jax.numpy", "torch", "ml_dtypes") and attr in T.SCALAR_TYPE_NAMES:
                return self._one(expr, Inferred(T.TYPE_OBJECT.named(f"type object {name}")))
            if module == "torch" and (attr.startswith(("float", "int", "uint", "bfloat", "complex")) or attr == "bool"):
                dtype = self.catalog.types["torch.dtype"].verdict  # torch.float32 is a torch.dtype (catalog, by reading)
                return self._one(expr, Inferred(dtype.named(f"torch.dtype ({name})"), model=_TORCH_DTYPE))
        return None

    def _name(self, expr: cst.Name, depth: int) -> list[Origin]:
        constant = self._constant(expr)
        if constant is not None:
            return constant
        bindings = bindings_of_name(self.parsed, expr)
        if bindings and all(is_import(b) for b in bindings):
            return self._foreign(expr, depth) or self._one(expr, UNKNOWN)
        if not bindings:
            return self._one(expr, UNKNOWN)
        return self._from_bindings(expr, reaching(self.parsed, expr, bindings), depth)

    def _from_bindings(self, expr: cst.CSTNode, bindings: list[Binding], depth: int) -> list[Origin]:
        """The origins of a name or attribute bound by ``bindings``; ``expr`` stands for what has no value node."""
        result: list[Origin] = []
        for binding in bindings:
            node = binding.assignment.node if binding.assignment is not None else None
            loop = self._loop_of(node) if isinstance(node, cst.Name) and binding.value is None else None
            if isinstance(node, cst.Param):
                result.extend(self._parameter(expr, binding, node, depth))
            elif loop is not None:
                result.extend(self._loop_element(expr, node, loop, depth))
            elif binding.definition is not None:
                kind = T.FUNCTION if isinstance(binding.definition, cst.FunctionDef) else T.TYPE_OBJECT
                result.append(Origin(expr, Inferred(kind.named(f"{kind.name} {binding.definition.name.value}"))))
            elif binding.augmented is not None:
                result.extend(self._augmented(expr, binding.augmented, depth))
            elif binding.value is None and binding.unpacked is not None:  # `groups, n = helper(...)`
                unpacked, index = binding.unpacked
                elements = unpacked_values(self.parsed, unpacked, index)
                if elements is None:  # `aval, = ctx.avals_in`: an element of what is unpacked
                    result.extend(self._member(expr, unpacked, ELEMENT, "", depth) or [Origin(expr, UNKNOWN)])
                for element in elements or ():
                    result.extend(self.origins(element, depth + 1))
            elif binding.value is not None:
                found = self.origins(binding.value, depth + 1)
                if binding.annotation is not None and any(o.inferred.type is None for o in found):
                    # `x: T = unknown()`: the declared type stands for what the checker cannot see
                    found = [o for o in found if o.inferred.type is not None]
                    found += [Origin(expr, i) for i in self.from_annotation(binding.annotation)]
                result.extend(found)
            elif binding.annotation is not None:
                result.extend(Origin(expr, i) for i in self.from_annotation(binding.annotation))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result

    def _parameter(self, expr: cst.CSTNode, binding: Binding, param: cst.Param, depth: int) -> list[Origin]:
        """What a parameter may hold: its default, and what callers pass (its annotation, else unknown).

        Callers are never all visible (JAX calls a registered lowering rule; anything public may be
        called from elsewhere), so a default is a value like any other, reported where it is written.
        The first parameter of a registered lowering rule is ``mlir.LoweringRuleContext``, annotated or not.
        """
        result = self.origins(param.default, depth + 1) if param.default is not None else []
        if is_rule_context(self.parsed, param):
            result += [Origin(expr, i) for i in self._annotation_names({LOWERING_RULE_CONTEXT}, None)]
        elif binding.annotation is not None:
            result += [Origin(expr, i) for i in self.from_annotation(binding.annotation)]
        else:
            result.append(Origin(expr, UNKNOWN))
        return result

    def _loop_of(self, name: cst.Name) -> cst.For | cst.CompFor | None:
        """The ``for`` loop or comprehension whose target binds ``name`` (also inside a tuple target)."""
        parent = self.parsed.parents.get(name)
        child: cst.CSTNode = name
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            child, parent = parent, self.parsed.parents.get(parent)
        return parent if isinstance(parent, (cst.For, cst.CompFor)) and parent.target is child else None

    def _loop_element(self, expr: cst.CSTNode, name: cst.Name, loop: cst.For | cst.CompFor, depth: int) -> list[Origin]:
        """What the loop variable ``name`` takes: one element of what the loop or comprehension iterates.

        The catalog's element type (``for d in jax.devices()``: a Device; ``range(...)``: ints); each
        element of a list or tuple display the loop runs over (also through a name or a default; a
        target ``a, b`` takes the matching parts of tuple-display elements); one element of a 1-d
        numpy array whose element type the code shows (``np.arange(4)``: a numpy number); else unknown.
        """
        if loop.target is name:
            modelled = self._member(expr, loop.iter, ELEMENT, "", depth)
            if modelled is not None:
                return modelled
        result: list[Origin] = []
        for origin in self.origins(loop.iter, depth + 1):
            inferred = origin.inferred
            if isinstance(origin.node, cst.Call) and qualified_names(self.parsed, origin.node.func) & {"builtins.range"}:
                result.append(Origin(expr, Inferred(T.INT)))
            elif origin.home is None and inferred.type is not None and inferred.type.json is T.JsonKind.ARRAY \
                    and inferred.elements and not isinstance(origin.node, cst.Call):
                for element in inferred.elements:
                    value = element if loop.target is name else unpacked_value(loop.target, name, element)
                    result.extend(self.origins(value, depth + 1) if value is not None else [Origin(expr, UNKNOWN)])
            elif loop.target is name and T.array_kind(inferred.type) is T.NUMPY_ARRAY and inferred.ndim == 1 \
                    and inferred.item is not None:
                result.append(Origin(expr, Inferred(inferred.item, numpy_scalar=True)))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result or [Origin(expr, UNKNOWN)]

    def _parsed_argument(self, expr: cst.Attribute, depth: int) -> list[Origin] | None:
        """``args.<dest>`` of ``args = parser.parse_args(...)``: what the matching ``add_argument`` makes.

        A ``type=`` callable's result (an Enum class of the module gives its member; ``int``, a
        float; ``pathlib.Path``, a path), a ``str`` without one; a ``bool`` for ``store_true``; a
        list of those for ``nargs``/``append``; plus the default when it is not a string (used as is).
        """
        receivers = self.origins(expr.value, depth + 1)
        if not receivers or any(o.inferred.model != _NAMESPACE or o.home is not None for o in receivers):
            return None
        result: list[Origin] = []
        for receiver in receivers:
            parser = arguments.parser_of(receiver.node)
            found = arguments.argument(self.parsed, parser, expr.attr.value) if parser is not None else None
            if found is None:
                return None
            if found.action in arguments.BOOL_ACTIONS:
                values = [Origin(expr, Inferred(T.BOOL))]
            elif found.action == "count":
                values = [Origin(expr, Inferred(T.INT))]
            elif found.type is None:
                values = [Origin(expr, Inferred(T.STR))]
            else:  # what calling type(...) on a string gives
                call = cst.Call(func=found.type, args=[cst.Arg(cst.SimpleString('""'))])
                self._synthetic.append(call)
                values = [replace(o, node=expr) if o.node is call else o for o in self._call(call, depth + 1)]
            if found.listed:
                values = [Origin(expr, Inferred(T.LIST.named(f"list of {v.inferred.type.name}")
                                                if v.inferred.type is not None and v.inferred.type.serializes
                                                else v.inferred.type, model=v.inferred.model))
                          for v in values]
            result.extend(values)
            if found.default is not None and string_value(found.default) is None:
                result.extend(self.origins(found.default, depth + 1))
        return result

    # -- other modules of the project ------------------------------------------------------
    def _peer(self, home: ParsedModule) -> ValueClassifier:
        """The classifier of ``home`` (this one when ``home`` is this module)."""
        return self if home is self.parsed or self.workspace is None else self.workspace.classifier(home)

    def _arrived(self, origin: Origin, home: ParsedModule, via: cst.CSTNode) -> Origin:
        """``origin``, found by ``home``'s classifier, as seen from this module: it arrived through ``via``."""
        if origin.home is not None and origin.source is not None:
            home, source = origin.home, origin.source
        else:  # written in `home` (an enum member of a third module's class is judged there too)
            source = origin.node
        if home is self.parsed:  # a module that imports from the checked one
            return Origin(source if source is not None else via, origin.inferred)
        return Origin(via, origin.inferred, home, source)

    def _foreign(self, expr: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """The origins of a value bound in another project module (``TIMEOUT``, ``defaults.TIMEOUT``)."""
        found = self.workspace.foreign(self.parsed, expr) if self.workspace is not None else None
        if not found:
            return None
        result: list[Origin] = []
        for item in found:
            binding = item.binding
            anchor = binding.assignment.node if binding.assignment is not None else binding.value
            origins = self._peer(item.home)._from_bindings(anchor, [binding], depth + 1)
            result.extend(self._arrived(origin, item.home, expr) for origin in origins)
        return result

    def _foreign_definition(self, expr: cst.BaseExpression) -> tuple[ParsedModule, cst.FunctionDef | cst.ClassDef] | None:
        """The ``def``/``class`` of another project module that ``expr`` names, if unique."""
        found = self.workspace.foreign(self.parsed, expr) if self.workspace is not None else None
        if found and len(found) == 1 and found[0].binding.definition is not None:
            return found[0].home, found[0].binding.definition
        return None

    def _relocated(self, findings: list[Finding], home: ParsedModule, via: cst.CSTNode) -> list[Finding]:
        """Findings of ``home``'s classifier, reported at ``via`` in this module with where the value is written."""
        if home is self.parsed:
            return findings
        result = []
        for finding in findings:
            if finding.node not in home.positions:
                result.append(finding)  # already a node of this module
                continue
            written_at = finding.written_at
            message = finding.message
            if written_at is None:
                written_at = self.workspace.location(home, finding.node)
                message = f"{message} (written at {written_at})"
            result.append(Finding(via, finding.code, message, None, written_at))
        return result

    def _augmented(self, expr: cst.Name, statement: cst.AugAssign, depth: int) -> list[Origin]:
        value = self.origins(statement.value, depth + 1)
        if isinstance(statement.operator, cst.BitOrAssign) and all(o.inferred.type is T.DICT for o in value):
            return [Origin(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))]
        if any(o.inferred.type is None for o in value):
            return [Origin(expr, UNKNOWN)]
        return [replace(o, node=statement.value) for o in value if not o.inferred.type.serializes] or [
            Origin(expr, UNKNOWN)
        ]

    def _attribute(self, expr: cst.Attribute, depth: int) -> list[Origin]:
        constant = self._constant(expr)
        if constant is not None:
            return constant
        member = self._enum_member(expr)
        if member is not None:
            return [member]
        bindings = attribute_bindings(self.parsed, expr)
        if bindings is not None:  # self.x / Cls.x: every assignment in the class
            return self._from_bindings(expr, bindings, depth)
        found = self._object_attribute(expr, depth)
        if found is not None:  # an attribute of an instance of a project class, or of a SimpleNamespace
            return found
        attr = expr.attr.value
        if attr in ("value", "name"):
            base = self.origins(expr.value, depth + 1)
            if base and all(o.inferred.member_value is not None or o.inferred.type is not None and o.inferred.type.name.startswith(("enum", "Enum")) for o in base):
                if attr == "name":
                    return self._one(expr, Inferred(T.STR))
                result: list[Origin] = []
                for origin in base:
                    if origin.inferred.member_value is not None and origin.home is not None:
                        peer = self._peer(origin.home)
                        result.extend(self._arrived(o, origin.home, expr)
                                      for o in peer.origins(origin.inferred.member_value, depth + 1))
                    elif origin.inferred.member_value is not None:
                        result.extend(self.origins(origin.inferred.member_value, depth + 1))
                    elif origin.inferred.cls is not None and origin.home is None:  # some member: any member's value
                        members = [v for name, v in _class_assignments(origin.inferred.cls)
                                   if v is not None and not (name.startswith("_") and name.endswith("_"))]
                        result.extend(o for v in members for o in self.origins(v, depth + 1))
                        if not members:
                            result.append(Origin(expr, UNKNOWN))
                    else:
                        result.append(Origin(expr, UNKNOWN))
                return result
        modelled = self._member(expr, expr.value, ATTRIBUTE, attr, depth)
        if modelled is not None:  # ctx.avals_in, aval.dtype, mesh.device_ids, p.parent
            return modelled
        parsed_argument = self._parsed_argument(expr, depth)
        if parsed_argument is not None:  # args.mode of parser.add_argument("--mode", type=Mode)
            return parsed_argument
        # what an attribute of a receiver the catalog does not know is, by its name alone
        if attr in ("ndim", "size", "itemsize", "nbytes"):
            return self._one(expr, Inferred(T.INT))
        if attr == "shape":
            return self._one(expr, Inferred(T.TUPLE))
        return self._foreign(expr, depth) or self._one(expr, UNKNOWN)

    def _instances(self, expr: cst.BaseExpression, depth: int) -> list[Origin] | None:
        """The origins of ``expr`` when one of them is an instance of a project class or a
        ``SimpleNamespace(...)`` call, else ``None`` (not an object this module can look into)."""
        base = self.origins(expr, depth + 1)
        if any(o.inferred.cls is not None and not o.inferred.type.name.startswith("enum") for o in base
               if o.inferred.type is not None) or any(
                isinstance(o.node, cst.Call) and o.home is None
                and qualified_names(self.parsed, o.node.func) & objects.SIMPLE_NAMESPACE for o in base):
            return base
        return None

    def _object_attribute(self, expr: cst.Attribute, depth: int) -> list[Origin] | None:
        """``obj.name`` for an instance of a project class (see :mod:`asynccfg_lint.objects`), else ``None``."""
        base = self._instances(expr.value, depth)
        if base is None:
            return None
        name = expr.attr.value
        result: list[Origin] = []
        for origin in base:
            cls = origin.inferred.cls
            if cls is None or origin.inferred.type is None or origin.inferred.type.name.startswith("enum"):
                namespace = objects.namespace_argument(self.parsed, origin.node, name) \
                    if isinstance(origin.node, cst.Call) and origin.home is None else None
                result.extend(self.origins(namespace, depth + 1) if namespace is not None else [Origin(expr, UNKNOWN)])
                continue
            home = origin.home or self.parsed
            if origin.home is not None and origin.source is not None:  # built in the class's module
                call, callers = (origin.source if isinstance(origin.source, cst.Call) else None), home
            else:
                call, callers = (origin.node if isinstance(origin.node, cst.Call) else None), self.parsed
            found = objects.member(home, cls, name, call)
            if not found.found:
                result.append(Origin(expr, UNKNOWN))
                continue
            arguments = [o for a in found.arguments for o in self._peer(callers).origins(a, depth + 1)]
            result.extend(arguments if callers is self.parsed else [self._arrived(o, callers, expr) for o in arguments])
            peer, anchor = self._peer(home), expr if home is self.parsed else cls.name
            own = [o for v in found.values for o in peer.origins(v, depth + 1)]
            own += [Origin(anchor if home is self.parsed else a, i) for a in found.annotations
                    for i in peer.from_annotation(a)]
            own += [o for g in found.getters for o in peer._function_result(anchor, g, depth + 1)]
            if found.bindings:
                own += peer._from_bindings(anchor, list(found.bindings), depth + 1)
            result.extend(own if home is self.parsed else [self._arrived(o, home, expr) for o in own])
        return result

    def _object_method(self, expr: cst.Call, depth: int) -> list[Origin] | None:
        """``obj.method(...)`` for an instance of a project class: what the method returns, else ``None``."""
        assert isinstance(expr.func, cst.Attribute)
        base = self._instances(expr.func.value, depth)
        if base is None:
            return None
        result: list[Origin] = []
        for origin in base:
            cls = origin.inferred.cls
            method = objects.class_function(cls, expr.func.attr.value) if cls is not None else None
            if method is None:
                result.append(Origin(expr, UNKNOWN))
                continue
            home = origin.home or self.parsed
            found = self._peer(home)._function_result(expr if home is self.parsed else method, method, depth + 1)
            result.extend(found if home is self.parsed else [self._arrived(o, home, expr) for o in found])
        return result

    def _enum_member(self, expr: cst.Attribute | cst.Subscript) -> Origin | None:
        """``Mode.FAST`` or ``Mode["FAST"]`` for an enum class of this module or of another project module."""
        home, cls = self.parsed, local_definition(self.parsed, expr.value)
        if cls is None:
            home, cls = self._foreign_definition(expr.value) or (home, None)
        if not isinstance(cls, cst.ClassDef):
            return None
        peer = self._peer(home)
        instance = peer.instance_type(cls)
        if instance is None or not instance.name.startswith("enum"):
            return None
        if isinstance(expr, cst.Attribute):
            name: str | None = expr.attr.value
        else:  # Mode[name]: the member of that name (which one, when the name is not a literal, is unknown)
            index = expr.slice[0].slice if len(expr.slice) == 1 else None
            name = string_value(index.value) if isinstance(index, cst.Index) else None
        member_value = peer._member_value(cls, name) if name is not None else None
        return Origin(expr, Inferred(instance, member_value=member_value), home if home is not self.parsed else None)

    def _member_value(self, cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
        """The expression the enum member ``cls.<name>`` gets its ``.value`` from.

        A member whose value equals an earlier member's is an alias of that member, as
        ``enum`` makes it: in ``ON = True; NUMPY = np.bool_(True)``, ``NUMPY.value`` is ``True``.
        Equality is decided only for literal values (and numpy scalars built from them).
        """
        value = _class_attribute_value(cls, name)
        constant = self._literal(value)
        if constant is _NOT_LITERAL:
            return value
        for earlier_name, earlier in _class_assignments(cls):
            if earlier_name == name:
                break
            is_member = not (earlier_name.startswith("_") and earlier_name.endswith("_"))  # not _sunder_/__dunder__
            if is_member and self._literal(earlier) == constant:
                return earlier
        return value

    def _literal(self, expr: cst.BaseExpression | None) -> object:
        """The value of a literal (``1``, ``"a"``, ``(1, True)``) or of a numpy scalar of one (``np.bool_(True)``).

        Returns :data:`_NOT_LITERAL` for anything else.
        """
        if expr is None:
            return _NOT_LITERAL
        if isinstance(expr, cst.Call) and len(expr.args) == 1 and expr.args[0].keyword is None:
            for name in qualified_names(self.parsed, expr.func):
                convert = _numpy_scalar_python_type(name)
                inner = self._literal(expr.args[0].value) if convert is not None else _NOT_LITERAL
                if inner is not _NOT_LITERAL:
                    try:
                        return convert(inner)
                    except (TypeError, ValueError, OverflowError):
                        return _NOT_LITERAL
            return _NOT_LITERAL
        try:
            return ast.literal_eval(self.parsed.module.code_for_node(expr).strip())
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return _NOT_LITERAL

    # -- calls -----------------------------------------------------------------------------
    def _call(self, expr: cst.Call, depth: int) -> list[Origin]:  # noqa: C901 - a dispatch table
        if self.sanitizers and qualified_names(self.parsed, expr.func) & self.sanitizers:
            return self._one(expr, Inferred(T.JSON_ANY))  # a declared sanitizer: its result is JSON-safe
        if (isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call)
                and expr.func.attr.value in T.METHOD_RESULTS):
            # libcst names `jnp.int32(a).tolist` "jax.numpy.int32.tolist": a method of a call's result
            # with a known result type is that type, whatever the qualified name says
            return self._method(expr, depth)
        if isinstance(expr.func, cst.Attribute) and isinstance(expr.func.value, cst.Call):
            # libcst names `np.array(a).any` "numpy.array.any": a catalog method of the call's result comes first
            modelled = self._member(expr, expr.func.value, METHOD, expr.func.attr.value, depth, bool(expr.args))
            if modelled is not None:
                return modelled
        names = qualified_names(self.parsed, expr.func)
        positional = [a.value for a in expr.args if a.keyword is None and not a.star]
        keywords = {a.keyword.value: a.value for a in expr.args if a.keyword is not None}
        if names & ASYNC_RUNNERS and positional:
            return self._awaited(positional[0], depth)
        for name in names:
            if name in _FLOAT_CONSTRUCTORS and positional:
                text = string_value(positional[0])
                value = _parse_float(text, _FLOAT_CONSTRUCTORS[name]) if text is not None else None
                if value is not None:  # float("nan"), float("1e309"), np.float32("1e39")
                    return self._one(expr, _float_inferred(T.CALL_RESULTS[name], value))
                if name != "builtins.float":
                    inner = self.origins(positional[0], depth + 1)
                    nonfinite = any(o.inferred.nonfinite for o in inner)
                    return self._one(expr, Inferred(T.CALL_RESULTS[name], nonfinite=nonfinite))
            if name == "numpy.timedelta64":
                return self._one(expr, self._timedelta64(positional))
            if name in ("builtins.dict", "collections.OrderedDict", "dataclasses.asdict", "copy.copy", "copy.deepcopy"):
                traced = self.tracer.trace(expr, depth + 1)
                if traced is not None or name == "builtins.dict":
                    return self._one(expr, Inferred(T.DICT, traced=traced))
            if name in ("builtins.abs", "builtins.min", "builtins.max", "builtins.sum") and len(positional) >= 1:
                inner = [o for p in positional for o in self.origins(p, depth + 1)]
                if name in ("builtins.min", "builtins.max", "builtins.sum") and len(positional) == 1:
                    return self._one(expr, UNKNOWN)
                return [Origin(expr, o.inferred) for o in inner]
            if name == "builtins.round":
                return self._one(expr, Inferred(T.INT if len(positional) + len(keywords) == 1 else T.FLOAT))
            first = frozenset(qualified_names(self.parsed, positional[0])) if positional else frozenset()
            modelled = self._typed(expr, lookup.typed(self.catalog, self.catalog.call(name, first)))
            if modelled is not None:
                return modelled
            if name in T.CALL_RESULTS:
                return self._one(expr, Inferred(T.CALL_RESULTS[name]))
            for suffix, pytype in T.MLIR_BUILDER_SUFFIXES.items():
                if name.endswith(suffix):
                    return self._one(expr, Inferred(pytype))
            module, _, func = name.rpartition(".")
            if module == "numpy" and func in T.NUMPY_ARRAY_BUILDERS:
                return self._one(expr, self._numpy_array(func, positional, keywords, depth))
            if module == "numpy" and func in T.NUMPY_BOOL_UFUNCS:
                if positional and not keywords.keys() - {"dtype", "rtol", "atol", "equal_nan"}:  # no out=, where=
                    return self._one(expr, Inferred(self._elementwise_bool(positional, depth, ufunc=True)))
                return self._one(expr, UNKNOWN)
            if module == "numpy" and func in T.NUMPY_NUMBER_REDUCTIONS | T.NUMPY_ELEMENT_REDUCTIONS:
                return self._one(expr, self._reduction(func, positional, keywords, depth))
            if module == "numpy.ma" or module == "numpy" and func in ("matrix",):
                return self._one(expr, Inferred(T.NUMPY_ARRAY))
            if name.startswith("numpy."):
                return self._one(expr, Inferred(T.NUMPY_VALUE))
            if module == "jax.numpy" and func in T.JAX_NUMPY_NON_ARRAY:
                return self._one(expr, UNKNOWN)
            if name.startswith(("jax.numpy.", "jax.random.", "jax.lax.", "jax.nn.")) or name in ("jax.device_put", "jax.numpy"):
                return self._one(expr, Inferred(self._jax_array(name, positional, keywords, depth)))
            if module == "torch" and func in T.TORCH_TENSOR_BUILDERS:
                fix = self._scalar_fix(func, positional, keywords, depth)
                return self._one(expr, Inferred(replace(T.TORCH_TENSOR, fix=fix)))
        home, definition = self.parsed, local_definition(self.parsed, expr.func)
        if definition is None:
            home, definition = self._foreign_definition(expr.func) or (home, None)
        peer = self._peer(home)
        if isinstance(definition, cst.ClassDef) and peer is self and is_typed_dict(self.parsed, definition):
            return self._one(expr, Inferred(T.DICT, traced=self.tracer.trace(expr, depth + 1)))
        if isinstance(definition, cst.ClassDef):
            instance = peer.instance_type(definition)
            if instance is None:
                return self._one(expr, UNKNOWN)
            if instance.name.startswith("enum"):  # Mode("ring"): one of its members
                return [Origin(expr, Inferred(instance, cls=definition), home if peer is not self else None)]
            if instance.json is T.JsonKind.ARRAY:  # NamedTuple / tuple subclass: arguments are elements
                # (the arguments are this module's nodes: another module's class is not looked into)
                return self._one(expr, Inferred(instance, elements=tuple(positional) + tuple(keywords.values()),
                                                cls=definition if peer is self else None))
            return [Origin(expr, Inferred(instance, cls=definition), home if peer is not self else None)]
        if isinstance(definition, cst.FunctionDef) and definition.asynchronous is not None:
            return self._one(expr, Inferred(T.COROUTINE))
        if isinstance(definition, cst.FunctionDef) and peer is self:
            return self._function_result(expr, definition, depth)
        if isinstance(definition, cst.FunctionDef):
            return [self._arrived(o, home, expr) for o in peer._function_result(definition, definition, depth)]
        if isinstance(expr.func, cst.Attribute):
            return self._object_method(expr, depth) or self._method(expr, depth)
        return self._one(expr, UNKNOWN)

    def _awaited(self, expr: cst.BaseExpression, depth: int) -> list[Origin]:
        """What ``await expr`` or ``asyncio.run(expr)`` gives: for a call of an ``async def`` of the project, its result."""
        if isinstance(expr, cst.Call):
            home, definition = self.parsed, local_definition(self.parsed, expr.func)
            if definition is None:
                home, definition = self._foreign_definition(expr.func) or (home, None)
            if isinstance(definition, cst.FunctionDef) and definition.asynchronous is not None:
                if home is self.parsed:
                    return self._function_result(expr, definition, depth)
                return [self._arrived(o, home, expr) for o in self._peer(home)._function_result(definition, definition, depth)]
        return self._one(expr, UNKNOWN)

    def _function_result(self, anchor: cst.CSTNode, function: cst.FunctionDef, depth: int) -> list[Origin]:
        """What a call of ``function`` returns; ``anchor`` stands for a result known only by its annotation."""
        values = [r.value for r in returns_of(function) if r.value is not None]
        if values:
            result: list[Origin] = []
            for value in values:
                result.extend(self.origins(value, depth + 1))
            return result
        if function.returns is not None:
            return [Origin(anchor, i) for i in self.from_annotation(function.returns.annotation)]
        return self._one(anchor, UNKNOWN)

    def _method(self, expr: cst.Call, depth: int) -> list[Origin]:
        assert isinstance(expr.func, cst.Attribute)
        method = expr.func.attr.value
        modelled = self._member(expr, expr.func.value, METHOD, method, depth, with_arguments=bool(expr.args))
        if modelled is not None:  # p.joinpath("x"), mesh.shape.keys(), a.sum()
            return modelled
        if method in ("astype", "copy", "reshape", "flatten", "ravel", "squeeze", "transpose", "view"):
            receiver = self.origins(expr.func.value, depth + 1)
            result = []
            for origin in receiver:
                t = origin.inferred.type
                if T.array_kind(t) is not None:
                    result.append(Origin(expr, Inferred(T.array_kind(t))))
                elif method == "copy" and t is T.DICT:
                    result.append(replace(origin, node=expr))
                else:
                    result.append(Origin(expr, UNKNOWN))
            return result
        if method in T.METHOD_RESULTS:
            if method in ("keys", "values", "items") and expr.args:  # not a dict view method
                return self._one(expr, UNKNOWN)
            return self._one(expr, Inferred(T.METHOD_RESULTS[method]))
        return self._one(expr, UNKNOWN)

    @staticmethod
    def _timedelta64(positional: list[cst.BaseExpression]) -> Inferred:
        # np.timedelta64 is an np.integer: _json_default calls int(v), which works for units
        # finer than microseconds and raises TypeError otherwise (truth table section 1).
        unit = string_value(positional[1]) if len(positional) > 1 else None
        if unit is None:
            return UNKNOWN
        if unit in ("ns", "ps", "fs", "as"):
            return Inferred(T.NUMPY_INT.named("numpy.timedelta64"))
        return Inferred(T.rejected(f"numpy.timedelta64 in unit {unit!r}", "use int(v / np.timedelta64(1, 's'))", error="TypeError"))

    def _numpy_array(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                     depth: int) -> Inferred:
        """The ndarray ``np.<func>(...)`` builds, with its elements, and its ``ndim`` and element type when known."""
        dtype = keywords.get("dtype")
        item: T.PyType | None = None
        if dtype is not None:
            if self._structured_dtype(dtype):
                return Inferred(T.STRUCTURED_ARRAY)
            dtype_names = qualified_names(self.parsed, dtype) | ({string_value(dtype)} if string_value(dtype) else set())
            for name in dtype_names:
                if "complex" in name:
                    return Inferred(_rejected_array("numpy.ndarray of complex"))
                if name in ("builtins.bytes", "numpy.bytes_", "S") or name.startswith("datetime64") or name == "numpy.datetime64":
                    return Inferred(_rejected_array(f"numpy.ndarray of {name.rsplit('.', 1)[-1]}"))
                if name in _BOOL_DTYPES:
                    item = T.NUMPY_BOOL
        elements = tuple(_flatten(positional[:2]))
        ndim: int | None = None
        if func in ("array", "asarray", "asanyarray") and positional and "ndmin" not in keywords:
            ndim = self._literal_ndim(positional[0], depth)
            if dtype is None and ndim is not None:
                item = self._item_type(elements, depth)
        elif func in ("arange", "linspace", "logspace", "geomspace"):
            ndim, item = 1, item or (T.NUMPY_NUMBER if dtype is None else None)
        elif func in ("zeros", "ones", "empty") and positional:
            ndim = _shape_ndim(positional[0])
            item = item or (T.NUMPY_NUMBER if dtype is None else None)  # float64 by default
        return Inferred(T.NUMPY_ARRAY, elements=elements, ndim=ndim, item=item)

    def _literal_ndim(self, data: cst.BaseExpression, depth: int) -> int | None:
        """The ``ndim`` of ``np.array(data)``: the nesting of a regular list/tuple literal, 0 for a scalar."""
        if isinstance(data, (cst.List, cst.Tuple)):
            parts = [e.value for e in data.elements]
            if any(isinstance(e, cst.StarredElement) for e in data.elements):
                return None
            inner = {self._literal_ndim(p, depth) for p in parts} if parts else {0}
            return 1 + inner.pop() if len(inner) == 1 and None not in inner else None
        origins = self.origins(data, depth + 1)
        scalar = bool(origins) and all(o.inferred.type is not None and T.array_kind(o.inferred.type) is None
                                       and o.inferred.type.json in _SCALAR_KINDS for o in origins)
        return 0 if scalar else None

    def _item_type(self, elements: tuple[cst.BaseExpression, ...], depth: int) -> T.PyType | None:
        """The numpy scalar type of an element of an array of ``elements``: all bools give ``numpy.bool_``,
        numbers (with or without bools) a numpy number; anything else is not known."""
        types = [o.inferred.type for e in elements for o in self.origins(e, depth + 1)]
        if not types or any(t is None for t in types):
            return None
        if all(t.json is T.JsonKind.BOOL or t.name == T.NUMPY_BOOL.name for t in types):
            return T.NUMPY_BOOL
        if all(t.json in (T.JsonKind.NUMBER, T.JsonKind.BOOL) or t.name == T.NUMPY_BOOL.name for t in types):
            return T.NUMPY_NUMBER
        return None

    def _reduction(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                   depth: int) -> Inferred:
        """``np.sum(a)``-like calls over a whole array: a numpy number, or for ``np.max`` one element."""
        if len(positional) != 1 or keywords.keys() & {"axis", "keepdims", "out", "where"}:
            return Inferred(T.NUMPY_VALUE)  # an array along an axis
        if func in T.NUMPY_NUMBER_REDUCTIONS:
            return Inferred(T.NUMPY_NUMBER)
        items = {o.inferred.item for o in self.origins(positional[0], depth + 1)}
        item = items.pop() if len(items) == 1 else None
        return Inferred(item, numpy_scalar=True)

    def _structured_dtype(self, dtype: cst.BaseExpression) -> bool:
        """True for a structured dtype: a list of ``(name, type)`` fields, as such or in ``np.dtype(...)``."""
        if isinstance(dtype, cst.Call) and dtype.args and qualified_names(self.parsed, dtype.func) & {"numpy.dtype"}:
            dtype = dtype.args[0].value
        return isinstance(dtype, cst.List) and bool(dtype.elements) and all(
            isinstance(e.value, cst.Tuple) for e in dtype.elements)

    def _jax_array(self, name: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                   depth: int) -> T.PyType:
        """A jax.Array from the call ``name``; scalar constructors get the matching Python scalar remedy.

        The fix is ``int(x)``/``float(x)``/``bool(x)`` when the result is known to be a scalar of
        that kind (``jnp.int32(3)``, ``jnp.array(2.5)``), else ``x.tolist()``.
        """
        func = name.rpartition(".")[2]
        if func.startswith(("int", "uint")):
            remedy, kind = "use int(...)", "int"
        elif func.startswith(("float", "bfloat")):
            remedy, kind = "use float(...)", "float"
        elif func in ("bool_", "bool"):
            remedy, kind = "use bool(...)", "bool"
        else:
            remedy, kind = T.JAX_ARRAY.remedy, None
        if kind is not None:
            fix = T.SCALAR_FIXES[kind] if self._scalar_argument(positional, keywords, depth) else T.TOLIST_FIX
        else:
            fix = self._scalar_fix(func, positional, keywords, depth)
        array = replace(T.JAX_ARRAY, name=f"jax.Array (from {name})", remedy=remedy, fix=fix)
        return _tolist(array) if fix is T.TOLIST_FIX and kind is not None else array

    def _scalar_argument(self, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                         depth: int) -> T.PyType | None:
        """The scalar type of a one-argument constructor call's argument (Python or numpy number/bool), else ``None``."""
        if len(positional) != 1 or keywords:
            return None
        types = [o.inferred.type for o in self.origins(positional[0], depth + 1)]
        if not types or any(t is None or t.json not in (T.JsonKind.NUMBER, T.JsonKind.BOOL) for t in types):
            return None
        return types[0] if len(set(types)) == 1 else None

    def _scalar_fix(self, func: str, positional: list[cst.BaseExpression], keywords: dict[str, cst.BaseExpression],
                    depth: int) -> T.FixTemplate:
        """The fix for an array built by ``func``: ``int``/``float``/``bool(x)`` for ``array(3)``/``tensor(2.5)``, else ``x.tolist()``."""
        if func in ("array", "asarray", "tensor", "as_tensor"):
            scalar = self._scalar_argument(positional, keywords, depth)
            if scalar is not None and scalar.name in T.SCALAR_FIXES:  # a Python literal's kind fixes the dtype
                return T.SCALAR_FIXES[scalar.name]
        return T.TOLIST_FIX

    def _subscript(self, expr: cst.Subscript, depth: int) -> list[Origin]:
        index = expr.slice[0].slice if len(expr.slice) == 1 else None
        if isinstance(index, cst.Index):  # mesh.shape["i"], ctx.avals_in[0]
            modelled = self._member(expr, expr.value, OPERATOR, "[]", depth) or self._member(
                expr, expr.value, ELEMENT, "", depth)
            if modelled is not None:
                return modelled
        member = self._enum_member(expr)  # Mode["RING"]
        if member is not None:
            return [member]
        if isinstance(index, cst.Slice):  # jax.devices()[:2]
            modelled = self._member(expr, expr.value, OPERATOR, "[:]", depth)
            if modelled is not None:
                return modelled
        base = self.origins(expr.value, depth + 1)
        result = []
        for origin in base:
            kind = T.array_kind(origin.inferred.type)
            if origin.inferred.type is T.STRUCTURED_ARRAY:
                result.append(Origin(expr, _structured_item(expr)))
            elif kind is T.NUMPY_ARRAY:
                result.append(Origin(expr, _array_item(origin.inferred, expr)))
            elif kind is not None:  # indexing a jax.Array or torch.Tensor gives another one
                result.append(Origin(expr, Inferred(kind)))
            else:
                result.append(Origin(expr, UNKNOWN))
        return result

    # -- classes and annotations -----------------------------------------------------------
    def instance_type(self, cls: cst.ClassDef, depth: int = 0) -> T.PyType | None:
        """Return how an instance of the class ``cls`` (defined in this module) serializes.

        ``None`` when a base class is unknown (defined elsewhere and not in the type tables).
        """
        name = cls.name.value
        if is_dataclass(self.parsed, cls):
            return T.DATACLASS.named(f"dataclass instance {name}")
        attrs = _instance_attributes(cls)
        enum_kind: bool | None = None
        flag = False
        json_base: T.PyType | None = None
        for base in cls.bases:
            if base.keyword is not None:
                continue
            base_names = qualified_names(self.parsed, base.value)
            for base_name in base_names:
                if base_name in T.ENUM_BASES:
                    enum_kind = T.ENUM_BASES[base_name] or bool(enum_kind)
                    flag = flag or base_name == "enum.Flag"
                elif base_name in T.JSON_BASES:
                    json_base = T.JSON_BASES[base_name]
                elif base_name in ("builtins.object", "typing.Generic", "abc.ABC", "typing.Protocol"):
                    pass
                else:
                    local = local_definition(self.parsed, base.value)
                    if isinstance(local, cst.ClassDef) and depth < MAX_DEPTH:
                        inherited = self.instance_type(local, depth + 1)
                        if inherited is None:
                            return None
                        if inherited.name.startswith("enum"):
                            enum_kind = inherited.serializes or bool(enum_kind)
                            flag = flag or inherited.name.startswith(T.FLAG_MEMBER.name)
                        elif inherited.serializes:
                            json_base = inherited
                        attrs |= inherited.attrs
                    else:
                        return None
            if not base_names:
                return None
        if enum_kind is not None:
            if enum_kind or json_base is not None:
                return T.PyType(f"enum member {name} (int/str enum)", (json_base or T.INT).json, key_ok=True,
                                attrs=frozenset({"value"}))
            member = T.FLAG_MEMBER if flag else T.ENUM_MEMBER
            return replace(member, name=f"{member.name} {name}", attrs=frozenset({"value"}))
        if json_base is not None:
            if any("typing.NamedTuple" in qualified_names(self.parsed, b.value) for b in cls.bases):
                # a field is an attribute of every instance: Chan(handle=1).handle
                attrs |= frozenset(field for field, _ in _class_assignments(cls)) & _SPECIAL_ATTRIBUTES
            return T.PyType(f"{name} (a {json_base.name} subclass)", json_base.json, key_ok=json_base.key_ok,
                            attrs=attrs)
        return T.PyType(f"{name} instance", None, remedy=T.OBJECT.remedy, attrs=attrs)

    def from_annotation(self, annotation: cst.BaseExpression, depth: int = 0) -> list[Inferred]:
        """Return the possible values an annotation stands for (``Optional``/unions give several)."""
        if depth > MAX_DEPTH:
            return [UNKNOWN]
        if isinstance(annotation, (cst.SimpleString, cst.ConcatenatedString)):
            text = string_value(annotation)
            if text is None:
                return [UNKNOWN]
            try:
                parsed_annotation = cst.parse_expression(text)
            except Exception:  # noqa: BLE001 - an unparsable string annotation is unknown
                return [UNKNOWN]
            return self._string_annotation(parsed_annotation, annotation, depth)
        if isinstance(annotation, cst.BinaryOperation) and isinstance(annotation.operator, cst.BitOr):
            return self.from_annotation(annotation.left, depth + 1) + self.from_annotation(annotation.right, depth + 1)
        if isinstance(annotation, cst.Name) and annotation.value == "None":
            return [Inferred(T.NONE)]
        if isinstance(annotation, cst.Subscript):
            names = qualified_names(self.parsed, annotation.value)
            args = [e.slice.value for e in annotation.slice if isinstance(e.slice, cst.Index)]
            if names & {"typing.Optional"} and args:
                return self.from_annotation(args[0], depth + 1) + [Inferred(T.NONE)]
            if names & {"typing.Union"}:
                return [i for a in args for i in self.from_annotation(a, depth + 1)]
            if names & {"typing.Annotated", "typing_extensions.Annotated"} and args:
                return self.from_annotation(args[0], depth + 1)
            if names & {"typing.Literal"}:
                return [o.inferred for a in args for o in self.origins(a, depth + 1)]
            return self.from_annotation(annotation.value, depth + 1)
        names = qualified_names(self.parsed, annotation)
        return self._annotation_names(names, annotation)

    def _annotation_names(self, names: set[str], annotation: cst.BaseExpression | None) -> list[Inferred]:
        for name in names:
            if name in self.catalog.annotations:  # ctx: mlir.LoweringRuleContext, p: pathlib.Path
                model = self.catalog.annotations[name]
                return [Inferred(self.catalog.types[model].verdict, model=Known(frozenset({model})))]
            if name in T.ANNOTATIONS:
                return [Inferred(T.ANNOTATIONS[name])]
            if name in ("builtins.None",):
                return [Inferred(T.NONE)]
        if annotation is not None:
            cls = local_definition(self.parsed, annotation)
            if isinstance(cls, cst.ClassDef):
                instance = self.instance_type(cls)
                return [Inferred(instance, cls=cls) if instance is not None else UNKNOWN]
        return [UNKNOWN]

    def _string_annotation(self, expr: cst.BaseExpression, anchor: cst.BaseExpression, depth: int) -> list[Inferred]:
        """Resolve a string annotation's dotted names through the scope of ``anchor``."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.BitOr):
            return self._string_annotation(expr.left, anchor, depth + 1) + self._string_annotation(expr.right, anchor, depth + 1)
        if isinstance(expr, cst.Subscript):
            head = _dotted(expr.value)
            args = [e.slice.value for e in expr.slice if isinstance(e.slice, cst.Index)]
            names = self._scope_names(head, anchor)
            if names & {"typing.Optional"} and args:
                return self._string_annotation(args[0], anchor, depth + 1) + [Inferred(T.NONE)]
            if names & {"typing.Union"}:
                return [i for a in args for i in self._string_annotation(a, anchor, depth + 1)]
            if names & {"typing.Annotated"} and args:
                return self._string_annotation(args[0], anchor, depth + 1)
            return self._annotation_names(names, None)
        dotted = _dotted(expr)
        if dotted == "None":
            return [Inferred(T.NONE)]
        names = self._scope_names(dotted, anchor)
        if not names:
            return [UNKNOWN]
        inferred = self._annotation_names(names, None)
        if inferred == [UNKNOWN]:
            scope = self.parsed.scopes.get(anchor)
            if scope is not None and dotted and "." not in dotted:
                for assignment in scope[dotted]:
                    node = getattr(assignment, "node", None)
                    if isinstance(node, cst.ClassDef):
                        instance = self.instance_type(node)
                        return [Inferred(instance, cls=node) if instance is not None else UNKNOWN]
        return inferred

    def _scope_names(self, dotted: str | None, anchor: cst.CSTNode) -> set[str]:
        scope = self.parsed.scopes.get(anchor)
        if not dotted or scope is None:
            return set()
        found = {qn.name for qn in scope.get_qualified_names_for(dotted)}
        if not found and "." not in dotted and dotted in __builtins_names__:
            found = {f"builtins.{dotted}"}
        return found

    # ================================================================ checks
    def check_entries(self, traced: TracedDict, path: ConfigPath | None = None, depth: int = 0) -> list[Finding]:
        """Check every key and value of a traced config dict.

        Args:
            traced: the dict's entries.
            path: where the dict sits (``None`` for the top-level config).
        Returns:
            findings for ACC101-ACC105 and, for values of unknown type, ACC201.
        """
        findings: list[Finding] = []
        for entry in traced.entries:
            entry_path = ConfigPath(entry.key) if path is None else path.child(f"key {quote_key(entry.key)}" if entry.key else "a computed key")
            if entry.home is not None:  # written in another module: its classifier checks it, reported at `via`
                peer, local = self._peer(entry.home), replace(entry, home=None, via=None)
                found = peer._check_key(local, entry_path, depth) if entry.key_node is not None else []
                found += peer.check_value(local, top_level=path is None, path=entry_path, depth=depth)
                findings.extend(self._relocated(found, entry.home, entry.via))
                continue
            if entry.key_node is not None:
                findings.extend(_arriving_through(self._check_key(entry, entry_path, depth), entry.key_node))
            findings.extend(self.check_value(entry, top_level=path is None, path=entry_path, depth=depth))
        if path is None:
            for opaque in traced.opaque:
                findings.append(Finding(opaque, "ACC201", "part of the config comes from code the checker cannot follow; "
                                        "its keys and values are not checked"))
        return findings

    def _check_key(self, entry: Entry, path: ConfigPath, depth: int) -> list[Finding]:
        findings = []
        assert entry.key_node is not None
        for origin in self.origins(entry.key_node, depth + 1):
            pytype = origin.inferred.type
            if pytype is None or pytype.key_ok:
                continue
            remedy = _KEY_REMEDIES.get(pytype.name.split(" ")[0], None) or (
                "use int(...)" if pytype.json is T.JsonKind.NUMBER else "use a str key"
            )
            if pytype.name.startswith(T.ENUM_MEMBER.name):
                remedy = "use k.value or k.name"
            elif pytype.name.startswith(T.FLAG_MEMBER.name):
                remedy = "use k.value"
            where = f"key of the dict under key {quote_key(path.key)}" if path.steps else "config key"
            findings.append(Finding(origin.node, "ACC102",
                                    f"{where} is {pytype.name}, which json cannot use as a key: lowering raises "
                                    f"TypeError (keys must be str, int, float, bool or None); {remedy}",
                                    fix=pytype.key_fix))
        return findings

    def check_value(self, entry: Entry, top_level: bool, path: ConfigPath, depth: int = 0,
                    parameter: bool = False) -> list[Finding]:
        """Check one entry's value: special keys, serializability, non-finite floats, XLA's key types.

        ``parameter``: the value is the argument of a public ``*_start`` function, which binds it
        as a jaxpr equation parameter before building the config: it must also be hashable.
        """
        if entry.value is not None:
            origins = self.origins(entry.value, depth + 1)
        else:
            origins = [Origin(entry.annotation, i) for i in self.from_annotation(entry.annotation)] if entry.annotation else []
        if top_level and entry.key in SPECIAL_KEY_ATTRIBUTE:
            return self._check_special(entry, origins, path, depth)
        shape = XLA_KEYS.get(entry.key) if top_level else None
        findings: list[Finding] = []
        for origin in origins:
            pytype = origin.inferred.type
            if parameter and pytype is not None and not pytype.hashable:
                remedy = pytype.remedy if pytype.remedy and not pytype.serializes else "pass a bool, int or float"
                findings.append(Finding(origin.node, "ACC101", f"{path.describe()} is {pytype.name}, which JAX cannot "
                                        "hash: binding the primitive raises TypeError (jaxpr equation parameters must "
                                        f"be hashable) before any config exists; {remedy}",
                                        fix=hashable_fix(self._value_fix(origin, depth))))
                continue
            findings.extend(self._check_origin(origin, path, shape, depth, top_level))
        return _arriving_through(findings, entry.value) if entry.value is not None else findings

    def _check_origin(self, origin: Origin, path: ConfigPath, shape: XlaShape | None, depth: int, top_level: bool) -> list[Finding]:
        if origin.home is not None and origin.source is not None:  # written in another module
            local = Origin(origin.source, origin.inferred)
            found = self._peer(origin.home)._check_origin(local, path, shape, depth, top_level)
            return self._relocated(found, origin.home, origin.node)
        inferred, node = origin.inferred, origin.node
        pytype = inferred.type
        if pytype is None:
            if top_level:
                return [Finding(node, "ACC201", f"{path.describe()} has a type the checker cannot determine; "
                                "annotate it or convert it with int()/float()/bool()/str()")]
            return []
        if not pytype.serializes:
            remedy = f"; {pytype.remedy}" if pytype.remedy else ""
            return [Finding(node, "ACC101", f"{path.describe()} is {pytype.name}, which JAX cannot serialize to JSON: "
                            f"lowering raises {pytype.error}{remedy}", fix=self._value_fix(origin, depth))]
        if inferred.nonfinite:
            return [Finding(node, "ACC103", f"{path.describe()} is a non-finite float (NaN or Infinity): JAX emits "
                            "non-standard JSON and XLA's compile fails (Failed to parse collective op config JSON); "
                            "use a finite number")]
        findings: list[Finding] = []
        if shape is not None:
            findings.extend(self._check_shape(origin, path, shape))
        if depth < MAX_DEPTH and origin.home is None:  # (another module's enum member or instance has no parts)
            # numpy arrays list their elements flattened: only a literal array's nesting is known
            element_shape = shape.element if shape is not None and pytype.json is T.JsonKind.ARRAY else None
            element_path = path.child("an element")
            for element in inferred.elements:
                found = []
                for inner in self.origins(element, depth + 1):
                    found.extend(self._check_origin(inner, element_path, element_shape, depth + 1, False))
                findings.extend(_arriving_through(found, element))
            if inferred.traced is not None:
                findings.extend(self.check_entries(inferred.traced, path, depth + 1))
        return findings

    def _value_fix(self, origin: Origin, depth: int) -> T.FixTemplate | None:
        """The catalog's fix for a rejected value; an Enum member's ``.value`` only when that value is a JSON scalar."""
        inferred = origin.inferred
        if origin.home is not None:  # the member's value is another module's node
            return self._peer(origin.home)._value_fix(Origin(origin.node, inferred), depth)
        fix = inferred.type.fix if inferred.type is not None else None
        if fix is not T.ENUM_VALUE_FIX:
            return fix
        if inferred.member_value is None:  # Schedule(x), a parameter annotated Schedule, Flag.A | Flag.B
            return None
        scalars = (T.JsonKind.NUMBER, T.JsonKind.BOOL, T.JsonKind.NULL, T.JsonKind.STRING)
        for origin in self.origins(inferred.member_value, depth + 1):
            found = origin.inferred
            if found.type is None or found.type.json not in scalars or found.nonfinite or found.beyond_int64:
                return None
        return fix

    @staticmethod
    def _check_shape(origin: Origin, path: ConfigPath, shape: XlaShape) -> list[Finding]:
        inferred = origin.inferred
        assert inferred.type is not None
        kind = inferred.type.json
        key = SPECIAL_KEY_EMITTED_AS.get(path.key, path.key)  # channel_handle is parsed as channel_id
        expected = shape.value
        if shape.scalar:
            wrong = kind in (T.JsonKind.STRING, T.JsonKind.ARRAY, T.JsonKind.OBJECT)
        else:
            wrong = kind not in (T.JsonKind.ARRAY, T.JsonKind.ANY)
        if shape.length is not None and kind is T.JsonKind.ARRAY and isinstance(origin.node, (cst.List, cst.Tuple)):
            elements = origin.node.elements
            if not any(isinstance(e, cst.StarredElement) for e in elements) and len(elements) != shape.length:
                return [Finding(origin.node, "ACC105", f"{path.describe()} has {len(elements)} elements, but XLA parses "
                                f'each element of {quote_key(key)} as {expected}: compiling fails a RET_CHECK; pass {expected}')]
        if wrong:
            return [Finding(origin.node, "ACC105", f"{path.describe()} is {inferred.type.name} (JSON {kind.value}), but XLA "
                            f'parses {quote_key(key)} as {expected}: compiling aborts the process or fails a RET_CHECK; '
                            f"pass {expected}")]
        if inferred.beyond_int64 and shape is XlaShape.SCALAR:
            return [Finding(origin.node, "ACC105", f"{path.describe()} is a number outside the 64-bit integer range, "
                            f'but XLA reads {quote_key(key)} as a 64-bit integer: compiling aborts the process; keep it in the '
                            "int64 range")]
        return []

    def _check_special(self, entry: Entry, origins: list[Origin], path: ConfigPath, depth: int) -> list[Finding]:
        attribute = SPECIAL_KEY_ATTRIBUTE[entry.key]
        emitted = SPECIAL_KEY_EMITTED_AS[entry.key]
        findings: list[Finding] = []
        for origin in origins:
            pytype = origin.inferred.type
            if origin.home is not None:  # another module's value or instance: its classifier reads the attribute
                local = Origin(origin.source or origin.node, origin.inferred)
                found = self._peer(origin.home)._check_special(entry, [local], path, depth)
                findings.extend(self._relocated(found, origin.home, origin.node))
                continue
            if pytype is None:
                findings.extend(self._check_origin(origin, path, None, depth, True))
                continue
            if attribute not in pytype.attrs:
                remedy = ('use hlo.ChannelHandle.get(...) or the plain "channel_id" key' if attribute == "handle"
                          else "use ir.BoolAttr.get(...)")
                findings.append(Finding(origin.node, "ACC104",
                                        f'{path.describe()} is {pytype.name}, which has no .{attribute}: '
                                        f"_emit_async_start_custom_call reads cfg[\"{entry.key}\"].{attribute}, so "
                                        f"lowering raises AttributeError; {remedy}"))
                continue
            # the attribute's value is what gets serialized (and parsed by XLA as `emitted`)
            attr_path = ConfigPath(entry.key, [f"the .{attribute} of the value"])
            for source in _attribute_values(origin.inferred, attribute):
                for inner in self.origins(source, depth + 1):
                    findings.extend(self._check_origin(inner, attr_path, XLA_KEYS.get(emitted), depth + 1, False))
        return findings


_SPECIAL_ATTRIBUTES = frozenset(SPECIAL_KEY_ATTRIBUTE.values())
#: fixes whose result is a list: JSON-safe, but no more hashable than a set (a bind parameter needs both)
_LIST_FIXES = (T.SORTED_FIX, T.LIST_FIX, T.TOLIST_FIX)


def hashable_fix(fix: T.FixTemplate | None) -> T.FixTemplate | None:
    """``fix`` for an unhashable primitive parameter, unless what it makes is a list (still unhashable)."""
    return None if fix in _LIST_FIXES else fix

#: binary operators the catalog's operator rows name
_NAMESPACE = Known(frozenset({"argparse.Namespace"}))
_TORCH_DTYPE = Known(frozenset({"torch.dtype"}))
_OPERATOR_SYMBOLS = {cst.Divide: "/", cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*"}

_KEY_REMEDIES = {
    "tuple": 'use a str key, e.g. "_".join(map(str, k))',
    "frozenset": "use str(sorted(k))",
    "bytes": "use k.decode()",
    "numpy.int64": "use int(k)",
}

__builtins_names__ = frozenset(dir(__import__("builtins")))


#: ints at least this large have more than INT_MAX_STR_DIGITS digits: json.dumps cannot print them.
_UNPRINTABLE_INT = 10**INT_MAX_STR_DIGITS
#: constant folding stops above this many bits; larger results are only known to be unprintable.
_MAX_FOLD_BITS = 16 * INT_MAX_STR_DIGITS  # ~3.3 bits per decimal digit: far past the print limit
_INT_OPERATORS = {
    cst.Add: operator.add,
    cst.Subtract: operator.sub,
    cst.Multiply: operator.mul,
    cst.Power: operator.pow,
    cst.LeftShift: operator.lshift,
}


def _int_constant(expr: cst.BaseExpression) -> int | None:
    """The value of an int constant expression (literals, unary -/+, ``+ - * ** <<``), else ``None``.

    ``2**70`` and ``1 << 70`` matter under XLA's int64 keys. Results too long to compute
    cheaply are clamped to a stand-in with the right sign that is still too long to print.
    """
    if isinstance(expr, cst.Integer):
        text = expr.value.replace("_", "").lower()
        if not text.startswith(("0x", "0o", "0b")) and len(text) > INT_MAX_STR_DIGITS:
            return _UNPRINTABLE_INT  # int() would refuse the text itself
        return int(text, 0)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = _int_constant(expr.expression)
        if inner is None:
            return None
        return -inner if isinstance(expr.operator, cst.Minus) else inner
    if not isinstance(expr, cst.BinaryOperation) or type(expr.operator) not in _INT_OPERATORS:
        return None
    left, right = _int_constant(expr.left), _int_constant(expr.right)
    if left is None or right is None:
        return None
    if isinstance(expr.operator, (cst.Power, cst.LeftShift)):
        if right < 0:
            return None  # a float, or ValueError
        if isinstance(expr.operator, cst.Power):
            trivial, bits = abs(left) <= 1, left.bit_length() * right  # 0**n, 1**n, (-1)**n stay small
        else:
            trivial, bits = left == 0, left.bit_length() + right
        if not trivial and bits > _MAX_FOLD_BITS:
            negative = left < 0 and (isinstance(expr.operator, cst.LeftShift) or right % 2 == 1)
            return -_UNPRINTABLE_INT if negative else _UNPRINTABLE_INT
    result = _INT_OPERATORS[type(expr.operator)](left, right)
    if result.bit_length() > _MAX_FOLD_BITS:
        return _UNPRINTABLE_INT if result > 0 else -_UNPRINTABLE_INT
    return result


def _int_inferred(value: int) -> Inferred:
    """What an int of known ``value`` is: unprintable past 4300 digits (ValueError), else an int."""
    if abs(value) >= _UNPRINTABLE_INT:
        return Inferred(T.rejected(f"int with more than {INT_MAX_STR_DIGITS} digits", "keep ints in the int64 range"))
    return Inferred(T.INT, beyond_int64=not reads_as_int64(value))


def _parse_float(text: str, width: str | None) -> float | None:
    """The value a float constructor makes of the string ``text``; ``None`` when it is not a number.

    ``width`` is the ``struct`` format of a type narrower than a double: a value past its
    largest finite number becomes an infinity, as numpy rounds it.
    """
    try:
        value = float(text)
    except ValueError:
        return None
    if width is not None and math.isfinite(value):
        try:
            return struct.unpack(width, struct.pack(width, value))[0]  # "f" rounds past the range to inf
        except OverflowError:  # "e" raises instead
            return math.copysign(math.inf, value)
    return value


def _float_inferred(pytype: T.PyType, value: float) -> Inferred:
    """What a float of known ``value`` is: non-finite (ACC103), or maybe too large for XLA's integer keys."""
    if math.isinf(value) or math.isnan(value):
        return Inferred(pytype, nonfinite=True)
    return Inferred(pytype, beyond_int64=not reads_as_int64(value))


def _tolist(array: T.PyType) -> T.PyType:
    """``array`` with the ``.tolist()`` fix and the remedy that says so (never "use int(...)" beside a ``.tolist()`` fix)."""
    return replace(array, fix=T.TOLIST_FIX, remedy="use x.tolist()")


def _rejected_array(name: str) -> T.PyType:
    """A numpy array whose elements JAX's serializer rejects (complex, bytes, dates)."""
    return replace(T.NUMPY_ARRAY, name=name, json=None, remedy="convert the elements first")


#: JSON kinds of scalars
_SCALAR_KINDS = (T.JsonKind.NUMBER, T.JsonKind.BOOL, T.JsonKind.NULL, T.JsonKind.STRING)
#: ``dtype=`` values of a bool array
_BOOL_DTYPES = frozenset({"builtins.bool", "numpy.bool_", "numpy.bool", "bool", "?", "bool_"})


def _shape_ndim(shape: cst.BaseExpression) -> int | None:
    """The ``ndim`` of ``np.zeros(shape)``: 1 for an int, the length of a tuple or list literal."""
    if _int_constant(shape) is not None:
        return 1
    if isinstance(shape, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in shape.elements):
        return len(shape.elements)
    return None


def _array_item(array: Inferred, expr: cst.Subscript) -> Inferred:
    """What indexing the numpy array ``array`` by ``expr`` gives.

    A slice gives an array. Integer indices, one per dimension of an array of known ``ndim``
    (``np.arange(4)[0]``; ``np.array(True)[()]`` for a 0-d one), give one element: a numpy scalar,
    of ``array.item``'s type when known (numpy 2.5.5: ``np.array([True, False])[1]`` is a
    ``numpy.bool``, ``np.arange(4)[0]`` a ``numpy.int64``). Anything else (``a[i]`` of an
    ndarray of unknown shape) may be either, so it is unknown: never claimed JSON-safe, since an
    element of a bool array is a ``numpy.bool_``.
    """
    indices = [e.slice for e in expr.slice]
    if len(indices) == 1 and isinstance(indices[0], cst.Index) and isinstance(indices[0].value, cst.Tuple) \
            and not indices[0].value.elements:
        indices = []  # a[()]
    if any(isinstance(i, cst.Slice) for i in indices):
        return Inferred(T.NUMPY_ARRAY)
    if array.ndim is not None and all(isinstance(i, cst.Index) and _int_constant(i.value) is not None for i in indices):
        if len(indices) == array.ndim:
            return Inferred(array.item, numpy_scalar=True)
        if len(indices) < array.ndim:
            return Inferred(T.NUMPY_ARRAY, ndim=array.ndim - len(indices), item=array.item)
    return UNKNOWN


def _structured_item(expr: cst.Subscript) -> Inferred:
    """What indexing a structured array gives: a ``numpy.void`` for an int, a field's array for a name."""
    index = expr.slice[0].slice if len(expr.slice) == 1 else None
    if isinstance(index, cst.Slice):
        return Inferred(T.STRUCTURED_ARRAY)
    if isinstance(index, cst.Index):
        if _int_constant(index.value) is not None:
            return Inferred(T.NUMPY_VOID)
        if string_value(index.value) is not None:
            return Inferred(T.NUMPY_ARRAY)
    return UNKNOWN


def _numpy_scalar_python_type(name: str) -> type | None:
    """The Python type a numpy scalar type compares like (``numpy.bool_`` -> ``bool``), else ``None``."""
    module, _, func = name.rpartition(".")
    if module != "numpy":
        return None
    if func in ("bool_", "bool"):
        return bool
    if func.startswith(("int", "uint")):
        return int
    if func.startswith("float") or func in ("double", "single", "half", "longdouble"):
        return float
    return None


def _dotted(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Name):
        return expr.value
    if isinstance(expr, cst.Attribute):
        head = _dotted(expr.value)
        return f"{head}.{expr.attr.value}" if head else None
    return None


def _flatten(exprs: list[cst.BaseExpression]) -> list[cst.BaseExpression]:
    """Leaf elements of nested list/tuple literals (for ``np.array([[1, 2], [3, nan]])``)."""
    out: list[cst.BaseExpression] = []
    for expr in exprs:
        if isinstance(expr, (cst.List, cst.Tuple)):
            out.extend(_flatten([e.value for e in expr.elements if not isinstance(e, cst.StarredElement)]))
        else:
            out.append(expr)
    return out


def _class_assignments(cls: cst.ClassDef) -> list[tuple[str, cst.BaseExpression | None]]:
    """The names a class body assigns (``x = v``, ``x: T = v``, ``x: T``) with their values, in order."""
    found: list[tuple[str, cst.BaseExpression | None]] = []
    body = cls.body.body if isinstance(cls.body, cst.IndentedBlock) else ()
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    found.extend((t.target.value, small.value) for t in small.targets if isinstance(t.target, cst.Name))
                if isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name):
                    found.append((small.target.value, small.value))
    return found


def _class_attribute_value(cls: cst.ClassDef, name: str) -> cst.BaseExpression | None:
    """The value of the first assignment to ``name`` in the body of ``cls``."""
    return next((value for target, value in _class_assignments(cls) if target == name), None)


def _attribute_sources(cls: cst.ClassDef) -> dict[str, list[cst.BaseExpression]]:
    """Where instances of ``cls`` get ``handle``/``value`` from.

    Sources are class attributes, ``self.x = ...`` in methods and the returns of a method or
    property named ``x``. A name mapped to an empty list exists but its value is not known.
    """
    found: dict[str, list[cst.BaseExpression]] = {}

    def self_attribute(target: cst.BaseExpression) -> str | None:
        if (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                and target.value.value == "self" and target.attr.value in _SPECIAL_ATTRIBUTES):
            return target.attr.value
        return None

    class _Sources(cst.CSTVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            if node.name.value in _SPECIAL_ATTRIBUTES:
                found.setdefault(node.name.value, []).extend(r.value for r in returns_of(node) if r.value is not None)

        def visit_Attribute(self, node: cst.Attribute) -> None:
            name = self_attribute(node)
            if name is not None:
                found.setdefault(name, [])

        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                name = self_attribute(target.target)
                if name is not None:
                    found.setdefault(name, []).append(node.value)

        def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
            name = self_attribute(node.target)
            if name is not None and node.value is not None:
                found.setdefault(name, []).append(node.value)

    cls.body.visit(_Sources())
    for name in _SPECIAL_ATTRIBUTES:
        value = _class_attribute_value(cls, name)
        if value is not None:
            found.setdefault(name, []).append(value)
    return found


def _instance_attributes(cls: cst.ClassDef) -> frozenset[str]:
    """Which of ``handle``/``value`` instances of ``cls`` have (class attributes, properties, ``self.x =``)."""
    return frozenset(_attribute_sources(cls))


def _attribute_values(inferred: Inferred, attribute: str) -> list[cst.BaseExpression]:
    """The expressions ``value.<attribute>`` may come from: an enum member's value, or the class's sources."""
    if attribute == "value" and inferred.member_value is not None:
        return [inferred.member_value]
    if inferred.cls is not None:
        return _attribute_sources(inferred.cls).get(attribute, [])
    return []
