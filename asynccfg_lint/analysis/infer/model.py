"""The abstract type model: types with attributes, methods, operators, elements and call results.

A value's type is a :class:`Known` set of abstract type names (one name, or a union of several)
or :data:`UNKNOWN`. Types and their members are catalog rows (:class:`TypeRow`,
:class:`CallRow`, :class:`MemberRow`); :class:`Catalog` indexes them by qualified name and walks
from a type to the type of one of its members. Nothing here reads source code: the classifier
asks the catalog what ``Path("/") / "x"`` or ``ctx.avals_in[0].dtype`` is, by names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from asynccfg_lint.analysis.type_verdicts import PyType

#: member kinds: ``x.name``, ``x.name(...)``, ``x <op> y`` (``name`` is the operator: ``/``, ``+``, ``[]``),
#: ``for e in x`` / ``x[i]`` for an int ``i`` (``name`` is ``""``), and ``x(...)`` (``name`` is ``""``)
ATTRIBUTE, METHOD, OPERATOR, ELEMENT, CALL = "attribute", "method", "operator", "element", "call"
MEMBER_KINDS = frozenset({ATTRIBUTE, METHOD, OPERATOR, ELEMENT, CALL})


@dataclass(frozen=True)
class TypeRow:
    """An abstract type: how JAX's config serializer treats its instances, and how to check one exists.

    Attributes:
        name: the type's catalog name (a qualified name, or a descriptive one such as
            ``"numpy.ndarray of jax.Device"`` for a type the library does not name).
        verdict: the :class:`~asynccfg_lint.analysis.type_verdicts.PyType` of its instances (message name, JSON kind,
            key acceptance, remedy, fix).
        runtime: the qualified name of the runtime class an instance is (``isinstance``), e.g.
            ``"pathlib.PurePath"``.
        probe: a Python expression that builds an instance (evaluated by the verification test with
            the catalog's imports, and ``ctx`` bound to a real ``LoweringRuleContext``).
        fact: the runtime fact this row models, in words.
        exact: the runtime class must be ``type(value)`` itself (``int``, not ``bool``).
        by_reading: the library cannot be installed here (torch): the row is judged by reading
            its source and documentation, not executed.
        annotation: qualified names whose use as an annotation means an instance of this type
            (``ctx: mlir.LoweringRuleContext``).
    """

    name: str
    verdict: PyType
    runtime: str
    probe: str
    fact: str
    exact: bool = False
    by_reading: bool = False
    annotation: tuple[str, ...] = ()


@dataclass(frozen=True)
class CallRow:
    """Calling (or, with ``value=True``, reading) ``qualname`` gives a value of type ``result``.

    Attributes:
        qualname: the callable's qualified name as libcst resolves it (``"uuid.uuid4"``,
            ``"jax.devices"``); the catalog's key.
        result: the result's type name, or several separated by ``|`` (a union).
        fact: the runtime fact, in words.
        probe: a call expression the verification test evaluates; its value must be an instance of
            ``result`` (of one of its members for a union). The probe is one witness: the row must
            hold whatever the arguments, so a call whose result holds whatever it was given
            (``vars(ns)``, ``attrs.asdict(x)``, ``OmegaConf.to_container(cfg)``) has no row.
        value: the row is a module attribute read, not a call (``"numpy.True_"``).
        by_reading: judged by reading (torch), not executed.
        argument: the row applies only when the first argument is this qualified name
            (``ml_dtypes.finfo(ml_dtypes.bfloat16)``: its ``.max`` is a bfloat16, while
            ``finfo(np.float32).max`` is a numpy float), or a value of this catalog type
            (``np.array(jax.devices())``: an object ndarray of Devices); a row without one applies
            to any call.
    """

    qualname: str
    result: str
    fact: str
    probe: str
    value: bool = False
    by_reading: bool = False
    argument: str | None = None


@dataclass(frozen=True)
class MemberRow:
    """A member of the type ``owner`` gives a value of type ``result``.

    Attributes:
        owner: the owning type's name (a :class:`TypeRow`).
        kind: one of :data:`MEMBER_KINDS`.
        name: the attribute or method name, the operator (``"/"``), or ``""`` for elements and calls.
        result: the result's type name (``|`` separates a union).
        fact: the runtime fact, in words.
        probe: the expression to verify, with ``{}`` standing for an instance of ``owner`` (its
            ``TypeRow.probe``); by default ``{}.name``, ``{}.name()``, ``next(iter({}))``.
        by_reading: judged by reading (torch), not executed.
        with_arguments: a method row applies to calls with arguments too (``p.joinpath("x")``);
            by default only to calls without (``a.sum()``, not ``a.sum(axis=0)``, an array).
    """

    owner: str
    kind: str
    name: str
    result: str
    fact: str
    probe: str | None = None
    by_reading: bool = False
    with_arguments: bool = False

    def probe_for(self, owner_probe: str) -> str:
        """The expression the verification test evaluates: ``probe`` with the owner's probe in place of ``{}``."""
        template = self.probe or {ATTRIBUTE: "{}." + self.name, METHOD: "{}." + self.name + "()",
                                  ELEMENT: "next(iter({}))", CALL: "{}()"}.get(self.kind, "{}")
        return template.replace("{}", f"({owner_probe})")


Row = TypeRow | CallRow | MemberRow


