"""Mutations of a traced dict before its use: ``cfg[k] = v``, ``cfg.update(...)``,
``cfg.setdefault(k, v)`` (only where ``k`` may be absent), a read of a ``defaultdict``'s missing key, and the
removals ``del cfg[k]`` / ``cfg.pop(k)`` that run on every path from the set value to the use (a later
iteration of a loop sees what an earlier one added); and what is added to a list display before its use."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import Access, ComprehensionScope

from asynccfg_lint.analysis.entries import Entry, TracedDict
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.resolution import (
    Binding,
    bindings_of_name,
    enclosing,
    inside,
    qualified_names,
    reaching,
    starts_before,
    string_value,
)


class DictMutations:
    """Mixed into :class:`~asynccfg_lint.analysis.tracer.DictTracer`, which provides ``parsed`` and ``_dict_call``."""

    parsed: ParsedModule

    def _dict_call(self, call: cst.Call, depth: int) -> TracedDict:
        raise NotImplementedError  # the tracer's

    def surely_holds(self, expr: cst.BaseExpression, key: str, depth: int = 0) -> bool:
        raise NotImplementedError  # the tracer's

    def _is_unconditional_before(self, statement: cst.CSTNode, use: cst.CSTNode) -> bool:
        """True when ``statement`` runs on every path to ``use``: its block also encloses ``use`` (a one-line
        ``if c: del cfg["k"]`` is a block of its own)."""
        block = enclosing(self.parsed, statement, _BLOCKS)
        ancestor = self.parsed.parents.get(use)
        while ancestor is not None and ancestor is not block:
            ancestor = self.parsed.parents.get(ancestor)
        return ancestor is block

    def removes(self, removal: cst.CSTNode, entry: cst.CSTNode, use: cst.CSTNode | None) -> bool:
        """True when the removal ``removal`` (before ``use``; ``None``: the module's end) discards what was set at
        ``entry`` before it: it runs on every path to ``use`` (at the module's end: it is a statement of the module's
        body), or on every path from ``entry`` on (its block also encloses ``entry``: ``if c: cfg |= {"k": v};
        del cfg["k"]``)."""
        on_every_path = enclosing(self.parsed, removal, _BLOCKS) is self.parsed.module if use is None \
            else self._is_unconditional_before(removal, use)
        return starts_before(self.parsed, entry, removal) and (
            on_every_path or self._is_unconditional_before(removal, entry))

    def removals_before(self, use: cst.Name, after: cst.CSTNode | None = None) -> frozenset[str]:
        """The literal keys removed from the dict ``use`` names on every path to ``use`` (``del cfg["k"]``,
        ``cfg.pop("k", None)``), by removals that start after ``after`` when it is given."""
        bindings = bindings_of_name(self.parsed, use)
        if not bindings or any(b.augmented is not None or b.assignment is None for b in bindings):
            return frozenset()
        _, removals = self._mutations(use, reaching(self.parsed, use, bindings), 0)
        return frozenset(key for key, node in removals if self._is_unconditional_before(node, use)
                         and (after is None or starts_before(self.parsed, after, node)))

    def kept(self, entries: tuple[Entry, ...], removals: list[tuple[str, cst.CSTNode]],
             use: cst.CSTNode | None) -> tuple[Entry, ...]:
        """The ``entries`` that no removal of :meth:`_mutations` discards before ``use`` (:meth:`removes`)."""
        return tuple(entry for entry in entries
                     if not any(entry.key == key and self.removes(removal, entry.anchor, use) for key, removal in removals))

    def _branch_removals(self, removals: list[tuple[str, cst.CSTNode]]) -> list[tuple[str, cst.CSTNode]]:
        """The ``if`` statements with an ``else`` (also through ``elif``) whose every branch removes or replaces
        a key of ``removals`` (``if c: cfg["k"] = v`` / ``else: del cfg["k"]``), each as a removal of that
        key: what was set before the ``if`` is gone after it on every path. A branch removes the key when a
        removal runs on every path through it (in its own block), or an ``if`` in it does so."""
        parsed = self.parsed
        found: list[tuple[str, cst.CSTNode]] = []
        for key in dict.fromkeys(key for key, _ in removals):
            nodes = [node for k, node in removals if k == key]
            blocks = {id(enclosing(parsed, node, _BLOCKS)) for node in nodes}
            memo: dict[int, bool] = {}

            def covered(statement: cst.If) -> bool:
                if id(statement) not in memo:
                    orelse = statement.orelse
                    memo[id(statement)] = branch(statement.body) and (
                        isinstance(orelse, cst.If) and covered(orelse)
                        or isinstance(orelse, cst.Else) and branch(orelse.body))
                return memo[id(statement)]

            def branch(block: cst.BaseSuite) -> bool:
                return id(block) in blocks or isinstance(block, cst.IndentedBlock) and any(
                    isinstance(s, cst.If) and covered(s) for s in block.body)

            candidates: dict[int, cst.If] = {}
            for node in nodes:  # the ifs around a removal, up to its function
                ancestor = parsed.parents.get(node)
                while ancestor is not None and not isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                    # (an `elif` is a branch of the `if` it continues, not a statement after that if's
                    # earlier branches: only a whole if statement removes what came before it)
                    if isinstance(ancestor, cst.If) and not isinstance(parsed.parents.get(ancestor), cst.If):
                        candidates[id(ancestor)] = ancestor
                    ancestor = parsed.parents.get(ancestor)
            found += [(key, statement) for statement in candidates.values() if covered(statement)]
        return found

    def _mutations(
        self, use: cst.Name | None, bindings: list[Binding], depth: int, name: str = ""
    ) -> tuple[TracedDict, list[tuple[str, cst.CSTNode]]]:
        """Mutations of the binding before ``use`` (``None``: once the module has run; ``name`` is then the name's).

        Returns:
            the entries added by ``cfg[k] = v`` (also ``cfg.__setitem__(k, v)``), ``cfg.update(...)``,
            ``cfg.setdefault(k, v)``, and
            the ``(key, node)`` of each literal-key removal (``del cfg[k]``, ``cfg.pop(k)``) before ``use``:
            entries for that key set before the removal are gone where it :meth:`removes` them.
        """
        parsed = self.parsed
        removals: list[tuple[str, cst.CSTNode]] = []
        entries: list[Entry] = []
        complete = True
        opaque: list[cst.BaseExpression] = []
        assignments = {id(b.assignment) for b in bindings}
        defaults: list[tuple[Entry, cst.Call, frozenset[int]]] = []  # cfg.setdefault(k, v): written only when k may be absent
        writes: list[tuple[str, cst.CSTNode, frozenset[int]]] = []  # cfg[k] = v, cfg.setdefault(k, v): k is present after
        removed: set[str] = set()  # the literal keys any del/pop may take out
        emptied = False  # cfg.clear() / cfg.popitem(): any key may be gone
        factories = [f for f in (self._default_factory(b) for b in bindings) if f is not None]
        name = use.value if use is not None else name
        for access, elsewhere in self._mutation_accesses(use, bindings):
            node = access.node
            if node is use or not isinstance(node, cst.Name) or node.value != name:
                continue
            if not any(id(r) in assignments for r in access.referents):
                continue
            referents = frozenset(id(r) for r in access.referents)
            # a mutation in another function may run before the use whenever it is called: what it adds
            # may be there, what it takes out may still be there
            before = elsewhere or use is None or starts_before(parsed, node, use)
            if not before and not self._loops_back(node, use, bindings):
                continue
            ordered = before and not elsewhere
            parent = parsed.parents.get(node)
            if isinstance(parent, cst.Subscript) and parent.value is node:
                replaced = self._replaced_key(parent)
                if replaced is not None and ordered:
                    removals.append((replaced, parent))
                if replaced is not None and self._deletes(parent):
                    removed.add(replaced)
                target = parsed.parents.get(parent)
                statement = parsed.parents.get(target) if isinstance(target, cst.AssignTarget) else None
                indices = [element.slice for element in parent.slice]
                if factories and statement is None and not self._deletes(parent) and len(indices) == 1 \
                        and isinstance(indices[0], cst.Index):  # layers["a"].add(1): a new value of the factory
                    key = indices[0].value
                    entries += [Entry(string_value(key), key, None, annotation=factory) for factory in factories]
                if isinstance(statement, cst.Assign) and all(isinstance(i, cst.Index) for i in indices):
                    if len(indices) == 1:
                        entries.append(Entry(string_value(indices[0].value), indices[0].value, statement.value))
                        if string_value(indices[0].value) is not None and not elsewhere:
                            writes.append((string_value(indices[0].value), statement, referents))
                    else:  # cfg[a, b] = v: the key is the tuple (a, b)
                        entries.append(Entry(None, indices[0].value, statement.value, tuple_key=True))
            elif isinstance(parent, cst.Attribute) and parent.value is node:
                call = parsed.parents.get(parent)
                if not isinstance(call, cst.Call) or call.func is not parent:
                    continue
                method = parent.attr.value
                if method == "update":
                    inner = self._dict_call(call, depth + 1)
                    entries.extend(inner.entries)
                    complete &= inner.complete
                    opaque.extend(inner.opaque)
                elif method == "setdefault" and len(call.args) == 2:
                    key, value = call.args[0].value, call.args[1].value
                    defaults.append((Entry(string_value(key), key, value), call, referents))
                    if string_value(key) is not None and not elsewhere:
                        writes.append((string_value(key), call, referents))
                elif method == "__setitem__" and len(call.args) == 2 and not any(a.star or a.keyword for a in call.args):
                    key, value = call.args[0].value, call.args[1].value  # as cfg[k] = v: replaces an earlier value
                    entries.append(Entry(string_value(key), key, value))
                    if ordered and string_value(key) is not None:
                        removals.append((string_value(key), call))
                elif method == "pop" and call.args and (popped := self._popped_keys(call.args[0].value)):
                    for key in popped:  # cfg.pop("k"), or each k of `{k: cfg.pop(k) for k in HOST_ONLY}`
                        removed.add(key)
                        if ordered:
                            removals.append((key, call))
                elif method in ("clear", "popitem"):
                    emptied = True
        entries += [entry for entry, call, referents in defaults
                    if entry.key is None or entry.key in removed or emptied
                    or not self._made_with(bindings, entry.key, depth) and not any(
                        key == entry.key and node is not call and seen == referents and starts_before(parsed, node, call)
                        and self._is_unconditional_before(node, call) for key, node, seen in writes)]
        return TracedDict(tuple(entries), complete, tuple(opaque)), removals + self._branch_removals(removals)

    def _popped_keys(self, key: cst.BaseExpression) -> list[str]:
        """The literal keys a ``pop(key)`` takes out: ``key`` itself, or each string of the constant tuple or list a
        comprehension's target ``key`` runs over (``for k in ("trace", "origin")``, a module's constant of
        strings, also imported); none for anything else."""
        literal = string_value(key)
        if literal is not None:
            return [literal]
        bindings = bindings_of_name(self.parsed, key) if isinstance(key, cst.Name) else None
        node = bindings[0].assignment.node if bindings and len(bindings) == 1 and bindings[0].assignment else None
        loop = self.parsed.parents.get(node) if node is not None else None
        if not isinstance(loop, cst.CompFor) or loop.target is not node:
            return []
        return self._string_constants(loop.iter, 0)

    def _string_constants(self, expr: cst.BaseExpression, depth: int, home: ParsedModule | None = None) -> list[str]:
        """The strings of a tuple or list display of string literals, also through a name bound once to one (in
        ``home``, else this module) or an imported constant; none for anything else."""
        home = home or self.parsed
        if isinstance(expr, (cst.Tuple, cst.List)):
            values = [string_value(e.value) for e in expr.elements]
            return [v for v in values if v is not None] if all(v is not None for v in values) else []
        if depth > 3 or not isinstance(expr, (cst.Name, cst.Attribute)):
            return []
        bindings = bindings_of_name(home, expr) if isinstance(expr, cst.Name) else None
        if bindings and len(bindings) == 1 and bindings[0].value is not None and bindings[0].augmented is None:
            return self._string_constants(bindings[0].value, depth + 1, home)
        workspace = getattr(self, "workspace", None)
        found = workspace.foreign(home, expr) if workspace is not None else None
        if found and len(found) == 1 and found[0].binding.value is not None:
            return self._string_constants(found[0].binding.value, depth + 1, found[0].home)
        return []

    def _mutation_accesses(self, use: cst.Name | None, bindings: list[Binding]) -> list[tuple[Access, bool]]:
        """The accesses that may mutate what ``bindings`` give ``use`` (``None``: the module's end), each with
        whether it is *elsewhere*.

        In the scope of a binding or of ``use`` an access runs in order with ``use`` (before it, or after it
        in a loop); any other access of the same assignment is in another function (or a lambda or
        comprehension) and may run before ``use`` whenever that is called: ``def set_default(k, v):
        DEFAULTS[k] = v`` writes into the module's ``DEFAULTS`` a rule copies (libcst's
        ``Assignment.references``: every access that may read the assignment, in any scope).
        """
        ordered = {id(b.assignment.scope): b.assignment.scope for b in bindings}
        use_scope = self.parsed.scopes.get(use) if use is not None else None
        if use_scope is not None:
            ordered.setdefault(id(use_scope), use_scope)
        found: list[tuple[Access, bool]] = [(access, False) for scope in ordered.values() for access in scope.accesses]
        listed = {id(access) for access, _ in found}
        for binding in bindings:
            for access in binding.assignment.references:
                if id(access) not in listed and id(access.scope) not in ordered and not self._never_called(access.node):
                    listed.add(id(access))
                    found.append((access, not _run_in(access.scope, ordered)))
        return found

    def after_import(self, bindings: list[Binding], traced: TracedDict, depth: int) -> TracedDict:
        """``traced``, what the module-level ``bindings`` of a dict give it, with every change the module makes to it:
        what another module reads once the module has run (``CFG["mode"] = Mode.PUSH`` at the top level adds an
        entry, ``CFG["mode"] = CFG["mode"].value`` replaces one; a function's writes may be there)."""
        names = {b.assignment.name for b in bindings if b.assignment is not None}
        if len(names) != 1:
            return traced
        mutations, removals = self._mutations(None, bindings, depth, names.pop())
        return TracedDict(self.kept(traced.entries + mutations.entries, removals, None),
                          traced.complete and mutations.complete, traced.opaque + mutations.opaque)

    def _never_called(self, node: cst.CSTNode) -> bool:
        """True when ``node`` is in an undecorated private function (``_name``) its scope binds once and nothing refers to: code
        no call of this module runs, and no other module should (``def _reset(): DEFAULTS["k"] = v`` never called)."""
        function = enclosing(self.parsed, node, (cst.FunctionDef,))
        if not isinstance(function, cst.FunctionDef) or not function.name.value.startswith("_") or function.decorators:
            return False  # (a decorator may keep the function where something calls it)
        scope = self.parsed.scopes.get(function)
        assignments = list(scope.assignments[function.name.value]) if scope is not None else []
        return len(assignments) == 1 and not assignments[0].references

    def _made_with(self, bindings: list[Binding], key: str, depth: int) -> bool:
        """True when every binding makes the dict with a display or a builder's call that surely holds ``key``
        (:meth:`~asynccfg_lint.analysis.tracer.DictTracer.surely_holds`: ``{"mode": "push", ...}``, ``base()``
        returning one): the key is present, so ``cfg.setdefault(key, v)`` leaves its value and ``v`` never
        reaches the config (``dict.setdefault`` writes only a missing key)."""
        return bool(bindings) and all(b.augmented is None and b.value is not None
                                      and self.surely_holds(b.value, key, depth + 1) for b in bindings)

    def _default_factory(self, binding: Binding) -> cst.BaseExpression | None:
        """The default factory of ``binding``'s ``collections.defaultdict(factory, ...)`` when it names a type
        (``set``, ``list``, a class): reading a missing key stores ``factory()`` under it, a value of that
        type; ``None`` for another binding or factory (a lambda, ``None``)."""
        call = binding.value
        if not isinstance(call, cst.Call) or not call.args or call.args[0].keyword is not None or call.args[0].star:
            return None
        factory = call.args[0].value
        if not isinstance(factory, (cst.Name, cst.Attribute)) or "collections.defaultdict" not in qualified_names(self.parsed, call.func):
            return None
        return None if isinstance(factory, cst.Name) and factory.value == "None" else factory

    def _deletes(self, subscript: cst.Subscript) -> bool:
        """True when ``subscript`` is a target of ``del``."""
        parent = self.parsed.parents.get(subscript)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            parent = self.parsed.parents.get(parent)
        return isinstance(parent, cst.Del)

    def _loops_back(self, mutation: cst.CSTNode, use: cst.CSTNode, bindings: list[Binding]) -> bool:
        """True when a loop around ``mutation`` also runs ``use`` and binds none of ``bindings``: a later
        iteration's use sees what an earlier one added (``for ...: emit(cfg); cfg[k] = v``)."""
        loop = enclosing(self.parsed, mutation, (cst.For, cst.While, cst.FunctionDef))
        while isinstance(loop, (cst.For, cst.While)):
            if inside(self.parsed, use, loop):
                return not any(b.assignment is not None and inside(self.parsed, b.assignment.node, loop)
                               for b in bindings)
            loop = enclosing(self.parsed, loop, (cst.For, cst.While, cst.FunctionDef))
        return False

    def _replaced_key(self, subscript: cst.Subscript) -> str | None:
        """The literal key whose earlier value ``del cfg["k"]`` or ``cfg["k"] = v`` discards, else ``None``."""
        parent = self.parsed.parents.get(subscript)
        while isinstance(parent, (cst.Element, cst.Tuple, cst.List)):
            parent = self.parsed.parents.get(parent)
        if not isinstance(parent, (cst.Del, cst.AssignTarget)) or len(subscript.slice) != 1:
            return None
        index = subscript.slice[0].slice
        return string_value(index.value) if isinstance(index, cst.Index) else None


def list_additions(parsed: ParsedModule, use: cst.Name, binding: Binding) -> tuple[cst.BaseExpression, ...]:
    """The values added before ``use`` to the list ``binding`` gives it (``big = []``): ``big.append(v)``,
    ``big.insert(i, v)``, the elements of a display in ``big.extend([...])`` (on any path: each may be in the
    list the use sees). ``()`` when there are none."""
    assignment = binding.assignment
    text = parsed.text
    if assignment is None or not any(f"{use.value}.{method}(" in text for method in ("append", "insert", "extend")):
        return ()
    added: list[cst.BaseExpression] = []
    for access in assignment.scope.accesses:
        node = access.node
        if node is use or not isinstance(node, cst.Name) or node.value != use.value \
                or not any(r is assignment for r in access.referents) or not starts_before(parsed, node, use):
            continue
        method = parsed.parents.get(node)
        call = parsed.parents.get(method)
        if not isinstance(method, cst.Attribute) or method.value is not node or not isinstance(call, cst.Call) \
                or call.func is not method or any(a.keyword is not None or a.star for a in call.args):
            continue
        name, args = method.attr.value, [a.value for a in call.args]
        if name == "append" and len(args) == 1 or name == "insert" and len(args) == 2:
            added.append(args[-1])
        elif name == "extend" and len(args) == 1 and isinstance(args[0], (cst.List, cst.Tuple)):
            added += [e.value for e in args[0].elements if not isinstance(e, cst.StarredElement)]
    return tuple(added)


#: the methods that change a list in place
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "__setitem__",
                            "__delitem__", "__iadd__"})


