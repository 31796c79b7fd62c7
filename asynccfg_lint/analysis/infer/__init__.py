"""What a value *is*: an abstract type model and a declarative catalog of library types.

:mod:`asynccfg_lint.analysis.infer.model` holds the model (abstract types, their members, and the
lattice of what inference knows about a value: one known type, a union, unknown);
:mod:`asynccfg_lint.analysis.infer.catalog` holds one table per library, every row naming the runtime
fact it models and an expression that builds a value of it, which ``tests/test_catalog.py``
runs on the installed library and through JAX's real serializer.

The classifier's inference is split here by concern, as mixins of
:class:`~asynccfg_lint.analysis.classifier.ValueClassifier`: :mod:`~asynccfg_lint.analysis.infer.walk` (the walk over
expressions), :mod:`~asynccfg_lint.analysis.infer.calls`, :mod:`~asynccfg_lint.analysis.infer.arrays` (numpy, jax,
torch), :mod:`~asynccfg_lint.analysis.infer.classes` (classes, enums, annotations) and
:mod:`~asynccfg_lint.analysis.infer.relocation` (other modules' values); :mod:`~asynccfg_lint.analysis.infer.folding`
folds number constants and :mod:`~asynccfg_lint.analysis.infer.values` holds what is inferred.
"""
