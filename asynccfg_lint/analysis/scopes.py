"""Scopes of a parsed module: libcst's scope model, built by one walk over the tree.

libcst's ``ScopeProvider`` first runs ``ExpressionContextProvider`` (a visitor over every node that
marks each name load, store or del) and then its own ``CSTVisitor`` over every node again, a
Python callback per node and per attribute of a node: about three times the parse itself
(measured on ``jax/_src/lax/parallel.py``: parse 0.26 s, scopes 0.81 s). :func:`module_scopes`
builds the same objects (libcst's ``GlobalScope``, ``FunctionScope``, ``ClassScope``,
``ComprehensionScope``, ``Assignment``, ``ImportAssignment``, ``Access``) with one recursive walk
over the nodes' fields that skips whitespace and punctuation and decides each name's expression
context on the way. It visits the nodes in libcst's order and records each assignment and access
at the same moment, so every assignment index, referent and reference — and every qualified name
the scopes give — is libcst's (``tests/test_scopes.py`` compares the two over every fixture).

The same walk records each node's parent and every call (:func:`module_index`), as :func:`index_tree`
does in a walk of its own: that second walk was a quarter of the two walks' time (dense tree, parallel.py).
"""

from __future__ import annotations

import dataclasses
import re
from collections import defaultdict
from collections.abc import Iterator

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata.scope_provider import (
    Access,
    AnnotationScope,
    ClassScope,
    ComprehensionScope,
    FunctionScope,
    GlobalScope,
    Scope,
)

from asynccfg_lint.analysis.elision import ElidedBlock
from asynccfg_lint.analysis.node_types import NODE_TYPES

#: expression contexts, as libcst's ``ExpressionContextProvider`` gives them to names
_LOAD, _STORE, _DEL = 1, 2, 3

#: fields that hold only whitespace, punctuation, operators or plain strings: never a name
NOT_WALKED = re.compile(
    r"whitespace.*|lpar|rpar|comma|lbracket|rbracket|lbrace|rbrace|colon|first_colon|second_colon|dot|"
    r"equal|semicolon|leading_lines|lines_after_decorators|header|footer|trailing_whitespace|newline|"
    r"operator|asynchronous|star|walrus|relative|indent")

#: libcst visits these nodes' fields in another order than it declares them (its
#: ``_visit_and_replace_children``); the order decides when an assignment is counted
_FIELD_ORDER: dict[type, tuple[str, ...]] = {
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params", "star_kwarg"),
}

#: the field whose names libcst's expression context marks as stores (or deletions), per node type
_STORE_FIELDS: dict[type, tuple[str, int]] = {
    cst.AssignTarget: ("target", _STORE),
    cst.AnnAssign: ("target", _STORE),
    cst.AugAssign: ("target", _STORE),
    cst.NamedExpr: ("target", _STORE),
    cst.AsName: ("name", _STORE),
    cst.CompFor: ("target", _STORE),
    cst.Del: ("target", _DEL),
}

#: the nodes after which libcst's scope visitor counts one more assignment (its ``_ASSIGNMENT_LIKE_NODES``, libcst 1.9;
#: ``tests/test_scopes.py`` compares the scopes with libcst's own over every fixture)
_ASSIGNMENT_LIKE = frozenset({
    cst.AnnAssign, cst.AsName, cst.Assign, cst.AugAssign, cst.ClassDef, cst.CompFor, cst.FunctionDef, cst.Global,
    cst.Import, cst.ImportFrom, cst.NamedExpr, cst.Nonlocal, cst.Parameters, cst.WithItem, cst.TypeVar,
    cst.TypeAlias, cst.TypeVarTuple, cst.ParamSpec})
_TYPE_HINT_CALLS = frozenset({"typing.NewType", "typing.TypeVar"})
#: the last components of ``_TYPE_HINT_CALLS`` and ``typing.cast``: a call whose callee's dotted name ends
#: otherwise (and is no import alias of one) has none of those qualified names
_HINT_CALL_NAMES = frozenset({"NewType", "TypeVar", "cast"})
_LITERALS = frozenset({"typing.Literal", "typing_extensions.Literal"})


#: node type -> the fields :func:`walked_fields` walks (filled as types are met)
_FIELDS: dict[type, tuple[str, ...]] = {}