def list_mutated(parsed: ParsedModule, binding: Binding) -> bool:
    """True when some use of the name ``binding`` binds, anywhere (also in nested functions), may change the list in place
    (a mutating method, ``name[i] = v``, ``del name[i]``, ``name += ...``), or the name is bound again:
    then an element read by position is not known from the display."""
    assignment = binding.assignment
    if assignment is None:
        return True
    name = assignment.name
    if len(assignment.scope.assignments[name]) != 1:
        return True
    for access in assignment.references:  # (also the uses in nested functions: a module constant's)
        parent = parsed.parents.get(access.node)
        if isinstance(parent, cst.Attribute) and parent.value is access.node and parent.attr.value in _LIST_MUTATORS:
            return True
        if isinstance(parent, cst.Subscript) and parent.value is access.node:
            target = parsed.parents.get(parent)
            while isinstance(target, (cst.Element, cst.Tuple, cst.List)):
                target = parsed.parents.get(target)
            if isinstance(target, (cst.AssignTarget, cst.Del, cst.AugAssign)):
                return True
    return False


#: the blocks a statement runs in: a branch's indented block, a one-line suite, the module
_BLOCKS = (cst.IndentedBlock, cst.SimpleStatementSuite, cst.Module)


def _run_in(scope: object, ordered: dict[int, object]) -> bool:
    """Whether code of ``scope`` runs in order with one of the ``ordered`` scopes: ``scope`` is a list, set or dict
    comprehension (evaluated where it is written, unlike a generator or a lambda) inside one of them."""
    while isinstance(scope, ComprehensionScope) and isinstance(scope.node, (cst.ListComp, cst.SetComp, cst.DictComp)):
        scope = scope.parent
        if id(scope) in ordered:
            return True
    return False
