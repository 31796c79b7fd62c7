"""What the inference knows about one value (:class:`Inferred`) and where it comes from (:class:`Origin`).

The classifier's walk (:mod:`asynccfg_lint.analysis.infer.walk` and the modules mixed in beside it)
produces these; the checks of :mod:`asynccfg_lint.analysis.classifier` read them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import Known
from asynccfg_lint.analysis.parse import ParsedModule
from asynccfg_lint.analysis.entries import TracedDict


@dataclass(frozen=True)
class Inferred:
    """What the classifier knows about one value.

    Attributes:
        type: the :class:`~asynccfg_lint.analysis.type_verdicts.PyType`, or ``None`` when unknown.
        nonfinite: the value is NaN or an infinity.
        beyond_int64: a number literal XLA cannot read as a 64-bit integer
            (:func:`~asynccfg_lint.analysis.jax_facts.reads_as_int64`; it aborts on such ids).
        elements: element expressions of a literal container, checked one by one.
        iterated: for a list or tuple made by iterating an Enum class (``list(Mode)``, ``[*Mode]``), the
            iterated expressions: each element is one of their members (checked as the elements are).
        fields: for a tuple of an object's field values (``dataclasses.astuple(x)``), the fields in
            order, as ``dataclasses.asdict(x)`` gives them: each value is an element.
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
        dispatched: the value is ``np.<dispatched>(x)`` (or arithmetic on it) for an ``x`` of unknown
            type: a numpy scalar when ``x`` is a numpy array or a list, but what ``x``'s own method
            returns otherwise (a jax.Array for a jax array: :data:`~asynccfg_lint.analysis.type_verdicts.NUMPY_DISPATCHED_REDUCTIONS`).
        model: the value's type in the catalog (:mod:`asynccfg_lint.analysis.infer`), when the catalog
            produced it; its members (``ctx.avals_in[0].dtype``) are looked up there.
        member_of: for an enum member (``Mode.FAST``, of this or another project module), its class:
            what an ``isinstance`` test of the value compares (``infer.walk``'s narrowing).
        empty: for a numpy array, it is known to hold no element (``np.array([], dtype=np.float64)``):
            its ``mean()``, ``std()`` and ``var()`` are NaN.
        number: for a Python int or float whose value the code shows (a literal, ``float("1e308")``,
            arithmetic of those), that value: float arithmetic is folded as Python computes it
            (:func:`~asynccfg_lint.analysis.infer.folding.float_operation`); for a numpy scalar of known value
            (``np.float32(1e39)``, ``np.finfo(np.float32).max``), that numpy scalar, whose arithmetic numpy computes
            (:func:`~asynccfg_lint.analysis.infer.folding.numpy_operation`).
    """

    type: T.PyType | None
    nonfinite: bool = False
    beyond_int64: bool = False
    elements: tuple[cst.BaseExpression, ...] = ()
    iterated: tuple[cst.BaseExpression, ...] = ()
    fields: TracedDict | None = None
    traced: TracedDict | None = None
    member_value: cst.BaseExpression | None = None
    cls: cst.ClassDef | None = None
    ndim: int | None = None
    item: T.PyType | None = None
    numpy_scalar: bool = False
    dispatched: str | None = None
    model: Known | None = None
    member_of: cst.ClassDef | None = None
    number: object | None = None
    empty: bool = False


UNKNOWN = Inferred(None)


#: what :meth:`ValueClassifier._literal` returns for an expression that is not a literal
NOT_LITERAL = object()


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