def dotted_names(node: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """Each dotted name an attribute chain binds or reads, with its node, longest first, as libcst's scope
    provider's ``_gen_dotted_names`` (libcst 1.9) yields them, from one walk down the chain (no recursion).

    For ``a.b.c``: ``("a.b.c", c), ("a.b", b), ("a", a)``; an attribute of a call (``f().b``) yields what the
    call's function yields; a chain that does not end in a name yields nothing.
    """
    spine: list[tuple[cst.Attribute, bool]] = []  # each attribute above the name, and whether it is of a call
    while not isinstance(node, cst.Name):
        value = getattr(node, "value", None)
        of_a_call = isinstance(value, cst.Call)
        if of_a_call:
            value = value.func
        if not isinstance(node, cst.Attribute) or not isinstance(value, (cst.Attribute, cst.Name)):
            return
        spine.append((node, of_a_call))
        node = value
    names = [(node.value, node)]  # innermost first; yielded in reverse
    for attribute, of_a_call in reversed(spine):
        if not of_a_call:
            names.append((f"{names[-1][0]}.{attribute.attr.value}", attribute))
    yield from reversed(names)


def walked_fields(kind: type) -> tuple[str, ...]:
    """The fields of the node type ``kind`` that may hold names or other nodes the analysis asks about (no
    whitespace, punctuation or operator field: :data:`NOT_WALKED`), in libcst's visiting order."""
    fields = _FIELDS.get(kind)
    if fields is None:
        fields = _FIELD_ORDER.get(kind) or tuple(
            f.name for f in dataclasses.fields(kind) if not NOT_WALKED.fullmatch(f.name))
        _FIELDS[kind] = fields
    return fields


def walked_children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes of ``node`` in the fields :func:`walked_fields` gives, in source order: libcst's
    ``children`` without whitespace, punctuation and operator nodes, and without its cost or its failure:
    that property builds a copy of ``node`` through a visitor, and the copy's validation raises on code
    CPython accepts (``{k: (v)for k, v in d.items()}``: "Must have at least one space before 'for' keyword")."""
    children: list[cst.CSTNode] = []
    for name in walked_fields(type(node)):
        value = getattr(node, name)
        if type(value) is tuple or type(value) is list:
            children.extend(item for item in value if type(item) in NODE_TYPES)
        elif type(value) in NODE_TYPES:
            children.append(value)
    return children


def module_scopes(module: cst.Module) -> dict[cst.CSTNode, Scope]:
    """Node -> the libcst ``Scope`` it is evaluated in, for every node of ``module`` that can hold a name.

    The same scopes, assignments and accesses as ``MetadataWrapper(module).resolve(ScopeProvider)``
    (libcst 1.9), without the whitespace and punctuation nodes (no name is in them). Recursive
    like libcst's visitor (fewer frames per level): a file that nests beyond the recursion limit
    raises ``RecursionError`` as libcst's provider did.
    """
    return module_index(module)[0]


def module_index(module: cst.Module) -> tuple[dict[cst.CSTNode, Scope], dict[cst.CSTNode, cst.CSTNode], list[cst.Call]]:
    """``(scopes, parents, calls)`` of ``module`` from one walk: :func:`module_scopes`, and the ``(parents, calls)``
    of :func:`index_tree` (the same parents; the calls in the order libcst visits the nodes, an outer call still
    before the calls inside it). Raises ``RecursionError`` as :func:`module_scopes`."""
    walk = _ScopeWalk()
    walk.visit(module, _LOAD)
    walk.infer_accesses()
    return walk.scopes, walk.parents, walk.calls


#: node type -> its fields that :func:`index_tree` walks, in the dataclass's order
_INDEXED_FIELDS: dict[type, tuple[str, ...]] = {}


def index_tree(module: cst.Module) -> tuple[dict[cst.CSTNode, cst.CSTNode], list[cst.Call]]:
    """Return ``(parents, calls)`` of ``module`` in one walk: each node's parent, and every call (pre-order).

    Nodes under whitespace, punctuation and operator fields (:data:`NOT_WALKED`: ``SimpleWhitespace``,
    ``Comma``, ``Newline``, ``LeftParen``, ``Add``, ...) are not walked and have no parent here: none of
    them holds a name or a call, and on ``jax/_src/lax/parallel.py`` they are 37 k of the module's 55 k nodes.

    The same mapping as libcst's ``ParentNodeProvider``, which dispatches a visitor callback per
    node and costs about 13 times this walk over the nodes' dataclass fields (measured on the
    benchmark's dense tree). A parse takes both from :func:`module_index`'s walk instead.
    """
    parents: dict[cst.CSTNode, cst.CSTNode] = {}
    calls: list[cst.Call] = []
    _index_into(module, parents, calls)
    return parents, calls


def _index_into(root: cst.CSTNode, parents: dict[cst.CSTNode, cst.CSTNode], calls: list[cst.Call]) -> None:
    """Record the parent of every node below ``root`` in ``parents``, and every call of the subtree (``root``
    too) in ``calls``, in pre-order (:func:`index_tree`)."""
    stack: list[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            calls.append(node)
        names = _INDEXED_FIELDS.get(type(node))
        if names is None:
            names = _INDEXED_FIELDS[type(node)] = tuple(f.name for f in dataclasses.fields(node)
                                                        if not NOT_WALKED.fullmatch(f.name))
        children: list[cst.CSTNode] = []
        for name in names:
            value = getattr(node, name)
            if type(value) in NODE_TYPES:
                children.append(value)
            elif type(value) is tuple or type(value) is list:
                children.extend([item for item in value if type(item) in NODE_TYPES])
        for child in children:
            parents[child] = node
        stack.extend(reversed(children))


class _ScopeWalk:
    """One walk over a module, in the order and with the bookkeeping of libcst's ``ScopeVisitor``."""

    def __init__(self) -> None:
        self.scope: Scope = GlobalScope()
        self.scopes: dict[cst.CSTNode, Scope] = {}
        #: each walked node's parent, and every call met (:func:`module_index`)
        self.parents: dict[cst.CSTNode, cst.CSTNode] = {}
        self.calls: list[cst.Call] = []
        #: the node whose children are being visited (``None`` at the module, and in a string annotation's own tree)
        self.parent: cst.CSTNode | None = None
        #: (access, the outermost attribute around its name, the string annotation it is in)
        self.deferred: list[tuple[Access, cst.Attribute | None, cst.BaseString | None]] = []
        self.top_attribute: list[cst.Attribute | None] = [None]
        self.in_annotation: list[bool] = [False]
        self.in_type_hint: list[bool] = [False]
        self.ignored_subscripts: set[cst.Subscript] = set()
        self.string_annotation: cst.BaseString | None = None
        #: inside a parsed string annotation: libcst has no expression context there, every name is an access
        self.contextless = False
        #: names imported under an alias from a name in :data:`_HINT_CALL_NAMES` (``from typing import cast as c``)
        self.hint_aliases: set[str] = set()
        #: names bound by an import from a module whose name starts with ``typing`` (``typing_extensions`` too): only
        #: such a name's qualified names start with ``typing.`` (a subscript of it is a type hint, as libcst decides)
        self.typing_names: set[str] = set()

    # ----------------------------------------------------------------- the walk

    def visit(self, node: cst.CSTNode, context: int) -> None:
        kind = type(node)
        parent = self.parent
        if parent is not None:
            self.parents[node] = parent
        if kind is cst.Call:
            self.calls.append(node)
        self.parent = node
        handler = _HANDLERS.get(kind)
        if handler is None:
            self.children(node, context)
        else:
            handler(self, node, context)
        self.parent = parent
        self.scopes[node] = self.scope
        if kind in _ASSIGNMENT_LIKE:
            self.scope._assignment_count += 1

    def children(self, node: cst.CSTNode, context: int) -> None:
        kind = type(node)
        store = _STORE_FIELDS.get(kind)
        for name in walked_fields(kind):
            value = getattr(node, name)
            if value is None or type(value) is str:
                continue
            field_context = store[1] if store is not None and store[0] == name else context
            if type(value) is tuple or type(value) is list:
                for item in value:
                    if type(item) in NODE_TYPES:
                        self.visit(item, field_context)
            elif type(value) in NODE_TYPES:
                self.visit(value, field_context)

    def name(self, node: cst.Name, context: int) -> None:
        if context == _STORE and not self.contextless:
            self.scope.record_assignment(node.value, node)
        else:
            access = Access(node, self.scope, is_annotation=self.in_annotation[-1],
                            is_type_hint=self.in_type_hint[-1])
            self.deferred.append((access, self.top_attribute[-1], self.string_annotation))

    def attribute(self, node: cst.Attribute, context: int) -> None:
        top = self.top_attribute
        if top[-1] is None:
            top[-1] = node
        self.visit(node.value, _LOAD)  # not the attribute's name: it is no variable
        self.parents[node.attr] = node
        if top[-1] is node:
            top[-1] = None

    def subscript(self, node: cst.Subscript, context: int) -> None:
        type_hint = False
        if type(node.value) is cst.Name and node.value.value in self.typing_names:
            names = {q.name for q in self.scope.get_qualified_names_for(node.value)}
            type_hint = any(n.startswith(("typing.", "typing_extensions.")) for n in names)
            if names & _LITERALS:
                self.ignored_subscripts.add(node)
        self.in_type_hint.append(type_hint)
        self.visit(node.value, _LOAD)
        for element in node.slice:
            self.visit(element, _LOAD)
        self.in_type_hint.pop()
        self.ignored_subscripts.discard(node)

    def call(self, node: cst.Call, context: int) -> None:
        self.top_attribute.append(None)
        self.in_type_hint.append(False)
        names = {q.name for q in self.scope.get_qualified_names_for(node)} if self.may_be_hint_call(node) else ()
        if _TYPE_HINT_CALLS.intersection(names):
            self.visit(node.func, context)
            self.in_type_hint[-1] = True
            if node.args:  # the new type's name: a string, no access
                self.parents[node.args[0]] = node
                _index_into(node.args[0], self.parents, self.calls)
            for arg in node.args[1:]:
                self.visit(arg, context)
        elif "typing.cast" in names:
            self.visit(node.func, context)
            if node.args:
                self.in_type_hint.append(True)
                self.visit(node.args[0], context)
                self.in_type_hint.pop()
                for arg in node.args[1:]:
                    self.visit(arg, context)
        else:
            self.visit(node.func, context)
            for arg in node.args:
                self.visit(arg, context)
        self.top_attribute.pop()
        self.in_type_hint.pop()

    def may_be_hint_call(self, node: cst.Call) -> bool:
        """Whether libcst's qualified names of the call may include ``typing.cast``, ``NewType`` or ``TypeVar``:
        the callee's dotted name (as ``get_full_name_for_node`` spells it) ends with one of their names, or is
        an import alias of one. Resolving every call's names cost a quarter of the walk."""
        func = node.func
        while type(func) is cst.Call or type(func) is cst.Subscript:
            func = func.func if type(func) is cst.Call else func.value
        if type(func) is cst.Name:
            return func.value in _HINT_CALL_NAMES or func.value in self.hint_aliases
        return type(func) is cst.Attribute and func.attr.value in _HINT_CALL_NAMES

    def arg(self, node: cst.Arg, context: int) -> None:
        self.visit(node.value, context)  # the keyword is neither an assignment nor an access
        if node.keyword is not None:
            self.parents[node.keyword] = node

    def annotation(self, node: cst.Annotation, context: int) -> None:
        self.in_annotation.append(True)
        self.visit(node.annotation, context)
        self.in_annotation.pop()

    def simple_string(self, node: cst.SimpleString, context: int) -> None:
        self.string(node)

    def concatenated_string(self, node: cst.ConcatenatedString, context: int) -> None:
        if not self.string(node):
            self.children(node, context)
        else:
            _index_into(node, self.parents, self.calls)

    def string(self, node: cst.SimpleString | cst.ConcatenatedString) -> bool:
        """A string in an annotation or type hint is parsed and walked as the names it spells."""
        if not (self.in_type_hint[-1] or self.in_annotation[-1]) or self.ignored_subscripts:
            return False
        value = node.evaluated_value
        if not value:
            return False
        outermost = self.string_annotation is None
        if outermost:
            self.string_annotation = node
        try:
            module = cst.parse_module(value)
        except cst.ParserSyntaxError:  # as CPython, an unparsable annotation string is no names
            pass
        else:
            contextless, self.contextless = self.contextless, True
            parent, parents, calls = self.parent, self.parents, self.calls
            self.parent, self.parents, self.calls = None, {}, []  # another tree: not this module's nodes
            try:
                self.visit(module, _LOAD)
            finally:
                self.contextless = contextless
                self.parent, self.parents, self.calls = parent, parents, calls
        if outermost:
            self.string_annotation = None
        return True

    def import_(self, node: cst.Import | cst.ImportFrom, context: int) -> None:
        if isinstance(node.names, cst.ImportStar):
            _index_into(node, self.parents, self.calls)
            return
        module = get_full_name_for_node(node.module) if type(node) is cst.ImportFrom and node.module else None
        from_typing = module is not None and not node.relative and module.startswith("typing")
        for alias in node.names:
            self.scopes[alias] = self.scope
            bound = alias.asname.name if alias.asname is not None else alias.name
            imported = alias.name.attr.value if isinstance(alias.name, cst.Attribute) else alias.name.value
            if isinstance(bound, cst.Name):
                if alias.asname is not None and imported in _HINT_CALL_NAMES:
                    self.hint_aliases.add(bound.value)
                if from_typing or alias.asname is not None and get_full_name_for_node(alias.name).startswith("typing"):
                    self.typing_names.add(bound.value)
            for dotted, _ in dotted_names(bound):
                self.scope.record_import_assignment(dotted, node, bound)
        _index_into(node, self.parents, self.calls)  # the names and aliases: no scope visits them

    def function(self, node: cst.FunctionDef, context: int) -> None:
        outer = self.scope
        outer.record_assignment(node.name.value, node)
        self.scopes[node.name] = outer
        self.parents[node.name] = node
        if node.type_parameters:
            self.scope = AnnotationScope(outer, node, None)
            self.visit(node.type_parameters, context)
        around = self.scope
        self.scope = FunctionScope(around, node, node.name.value)
        self.visit(node.params, context)
        if type(node.body) is ElidedBlock:  # a skeleton's left-out body: its names are not walked
            self.parents[node.body] = node
            self.scopes[node.body] = self.scope
        else:
            self.visit(node.body, context)
        self.scope = around  # decorators and the return annotation are evaluated outside the function
        for decorator in node.decorators:
            self.visit(decorator, context)
        if node.returns:
            self.visit(node.returns, context)
        self.scope = outer

    def lambda_(self, node: cst.Lambda, context: int) -> None:
        outer = self.scope
        self.scope = FunctionScope(outer, node, None)
        self.visit(node.params, context)
        self.visit(node.body, context)
        self.scope = outer

    def param(self, node: cst.Param, context: int) -> None:
        inner = self.scope
        inner.record_assignment(node.name.value, node)
        self.scopes[node.name] = inner
        self.parents[node.name] = node
        self.scope = inner.parent  # a default and an annotation are evaluated where the function is defined
        if node.default:
            self.visit(node.default, context)
        if node.annotation:
            self.visit(node.annotation, context)
        self.scope = inner

    def class_(self, node: cst.ClassDef, context: int) -> None:
        outer = self.scope
        outer.record_assignment(node.name.value, node)
        self.scopes[node.name] = outer
        self.parents[node.name] = node
        for decorator in node.decorators:
            self.visit(decorator, context)
        if node.type_parameters:
            self.scope = AnnotationScope(outer, node, None)
            self.visit(node.type_parameters, context)
        for base in node.bases:
            self.visit(base, context)
        for keyword in node.keywords:
            self.visit(keyword, context)
        around = self.scope
        self.scope = ClassScope(around, node, node.name.value)
        self.parents[node.body] = node
        if type(node.body) is ElidedBlock:  # a skeleton's left-out class body: its names are not walked
            self.scopes[node.body] = self.scope
            self.scope = outer
            return
        self.parent = node.body  # the block's statements are its children
        for statement in node.body.body:  # libcst does not visit the class's block itself
            self.visit(statement, context)
        self.parent = node
        for name in walked_fields(type(node.body)):  # the block's other fields (a one-line suite's whitespace)
            if name != "body" and type(value := getattr(node.body, name)) in NODE_TYPES:
                self.parents[value] = node.body
                _index_into(value, self.parents, self.calls)
        self.scope = outer

    def global_(self, node: cst.Global, context: int) -> None:
        for item in node.names:
            self.scope.record_global_overwrite(item.name.value)
        _index_into(node, self.parents, self.calls)

    def nonlocal_(self, node: cst.Nonlocal, context: int) -> None:
        for item in node.names:
            self.scope.record_nonlocal_overwrite(item.name.value)
        _index_into(node, self.parents, self.calls)

    def comprehension(self, node: cst.ListComp | cst.SetComp | cst.DictComp | cst.GeneratorExp, context: int) -> None:
        for_in = node.for_in
        self.parents[for_in] = node
        self.parent = for_in  # the loop's parts are its children
        self.visit(for_in.iter, context)  # the first iterable is evaluated outside the comprehension
        self.scopes[for_in] = self.scope
        outer = self.scope
        self.scope = ComprehensionScope(outer, node, None)
        self.visit(for_in.target, _STORE)
        self.scope._assignment_count += 1
        for condition in for_in.ifs:
            self.visit(condition, context)
        if for_in.inner_for_in:
            self.visit(for_in.inner_for_in, context)
        self.parent = node
        if isinstance(node, cst.DictComp):
            self.visit(node.key, context)
            self.visit(node.value, context)
        else:
            self.visit(node.elt, context)
        self.scope = outer

    def for_(self, node: cst.For, context: int) -> None:
        self.visit(node.target, _STORE)
        self.scope._assignment_count += 1
        self.visit(node.iter, context)
        self.visit(node.body, context)
        if node.orelse:
            self.visit(node.orelse, context)

    def type_alias(self, node: cst.TypeAlias, context: int) -> None:
        self.scope.record_assignment(node.name.value, node)
        self.parents[node.name] = node
        outer = self.scope
        self.scope = AnnotationScope(outer, node, None)
        if node.type_parameters is not None:
            self.visit(node.type_parameters, context)
        self.visit(node.value, context)
        self.scope = outer

    def type_var(self, node: cst.TypeVar, context: int) -> None:
        self.scope.record_assignment(node.name.value, node)
        self.parents[node.name] = node
        if node.bound is not None:
            self.visit(node.bound, context)

    def type_name(self, node: cst.TypeVarTuple | cst.ParamSpec, context: int) -> None:
        self.scope.record_assignment(node.name.value, node)
        self.parents[node.name] = node

    # ----------------------------------------------------------------- after the walk

    def infer_accesses(self) -> None:
        """Resolve every access to the assignments it may refer to, as libcst's ``infer_accesses``.

        A name that starts a dotted access (``a.b.c``) is recorded under the longest dotted name
        the scope binds (``import a.b`` binds ``a.b``); a name inside a string annotation is
        recorded with the string as its node.
        """
        by_scope_and_name: dict[tuple[Scope, str], set[Access]] = defaultdict(set)
        for access, attribute, string in self.deferred:
            name = access.node.value
            if attribute is not None:
                for dotted, node in dotted_names(attribute):
                    if dotted in access.scope:
                        access.node = node
                        name = dotted
                        break
            if string is not None:
                access.node = string
            by_scope_and_name[(access.scope, name)].add(access)
            access.record_assignments(name)
            access.scope.record_access(name, access)
        for (scope, name), accesses in by_scope_and_name.items():
            for assignment in scope[name]:
                assignment.record_accesses(accesses)
        self.deferred = []


_HANDLERS = {
    cst.Name: _ScopeWalk.name,
    cst.Attribute: _ScopeWalk.attribute,
    cst.Subscript: _ScopeWalk.subscript,
    cst.Call: _ScopeWalk.call,
    cst.Arg: _ScopeWalk.arg,
    cst.Annotation: _ScopeWalk.annotation,
    cst.SimpleString: _ScopeWalk.simple_string,
    cst.ConcatenatedString: _ScopeWalk.concatenated_string,
    cst.Import: _ScopeWalk.import_,
    cst.ImportFrom: _ScopeWalk.import_,
    cst.FunctionDef: _ScopeWalk.function,
    cst.Lambda: _ScopeWalk.lambda_,
    cst.Param: _ScopeWalk.param,
    cst.ClassDef: _ScopeWalk.class_,
    cst.Global: _ScopeWalk.global_,
    cst.Nonlocal: _ScopeWalk.nonlocal_,
    cst.ListComp: _ScopeWalk.comprehension,
    cst.SetComp: _ScopeWalk.comprehension,
    cst.DictComp: _ScopeWalk.comprehension,
    cst.GeneratorExp: _ScopeWalk.comprehension,
    cst.For: _ScopeWalk.for_,
    cst.TypeAlias: _ScopeWalk.type_alias,
    cst.TypeVar: _ScopeWalk.type_var,
    cst.TypeVarTuple: _ScopeWalk.type_name,
    cst.ParamSpec: _ScopeWalk.type_name,
}
