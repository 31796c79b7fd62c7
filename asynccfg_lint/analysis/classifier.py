"""Value classifier: infer what each config value is and decide what JAX and XLA will do with it.

The verdicts follow the team's truth table (jax 0.12.0.1), as encoded in
:mod:`asynccfg_lint.analysis.type_verdicts` and :mod:`asynccfg_lint.analysis.jax_facts`. The inference is split by
concern into :mod:`asynccfg_lint.analysis.infer` (the walk, calls, arrays, classes, other modules'
values, number folding); this module holds the checks, and every message comes from the rule
modules of :mod:`asynccfg_lint.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol

import libcst as cst

from asynccfg_lint.analysis import objects
from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.arrays import ArrayInference
from asynccfg_lint.analysis.infer.calls import CallInference
from asynccfg_lint.analysis.infer.catalog import extended
from asynccfg_lint.analysis.infer.classes import ClassInference, attribute_values
from asynccfg_lint.analysis.infer.folding import int_constant
from asynccfg_lint.analysis.infer.parameters import ParameterInference
from asynccfg_lint.analysis.infer.relocation import Relocation
from asynccfg_lint.analysis.infer.values import UNKNOWN, Inferred, Origin
from asynccfg_lint.analysis.records import attrs_fields, dataclass_fields, hashes_fields, is_dataclass
from asynccfg_lint.analysis.resolution import qualified_names
from asynccfg_lint.analysis.infer.walk import InferenceWalk
from asynccfg_lint.analysis.jax_facts import SPECIAL_KEY_ATTRIBUTE, SPECIAL_KEY_EMITTED_AS, XLA_KEYS, XlaShape
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.records import AS_TUPLE, ATTRS_AS_DICT
from asynccfg_lint.rules import acc101, acc102, acc103, acc104, acc105, acc201, rule as wording
from asynccfg_lint.rules.rule import ConfigPath, quote_key
from asynccfg_lint.analysis.tracer import MAX_DEPTH, DictTracer, TracerPeers
from asynccfg_lint.analysis.entries import Entry, TracedDict
from asynccfg_lint.fixing.key_collisions import converted_key, key_fix_safety, with_key_safety


@dataclass(frozen=True)
class Finding:
    """A fault found at ``node`` (not yet positioned): rule ``code`` and its ``message``.

    ``fix`` is the mechanical remedy from the type catalog (:class:`~asynccfg_lint.analysis.type_verdicts.FixTemplate`),
    made for the value at ``node``; ``None`` when the fault has none. ``written_at`` is
    ``path:line`` of the offending value when it is written in another module (``node`` is then
    the expression of the checked module it arrives through, and there is no fix). ``used_at`` is
    where a registered lowering rule puts a value passed to ``prim.bind`` (``node`` is then the
    ``bind`` argument): ``path:line``, or the rule's qualified name when its module is not read.

    Where the fix may go is decided by :func:`asynccfg_lint.fixing.fixes.fix_site` from two more facts:
    ``use`` is the expression of the config the value itself arrives through (an entry's value,
    a container's element, a key: ``node`` itself or around it when the value is written there,
    else a name or call leading to ``node``); ``outer`` are the config expressions of the
    containers around the value, innermost first (``flags`` in ``{"k": flags}`` for an element of
    ``flags = [np.bool_(1)]``). Both are ``None``/empty for a value read through an attribute of
    a special key (its fix goes to where the attribute's value is written). ``spreads`` are the
    names of dicts the entry was spread or copied from into the config (``Entry.spreads``).
    """

    node: cst.CSTNode
    code: str
    message: str
    fix: T.FixTemplate | None = None
    written_at: str | None = None
    use: cst.CSTNode | None = None
    outer: tuple[cst.CSTNode, ...] = ()
    used_at: str | None = None
    spreads: tuple[cst.CSTNode, ...] = ()


def _arriving_through(findings: list[Finding], expr: cst.CSTNode, element: bool = False) -> list[Finding]:
    """``findings`` about the value of the config expression ``expr`` and what it holds, with ``expr`` recorded.

    A finding without a ``use`` is about the value of ``expr`` itself; one with another ``use`` is
    about something inside it, so ``expr`` is one of its ``outer`` containers. With ``element``
    (``dict(zip(keys, values))``: the key or value is an element of ``expr``, which no expression
    holds alone), ``expr`` is always a container and the value arrives as it is written.
    """
    if element:
        return [replace(f, use=f.node if f.use is None else f.use, outer=(*f.outer, expr)) for f in findings]
    return [replace(f, use=expr) if f.use is None else f if f.use is expr else replace(f, outer=(*f.outer, expr))
            for f in findings]


class ClassifierPeers(TracerPeers, Protocol):
    """What a module's classifier asks of the other modules of the check (``Workspace`` provides it).

    The classifier depends on this interface, not on :mod:`asynccfg_lint.analysis.workspace`, which builds
    the classifiers and tracers of a check: no import circle.
    """

    def classifier(self, parsed: ParsedModule) -> ValueClassifier:
        """The classifier of ``parsed`` (one per module per check)."""
        ...

    def named_elsewhere(self, word: str, module: str) -> bool:
        """True when a project module other than ``module`` has the identifier ``word`` in its text."""
        ...

    def location(self, home: ParsedModule, node: cst.CSTNode) -> str:
        """``path:line`` of ``node`` of ``home`` (1-based line), as messages name another place."""
        ...


class ValueClassifier(Relocation, ClassInference, ArrayInference, CallInference, ParameterInference, InferenceWalk):
    """Infer value types in one module and check config entries against JAX's rules.

    Args:
        parsed: the module, with metadata.
        tracer: the module's :class:`~asynccfg_lint.analysis.tracer.DictTracer`.
        sanitizers: qualified names of functions whose result is JSON-safe (from the configuration).
        workspace: the check's modules, to follow names imported from other project modules
            (each module's nodes are classified by that module's classifier); ``None`` stays
            within ``parsed``.
        bind_view: take a registered rule's annotated keywords from the module's binds (the view
            :func:`~asynccfg_lint.analysis.checker.annotation_or_binds` compares with the annotations').
    """

    def __init__(self, parsed: ParsedModule, tracer: DictTracer, sanitizers: frozenset[str] = frozenset(),
                 workspace: ClassifierPeers | None = None, bind_view: bool = False) -> None:
        self.parsed = parsed
        #: an annotated keyword of a registered rule holds what this module's binds pass, not what its
        #: annotation says (:meth:`~asynccfg_lint.analysis.infer.parameters.ParameterInference.bound_by_visible_binds`)
        self.bind_view = bind_view
        self.tracer = tracer
        self.sanitizers = sanitizers
        self.workspace = workspace
        #: the type catalog, with the rows declared in ``[tool.asynccfg-lint.types]`` (``QUALNAME=TYPE`` entries)
        self.catalog = extended(sanitizers)
        self._memo: dict[int, list[Origin]] = {}
        #: the calls ``f(argument)`` an attrs converter stands for (kept: the memo is by node id)
        self._converter_calls: dict[tuple[int, int], cst.Call] = {}
        #: nodes the classifier made (``type(...)`` of an argparse option): kept alive, since memos key on ``id``
        self._synthetic: list[cst.CSTNode] = []
        self._active: set[int] = set()
        self._following: set[int] = set()  # parameters whose callers (augmented assignments whose operands) are being followed
        self._cut: set[int] = set()  # those of them a cycle came back to (results below are not memoized)

    def _relocated(self, findings: list[Finding], home: ParsedModule, via: cst.CSTNode,
                   source: cst.CSTNode | None = None) -> list[Finding]:
        """Findings of ``home``'s classifier, reported at ``via`` in this module with where the value is written.

        A finding about ``source`` itself (the whole value ``via`` stands for, and all it may be: ``TAG`` of ``from .consts
        import TAG``, ``consts.TAG``, a call returning it) keeps its fix, which then goes to ``via``
        (``TAG.decode()``): the value's own module and its other readers are not rewritten, as a module
        constant read elsewhere is fixed at the config's use of its name. Any other finding (a part of
        the value, an entry of a dict built there) has no fix: nothing here holds it alone.
        """
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
                message = wording.written_at(message, written_at)
            fix = finding.fix if source is not None and finding.node is source else None
            result.append(Finding(via, finding.code, message, fix, written_at))
        return result

    def check_entries(self, traced: TracedDict, path: ConfigPath | None = None, depth: int = 0,
                      elements: bool = False, recursion: str | None = None) -> list[Finding]:
        """Check every key and value of a traced config dict.

        Args:
            traced: the dict's entries.
            path: where the dict sits (``None`` for the top-level config).
        Returns:
            findings for ACC101-ACC105 and, for values of unknown type, ACC201.
            elements: the entries are the elements of a tuple (``dataclasses.astuple``) at ``path``: their
                keys are no part of it.
            recursion: the dict is inside a record's field that this conversion converts (``Entry.recursion``),
                so are its values.
        """
        findings: list[Finding] = []
        for entry in traced.entries:
            if recursion is not None and entry.recursion is None:
                entry = replace(entry, recursion=recursion)
            if entry.serialized:  # json.dumps of its dict returned before the use: only what plain json lets through
                findings += [f for f in self.check_entries(TracedDict((replace(entry, serialized=False),), True), path,
                                                           depth, elements) if f.code not in _JSON_DUMPS_REJECTS]
                continue
            if elements:
                assert path is not None
                entry = replace(entry, key_node=None)
            literal = _literal_key(entry)
            entry_path = path if elements else ConfigPath(entry.key, literal=literal) if path is None \
                else path.entry(entry.key, literal)
            if entry.home is not None:  # written in another module: its classifier checks it, reported at `via`
                peer, local = self._peer(entry.home), replace(entry, home=None, via=None)
                found = peer._check_key(local, entry_path, depth) if entry.key_node is not None else []
                found += peer.check_value(local, top_level=path is None, path=entry_path, depth=depth,
                                          origins=self._normalised_origins(entry, peer, depth))
                findings.extend(self._relocated(found, entry.home, entry.via))
                continue
            if entry.key_node is not None:
                findings.extend(_arriving_through(self._check_key(entry, entry_path, depth, traced), entry.key_node,
                                                  entry.zipped or entry.key_elements))
            found = self.check_value(entry, top_level=path is None, path=entry_path, depth=depth,
                                     origins=self._normalised_origins(entry, self, depth))
            findings.extend(replace(f, spreads=entry.spreads) if entry.spreads and not f.spreads else f for f in found)
        if path is None:
            for opaque in traced.opaque:
                findings.append(Finding(opaque, "ACC201", acc201.opaque_part()))
        return findings

    def _normalised_origins(self, entry: Entry, home: ValueClassifier, depth: int) -> list[Origin] | None:
        """What ``entry``'s value may be at the use when a loop there replaced the instances of its
        ``normalised`` classes (class expressions of this module; the value is ``home``'s), ``None`` when it
        replaced none of them (its own origins stand)."""
        if not entry.normalised or entry.value is None or entry.zipped:
            return None
        every = home.origins(entry.value, depth + 1)
        kept = [o for o in every if not any(self._instance_of(o, c) for c in entry.normalised)]
        return kept if len(kept) < len(every) else None

    def _check_key(self, entry: Entry, path: ConfigPath, depth: int, traced: TracedDict | None = None) -> list[Finding]:
        """The ACC102 findings of ``entry``'s key; a key's fix is offered as :func:`key_fix_safety` of the
        dict ``traced`` allows (none when another key would equal the converted one)."""
        findings = []
        assert entry.key_node is not None
        if entry.tuple_key:  # cfg[a, b] = v: a tuple, whatever a and b are (no node holds it, so no fix)
            nested_under = quote_key(path.key) if path.steps else None
            remedy = acc102.remedy(T.TUPLE.name, False, False, False)
            return [Finding(entry.key_node, "ACC102", acc102.unusable_key(nested_under, T.TUPLE.name, remedy))]
        keys = self.elements(entry.key_node, depth) if entry.zipped or entry.key_elements \
            else self.origins(entry.key_node, depth + 1)
        for origin in keys:
            pytype = origin.inferred.type
            if pytype is None or pytype.key_ok:
                continue
            remedy = acc102.remedy(pytype.name, pytype.json is T.JsonKind.NUMBER,
                                   pytype.name.startswith(T.ENUM_MEMBER.name), pytype.name.startswith(T.FLAG_MEMBER.name),
                                   pytype.key_fix.template.format("k") if pytype.key_fix is not None else None)
            nested_under = quote_key(path.key) if path.steps else None
            # an element of an iterable no expression holds alone (dict.fromkeys(W, 0) of an array W): no fix for W
            whole = (entry.zipped or entry.key_elements) and origin.node is entry.key_node
            fix = None if whole else pytype.key_fix
            if fix is not None and traced is not None:
                converted = converted_key(origin.node, fix, origin.inferred.member_value)
                fix = with_key_safety(fix, key_fix_safety(traced, entry, converted))
            findings.append(Finding(origin.node, "ACC102", acc102.unusable_key(nested_under, pytype.name, remedy),
                                    fix=fix))
        return findings

    def check_value(self, entry: Entry, top_level: bool, path: ConfigPath, depth: int = 0,
                    parameter: bool = False, origins: list[Origin] | None = None) -> list[Finding]:
        """Check one entry's value: special keys, serializability, non-finite floats, XLA's key types.

        ``parameter``: the value is the argument of a public ``*_start`` function, which binds it
        as a jaxpr equation parameter before building the config: it must also be hashable.
        ``origins``: what the value may be, when it is not ``entry.value``'s own origins (an
        attribute of it that a rule of another module reads).
        """
        if origins is not None:
            pass
        elif entry.value is not None and entry.zipped:  # dict(zip(keys, values)): each element of `values`
            origins = self.elements(entry.value, depth)
        elif entry.value is not None:
            origins = self.origins(entry.value, depth + 1)
            if isinstance(entry.value, cst.Name) and entry.home is None and depth < MAX_DEPTH \
                    and any(o.inferred.traced is not None for o in origins):
                # a dict bound to a name: what is added to it before this use (tile_map[(r, c)] = v) is part of it
                traced = self.tracer.trace(entry.value, depth + 1)
                if traced is not None:
                    origins = [replace(o, inferred=replace(o.inferred, traced=traced)) if o.inferred.traced is not None
                               else o for o in origins]
        else:  # a type stands for the value (a dataclass field's annotation, a defaultdict's factory): no value to rewrite
            origins = [Origin(entry.annotation, replace(i, type=replace(i.type, fix=None)) if i.type is not None else i)
                       for i in self.from_annotation(entry.annotation)] if entry.annotation else []
        if entry.recursion is not None:
            origins = [self._converted(origin, entry.recursion, depth) for origin in origins]
        if top_level and entry.key in SPECIAL_KEY_ATTRIBUTE:
            return self._check_special(entry, origins, path, depth)
        shape = XLA_KEYS.get(entry.key) if top_level else None
        findings: list[Finding] = []
        for origin in origins:
            pytype = origin.inferred.type
            if parameter and pytype is not None and not pytype.hashable:
                findings.append(self._unhashable(origin, path.describe(), shape is not None and shape.scalar, depth))
                continue
            findings.extend(self._check_origin(origin, path, shape, depth, top_level, entry.recursion))
        return _arriving_through(findings, entry.value, entry.zipped) if entry.value is not None else findings

    def _unhashable(self, origin: Origin, where: str, scalar_key: bool, depth: int) -> Finding:
        """The ACC101 of an unhashable ``bind`` parameter value (``where`` names its place)."""
        pytype = origin.inferred.type
        assert pytype is not None
        # a remedy that makes a list (sorted(...), .tolist()) would still fail to hash
        own = pytype.remedy and not pytype.serializes and pytype.fix not in _LIST_FIXES
        remedy = pytype.remedy if own else acc101.hashable_remedy(scalar_key, pytype.json is T.JsonKind.OBJECT)
        fix = None if scalar_key else hashable_fix(self._value_fix(origin, depth))  # a tuple is no scalar
        if T.array_kind(pytype) is T.JAX_ARRAY:  # traced at the bind: int(...) of it fails, its literal does not
            remedy, fix = acc101.JAX_ARRAY_BIND_REMEDY, self._jnp_scalar_literal(origin)
        elif pytype.name.startswith(T.DATACLASS.name):  # (dataclasses.asdict would make a dict: unhashable too)
            remedy, fix = acc101.HASHABLE_DATACLASS_REMEDY, None
        return Finding(origin.node, "ACC101", acc101.unhashable(where, pytype.name, remedy), fix=fix)

    def _jnp_scalar_literal(self, origin: Origin) -> T.FixTemplate | None:
        """The literal a ``bind`` keyword's ``jnp.int32(3)`` / ``jnp.bool_(1)`` stands for (``3``, ``True``), as a fix
        that replaces it; ``None`` for anything else (a float, whose literal is not the float32 value; an int the
        dtype cannot hold; a value of another module).

        Measured on jax 0.12.0.1 under ``jax.jit(shard_map(...))``: ``p.bind(x, depth=jnp.int32(3))`` raises
        TypeError (unhashable tracer), ``depth=int(jnp.int32(3))`` ConcretizationTypeError and
        ``bool(jnp.bool_(True))`` TracerBoolConversionError; ``depth=3`` and ``depth=np.int32(3)`` lower and
        compile, and the rule receives an ``int`` / ``numpy.int32``.
        """
        call = origin.node
        if origin.home is not None or not isinstance(call, cst.Call) or len(call.args) != 1 \
                or call.args[0].keyword is not None or call.args[0].star:
            return None
        names = qualified_names(self.parsed, call.func)
        dtype = next((n.rpartition(".")[2] for n in names if n.startswith("jax.numpy.")), None)
        value = int_constant(call.args[0].value)
        if value is None and isinstance(call.args[0].value, cst.Name) and call.args[0].value.value in ("True", "False"):
            value = int(call.args[0].value.value == "True")
        if dtype is None or value is None:
            return None
        if dtype in ("bool_", "bool"):
            return T.FixTemplate(repr(bool(value)), T.SAFE)
        bits = _JNP_INT_BITS.get(dtype)
        if bits is None:
            return None
        low, high = (0, 2 ** bits[1] - 1) if bits[0] else (-2 ** (bits[1] - 1), 2 ** (bits[1] - 1) - 1)
        if not low <= value <= high:
            return None
        written = call.args[0].value  # as written (1 << 20), in parentheses unless a plain literal
        text = self.parsed.module.code_for_node(written.with_changes(lpar=[], rpar=[])).strip()
        plain = isinstance(written, cst.Integer) or isinstance(written, cst.UnaryOperation) \
            and isinstance(written.expression, cst.Integer)
        return T.FixTemplate(text if plain else f"({text})", T.SAFE)

    def check_hashable(self, entry: Entry, depth: int = 0) -> list[Finding]:
        """Check that a ``bind`` keyword (``entry``: its name and value) is hashable, also inside a tuple.

        ``jax._src.interpreters.partial_eval._verify_params_are_hashable`` raises TypeError at
        ``bind`` for a list, set or ndarray (and ``mlir.jaxpr_subcomp`` for a dict, before any
        rule runs), also inside a tuple: whatever the rule does with the keyword (measured on jax
        0.12.0.1, ``tests/fixtures/programs/bind_hashable.py``). Only a value the checker knows is
        unhashable is reported; the keyword's serializability is the config checks' business.
        """
        if entry.value is None or entry.home is not None:
            return []
        findings = self._unhashable_parts(entry.value, acc101.bind_keyword(entry.key), depth, set())
        return _arriving_through(findings, entry.value)

    def _unhashable_parts(self, expr: cst.BaseExpression, where: str, depth: int, seen: set[int]) -> list[Finding]:
        """The unhashable values ``expr`` may be, and those in the tuples it may be; ``seen``: the
        expressions already looked at (each once: their origins may be shared by many tuples)."""
        findings: list[Finding] = []
        for origin in self.origins(expr, depth + 1):
            pytype = origin.inferred.type
            if pytype is None or id(origin.node) in seen or origin.home is not None and origin.source is None:
                continue
            seen.add(id(origin.node))
            if origin.home is not None:  # a constant of another module (PERM, tuple(PERM)): judged there, reported here
                peer = self._peer(origin.home)
                if not pytype.hashable:
                    found = [peer._unhashable(Origin(origin.source, origin.inferred), where, False, depth)]
                elif depth < MAX_DEPTH and pytype.json is T.JsonKind.ARRAY:
                    found = [f for element in origin.inferred.elements
                             for f in peer._unhashable_parts(element, acc101.element_of(where), depth + 1, set())]
                else:  # a frozen dataclass instance made there hashes its fields
                    found = peer._unhashable_fields(Origin(origin.source, origin.inferred), where, depth, set())
                findings.extend(self._relocated(found, origin.home, origin.node))
            elif not pytype.hashable:
                findings.append(self._unhashable(origin, where, False, depth))
            elif depth < MAX_DEPTH and pytype.json is T.JsonKind.ARRAY:  # a tuple hashes its elements
                for element in origin.inferred.elements:
                    findings.extend(self._unhashable_parts(element, acc101.element_of(where), depth + 1, seen))
            else:
                findings.extend(self._unhashable_fields(origin, where, depth, seen))
        return findings

    def _unhashable_fields(self, origin: Origin, where: str, depth: int, seen: set[int]) -> list[Finding]:
        """The unhashable values among the fields of ``origin``, an instance of this module's frozen dataclass
        made by a call here (:func:`~asynccfg_lint.analysis.records.hashes_fields`): the call's arguments and
        the class's defaults (``Options(tags=["a"])``; ``TRACED = Options(tags=DEFAULT_TAGS)``)."""
        cls, call = origin.inferred.cls, origin.node
        if depth >= MAX_DEPTH or cls is None or not isinstance(call, cst.Call) or not hashes_fields(self.parsed, cls):
            return []
        findings: list[Finding] = []
        for name, _, _ in dataclass_fields(self.parsed, cls):
            made = objects.member(self.parsed, cls, name, call)
            for value in (*made.arguments, *made.values):
                findings.extend(self._unhashable_parts(value, acc101.field_of(where, name), depth + 1, seen))
        return findings

    def _converted(self, origin: Origin, recursion: str, depth: int) -> Origin:
        """``origin`` as the conversion ``recursion`` (``Entry.recursion``) leaves it: a record instance of
        the kind it converts is a dict of its fields (a tuple for ``dataclasses.astuple``), each converted
        the same way; anything else, and a value written in another module (converted by its classifier),
        as it is."""
        if origin.inferred.cls is None or (origin.home is not None and origin.source is not None) \
                or origin.inferred.type is None or origin.inferred.type.serializes or depth >= MAX_DEPTH:
            return origin
        fields = self.tracer.converted(origin.node, recursion, depth + 1)
        if fields is None:
            return origin
        inferred = Inferred(T.TUPLE, fields=fields) if recursion == AS_TUPLE else Inferred(T.DICT, traced=fields)
        return Origin(origin.node, inferred)

    def _check_origin(self, origin: Origin, path: ConfigPath, shape: XlaShape | None, depth: int, top_level: bool,
                      recursion: str | None = None) -> list[Finding]:
        """The findings of one value ``origin`` at ``path`` (under the XLA key ``shape`` reads, if any);
        ``recursion``: the value is in a record's field that this conversion converts (``Entry.recursion``)."""
        if origin.home is not None and origin.source is not None:  # written in another module
            local = Origin(origin.source, origin.inferred)
            found = self._peer(origin.home)._check_origin(local, path, shape, depth, top_level, recursion)
            # the fix goes to origin.node only when that is all the expression may be (not so for a
            # loop variable of another module that holds each element: `.value` of its 1 would raise),
            # and the expression is the value itself (not an object whose field it is: `RdmaOptions()`
            # of a bind whose rule reads `options.transport` would become `RdmaOptions().value`)
            whole = origin.source if [o.source for o in self.origins(origin.node, depth + 1)] == [origin.source] \
                else None
            return self._relocated(found, origin.home, origin.node, whole)
        if recursion is not None:
            origin = self._converted(origin, recursion, depth)
        inferred, node = origin.inferred, origin.node
        pytype = inferred.type
        if pytype is None:
            if top_level:
                return [Finding(node, "ACC201", acc201.unknown_type(path.describe()))]
            return []
        if not pytype.serializes:
            message = acc101.unserializable(path.describe(), pytype.name, pytype.error, pytype.remedy)
            return [Finding(node, "ACC101", message, fix=self._value_fix(origin, depth))]
        if inferred.nonfinite:
            return [Finding(node, "ACC103", acc103.non_finite(path.describe()))]
        findings: list[Finding] = []
        if shape is not None:
            findings.extend(self._check_shape(origin, path, shape))
        if depth < MAX_DEPTH and origin.home is None:  # (another module's enum member or instance has no parts)
            # numpy arrays list their elements flattened: only a literal array's nesting is known
            element_shape = shape.element if shape is not None and pytype.json is T.JsonKind.ARRAY else None
            element_path = path.child("an element")
            # the conversion goes into a list or tuple (dataclasses: also a NamedTuple; attrs makes of that
            # a NamedTuple of a list of its elements, which is not followed) and a dict's values, not a set
            within = recursion if recursion != ATTRS_AS_DICT or pytype.name in (T.LIST.name, T.TUPLE.name) else None
            for element in inferred.elements:
                found = []
                for inner in self.origins(element, depth + 1):
                    found.extend(self._check_origin(inner, element_path, element_shape, depth + 1, False, within))
                findings.extend(_arriving_through(found, element))
            for iterable in inferred.iterated:  # list(Mode): each element is a member, held by no expression alone
                found = [f for inner in self.elements(iterable, depth + 1)
                         for f in self._check_origin(inner, element_path, element_shape, depth + 1, False)]
                findings.extend(_arriving_through(found, iterable, element=True))
            if inferred.fields is not None:  # dataclasses.astuple(x): the field values are the elements
                findings.extend(self.check_entries(inferred.fields, element_path, depth + 1, elements=True))
            if inferred.traced is not None:
                findings.extend(self.check_entries(inferred.traced, path, depth + 1, recursion=recursion))
        return findings

    def _value_fix(self, origin: Origin, depth: int) -> T.FixTemplate | None:
        """The catalog's fix for a rejected value; an Enum member's ``.value`` only when that value is a JSON scalar."""
        inferred = origin.inferred
        if origin.home is not None:  # the member's value is another module's node
            return self._peer(origin.home)._value_fix(Origin(origin.node, inferred), depth)
        fix = inferred.type.fix if inferred.type is not None else None
        if fix is T.SORTED_FIX and not self._orderable(inferred.elements, depth):
            return T.SET_LIST_FIX  # sorted({0, "all"}) raises TypeError; list() keeps the elements to check
        if fix is T.DECODE_FIX and not _decodes(origin.node):
            return None  # b"\xff".decode() raises UnicodeDecodeError
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

    def _orderable(self, elements: tuple[cst.BaseExpression, ...], depth: int) -> bool:
        """True when ``elements`` are known and ``sorted`` orders them without error: all Python numbers
        (int, float, bool) or all str. An Enum member, None, a mix of numbers and str raise TypeError."""
        kinds = set()
        for element in elements:
            for origin in self.origins(element, depth + 1):
                name = origin.inferred.type.name if origin.inferred.type is not None and origin.home is None else None
                kinds.add("number" if name in ("int", "float", "bool") else "str" if name == "str" else None)
        return bool(elements) and len(kinds) == 1 and None not in kinds

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
                return [Finding(origin.node, "ACC105", acc105.wrong_length(path.describe(), len(elements), key, expected))]
        if wrong:
            message = acc105.wrong_json_type(path.describe(), inferred.type.name, kind.value, key, expected)
            return [Finding(origin.node, "ACC105", message)]
        if inferred.beyond_int64 and shape is XlaShape.SCALAR:
            return [Finding(origin.node, "ACC105", acc105.beyond_int64(path.describe(), key))]
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
            attr_path = ConfigPath(entry.key, [f"the .{attribute} of the value"])
            held = self._constructed_attribute(origin, attribute, depth) if attribute not in pytype.attrs else None
            if held is not None:  # SimpleNamespace(handle=1), a dataclass's `handle` field: what it holds
                for inner in held:
                    findings.extend(self._check_origin(inner, attr_path, XLA_KEYS.get(emitted), depth + 1, False))
                continue
            if attribute not in pytype.attrs:
                message = acc104.missing_attribute(path.describe(), pytype.name, entry.key, attribute)
                findings.append(Finding(origin.node, "ACC104", message))
                continue
            # the attribute's value is what gets serialized (and parsed by XLA as `emitted`)
            for source in attribute_values(origin.inferred, attribute):
                for inner in self.origins(source, depth + 1):
                    findings.extend(self._check_origin(inner, attr_path, XLA_KEYS.get(emitted), depth + 1, False))
        return findings

    def _constructed_attribute(self, origin: Origin, attribute: str, depth: int) -> list[Origin] | None:
        """What ``attribute`` (``handle``) of ``origin``'s value holds when its construction gives it one: a
        ``types.SimpleNamespace(handle=...)`` call (one with ``**kw`` may have it: unknown), a field of a
        dataclass or attrs class of the project (:meth:`members`; a ``NamedTuple``'s are its type's attributes). ``None`` when nothing
        gives the value that attribute (``_emit_async_start_custom_call``'s ``.handle`` raises AttributeError)."""
        node = origin.node
        if isinstance(node, cst.Call) and qualified_names(self.parsed, node.func) & objects.SIMPLE_NAMESPACE:
            if any(a.star for a in node.args):
                return [Origin(node, UNKNOWN)]
            value = objects.namespace_argument(self.parsed, node, attribute)
            return self.origins(value, depth + 1) if value is not None else None
        cls = origin.inferred.cls
        # (a plain class's bare annotation `handle: int` gives its instances no attribute)
        fields = dataclass_fields(self.parsed, cls) if cls is not None and is_dataclass(self.parsed, cls) \
            else attrs_fields(self.parsed, cls) if cls is not None else None
        if fields and attribute in {name for name, _, _ in fields}:
            return self.members([origin], attribute, node, depth)
        return None


#: the codes of what a plain ``json.dumps`` (no ``default=``) raises on: a value it cannot serialize, a key
#: that is no str, int, float, bool or None (TypeError); a value of unknown type it let through is serializable
_JSON_DUMPS_REJECTS = frozenset({"ACC101", "ACC102", "ACC201"})


def _literal_key(entry: Entry) -> str | None:
    """The source text of ``entry``'s key when it is a number, bool or ``None`` literal (``1``, ``-2``, ``True``)."""
    node = entry.key_node
    if entry.key is not None or node is None or entry.home is not None or entry.tuple_key or entry.zipped \
            or entry.key_elements:
        return None
    if int_constant(node) is not None or isinstance(node, cst.Float) or (
            isinstance(node, cst.Name) and node.value in ("True", "False", "None")):
        return cst.Module([]).code_for_node(node).strip()
    return None


#: fixes whose result is a list: JSON-safe, but no more hashable than a set (a bind parameter needs both)
_LIST_FIXES = (T.SORTED_FIX, T.SET_LIST_FIX, T.LIST_FIX, T.TOLIST_FIX)
#: a set's list fix as a bind keyword's: the same elements in a tuple
_TUPLE_FIXES = {T.SORTED_FIX: T.SORTED_TUPLE_FIX, T.SET_LIST_FIX: T.SET_TUPLE_FIX}


#: jax.numpy integer scalar types: (unsigned, bits)
_JNP_INT_BITS = {f"{'u' if unsigned else ''}int{bits}": (unsigned, bits)
                 for unsigned in (False, True) for bits in (8, 16, 32, 64)}


def _decodes(node: cst.CSTNode) -> bool:
    """False for a bytes literal whose bytes are not UTF-8 (what ``x.decode()`` assumes); True otherwise."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        value = node.evaluated_value
        if isinstance(value, bytes):
            try:
                value.decode("utf-8")
            except UnicodeDecodeError:
                return False
    return True


def hashable_fix(fix: T.FixTemplate | None) -> T.FixTemplate | None:
    """``fix`` for a ``bind`` keyword (a primitive parameter, which must be hashable): a set's ``sorted(...)`` /
    ``list(...)`` becomes ``tuple(sorted(...))`` / ``tuple(...)``; another fix that makes a list is dropped."""
    if fix in _TUPLE_FIXES:
        return _TUPLE_FIXES[fix]
    return None if fix in _LIST_FIXES else fix


def hashable_message(message: str) -> str:
    """``message`` of a value that becomes a ``bind`` keyword, with the set remedy a hashable one."""
    return message.replace(T.SET_REMEDY, T.HASHABLE_SET_REMEDY)