@dataclass(frozen=True)
class Known:
    """The lattice's known element: the value is an instance of one of ``names`` (one name, or a union)."""

    names: frozenset[str]


#: the lattice's top: nothing is known of the value
UNKNOWN: Known | None = None


def join(a: Known | None, b: Known | None) -> Known | None:
    """The least upper bound: a union of two known types; unknown absorbs everything."""
    if a is None or b is None:
        return None
    return Known(a.names | b.names)


class CatalogError(ValueError):
    """A catalog table refers to a type it does not define, or defines a key twice."""


@dataclass
class Catalog:
    """The catalog's rows, indexed for inference.

    Args:
        rows: every row of every table (and the user's, from ``[tool.asynccfg-lint.types]``).
    Raises:
        CatalogError: a result or owner names no :class:`TypeRow`, or a key is defined twice.
    """

    rows: tuple[Row, ...]
    types: dict[str, TypeRow] = field(init=False)
    annotations: dict[str, str] = field(init=False)
    by_verdict: dict[str, str] = field(init=False)
    calls: dict[tuple[str, str | None], CallRow] = field(init=False)
    members: dict[tuple[str, str, str], MemberRow] = field(init=False)

    def __post_init__(self) -> None:
        self.types, self.calls, self.members, self.annotations, self.by_verdict = {}, {}, {}, {}, {}
        for row in self.rows:
            if isinstance(row, TypeRow):
                _put(self.types, row.name, row)
                self.by_verdict.setdefault(row.verdict.name, row.name)
                for qualname in row.annotation:
                    _put(self.annotations, qualname, row.name)
            elif isinstance(row, CallRow):
                _put(self.calls, (row.qualname, row.argument), row)
            else:
                if row.kind not in MEMBER_KINDS:
                    raise CatalogError(f"{row.owner}: unknown member kind {row.kind!r}")
                _put(self.members, (row.owner, row.kind, row.name), row)
        for row in self.rows:
            for name in _referenced(row):
                if name not in self.types:
                    raise CatalogError(f"{_key(row)} refers to the type {name!r}, which no row defines")

    def resolve(self, result: str) -> Known:
        """The lattice value of a row's ``result`` text (``"a|b"`` is a union)."""
        return Known(frozenset(part.strip() for part in result.split("|")))

    def typed_argument(self, qualname: str) -> bool:
        """True when a row of ``qualname`` applies to a first argument of a catalog type (the caller infers it)."""
        return any(row.argument in self.types for key, row in self.calls.items() if key[0] == qualname and key[1])

    def named_argument(self, qualname: str) -> bool:
        """True when a row of ``qualname`` applies to a first argument of a qualified name (``finfo(jnp.bfloat16)``)."""
        return any(key[0] == qualname and key[1] and key[1] not in self.types for key in self.calls)

    def call(self, qualname: str, arguments: frozenset[str] = frozenset(), specific: bool = False) -> Known | None:
        """What calling ``qualname`` gives, its first argument being one of ``arguments`` (its qualified
        names, and its catalog type when the caller knows it).

        A row for one of those arguments comes before the row for any argument (with ``specific``, only
        such a row counts); ``None`` when the catalog has neither.
        """
        for argument in sorted(arguments):
            row = self.calls.get((qualname, argument))
            if row is not None and not row.value:
                return self.resolve(row.result)
        if specific:
            return None
        row = self.calls.get((qualname, None))
        return self.resolve(row.result) if row is not None and not row.value else None

    def value(self, qualname: str) -> Known | None:
        """What reading the module attribute ``qualname`` gives (a ``value=True`` row), else ``None``."""
        row = self.calls.get((qualname, None))
        return self.resolve(row.result) if row is not None and row.value else None

    def member(self, known: Known, kind: str, name: str = "") -> Known | None:
        """The type of a member of a value of type ``known``; ``None`` when no type of the union has it.

        For a union, the types that have the member decide: reading an attribute a type lacks raises
        instead of giving a value (``ctx.avals_out[0].inner_aval`` is read on an ``AbstractFuture``,
        never on a ``ShapedArray``). So a type's rows must list every member its instances have that
        another type of a union it appears in also has.
        """
        result: Known | None = Known(frozenset())
        for owner in known.names:
            row = self.members.get((owner, kind, name))
            if row is not None:
                result = join(result, self.resolve(row.result))
        return result if result is not None and result.names else None

    def verdicts(self, known: Known) -> list[PyType]:
        """The :class:`~asynccfg_lint.analysis.type_verdicts.PyType` of each type of ``known``, in name order."""
        return [self.types[name].verdict for name in sorted(known.names)]


def _put(index: dict, key: object, row: Row) -> None:
    if key in index:
        raise CatalogError(f"{key!r} is defined twice in the catalog")
    index[key] = row


def _key(row: Row) -> str:
    if isinstance(row, TypeRow):
        return row.name
    if isinstance(row, CallRow):
        return row.qualname if row.argument is None else f"{row.qualname}({row.argument})"
    return f"{row.owner} {row.kind} {row.name}".rstrip()


def _referenced(row: Row) -> Iterable[str]:
    if isinstance(row, CallRow):
        yield from (p.strip() for p in row.result.split("|"))
    elif isinstance(row, MemberRow):
        yield row.owner
        yield from (p.strip() for p in row.result.split("|"))
