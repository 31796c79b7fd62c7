"""numpy (measured with numpy 2.5.5): arrays, their attributes and whole-array reductions, dtypes
and their scalar types (``d.type``, a class), numpy bools from ``.any()``/``.all()``, the elements of ``np.unique``,
and ``np.finfo``/``np.iinfo`` objects (rejected; their ``.dtype`` a numpy.dtype, rejected; ``finfo(t).max`` a numpy
float of ``t``; ``iinfo(t).max`` and every int attribute of both a Python int).

JAX's ``_json_default`` converts ``np.integer``, ``np.floating`` and ``np.ndarray`` (with
``.tolist()``); ``numpy.bool`` and ``numpy.dtype`` are rejected, and none of them is a valid key
except the float subclass ``numpy.float64``.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, METHOD, CallRow, MemberRow, TypeRow

IMPORTS = "import numpy as np; import numpy"

_ARRAY_REDUCTIONS = ("sum", "mean", "std", "var", "prod")
#: the attributes of a finfo object that are floats of its type (numpy scalars; ml_dtypes scalars for an
#: ml_dtypes type), and those that are Python ints; the same for numpy's and ml_dtypes' finfo (measured)
FINFO_FLOATS = ("max", "min", "eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal", "resolution")
FINFO_INTS = ("bits", "precision", "maxexp", "minexp", "nmant", "nexp", "iexp", "machep", "negep")
#: the attributes of an iinfo object (numpy's or ml_dtypes') that are Python ints
IINFO_INTS = ("min", "max", "bits")

ROWS = (
    TypeRow("numpy.ndarray", T.NUMPY_ARRAY, "numpy.ndarray", "np.arange(3)",
            "an ndarray is converted with .tolist() by the default hook", annotation=()),
    TypeRow("numpy.ndarray of numbers", T.NUMPY_ARRAY.named("numpy.ndarray"), "numpy.ndarray",
            "np.unique(np.array([2, 1, 2]))", "np.unique of numbers is an ndarray of numpy numbers"),
    TypeRow("numpy.dtype", T.DTYPE, "numpy.dtype", "np.dtype('float32')",
            "a dtype is rejected by the default hook; str(d) or d.name is a str", annotation=("numpy.dtype",)),
    TypeRow("numpy.bool_", T.NUMPY_BOOL, "numpy.bool", "np.bool_(True)",
            "a numpy bool is not an np.integer: the default hook rejects it", exact=True),
    TypeRow("numpy number", T.NUMPY_NUMBER, "numpy.number", "np.array([1, 2]).sum()",
            "a numpy int or float scalar is converted by the default hook; not a key (only float64 is, a float subclass)"),
    TypeRow("numpy.float64", T.NUMPY_FLOAT64, "numpy.float64", "np.array([1]).mean()",
            "a float64 is a float subclass: it serializes and is a valid key", exact=True),
    TypeRow("numpy integer", T.NUMPY_INT, "numpy.integer", "np.unique(np.array([2, 1]))[0]",
            "a numpy integer is converted by the default hook but is not a valid key (TypeError)"),
    CallRow("numpy.dtype", "numpy.dtype", "np.dtype(...) is a dtype", "np.dtype('float32')"),
    CallRow("numpy.result_type", "numpy.dtype", "np.result_type(...) is a dtype", "np.result_type(np.float32, 1)"),
    CallRow("numpy.promote_types", "numpy.dtype", "np.promote_types(a, b) is a dtype",
            "np.promote_types('f4', 'i4')"),
    # (np.all/np.any are no rows: of a jax array they are a jax.Array; asynccfg_lint.analysis.infer.arrays._reduction)
    CallRow("numpy.unique", "numpy.ndarray of numbers", "np.unique(a) is an ndarray", "np.unique(np.array([2, 1, 2]))"),
    MemberRow("numpy.ndarray of numbers", ELEMENT, "", "numpy number",
              "an element of np.unique is a numpy scalar of its dtype (an np.int64 here)"),
    MemberRow("numpy.ndarray of numbers", METHOD, "tolist", "JSON value", "a.tolist() gives Python numbers"),
    *(MemberRow(owner, ATTRIBUTE, "dtype", "numpy.dtype", "a.dtype is a numpy.dtype")
      for owner in ("numpy.ndarray", "numpy.ndarray of numbers")),
    *(MemberRow(owner, ATTRIBUTE, "shape", "tuple of int", "a.shape is a tuple of ints")
      for owner in ("numpy.ndarray", "numpy.ndarray of numbers")),
    *(MemberRow("numpy.ndarray", ATTRIBUTE, name, "builtins.int", f"a.{name} is an int")
      for name in ("ndim", "size", "itemsize", "nbytes")),
    *(MemberRow("numpy.ndarray", METHOD, name, "numpy number", f"a.{name}() over the whole array is a numpy scalar",
                ("np.array([1, 2])." if name in ("sum", "prod") else "np.array([1.5], dtype=np.float32).") + name + "()")
      for name in _ARRAY_REDUCTIONS),
    *(MemberRow(owner, METHOD, name, "numpy.bool_", f"a.{name}() over the whole array is a numpy bool",
                "np.array([0, 1])." + name + "()" if owner == "numpy.ndarray" else None)
      for owner in ("numpy.ndarray", "numpy.bool_") for name in ("any", "all")),
    MemberRow("numpy.ndarray", METHOD, "tolist", "JSON value", "a.tolist() of a numeric array gives Python numbers",
              "np.array([1, 2]).tolist()"),
    TypeRow("numpy.finfo", T.OBJECT.named("numpy.finfo"), "numpy.finfo", "np.finfo(np.float32)",
            "a finfo object is rejected by the default hook"),
    CallRow("numpy.finfo", "numpy.finfo", "np.finfo(t) is a finfo object", "np.finfo(np.float32)"),
    *(MemberRow("numpy.finfo", ATTRIBUTE, name, "numpy number", f"np.finfo(t).{name} is a numpy float of t",
                "np.finfo(np.float32)." + name) for name in FINFO_FLOATS),
    *(MemberRow("numpy.finfo", ATTRIBUTE, name, "builtins.int", f"np.finfo(t).{name} is an int") for name in FINFO_INTS),
    MemberRow("numpy.finfo", ATTRIBUTE, "dtype", "numpy.dtype",
              "np.finfo(t).dtype is a numpy.dtype (Float32DType here): rejected, str(...) of it is a str"),
    TypeRow("numpy.iinfo", T.OBJECT.named("numpy.iinfo"), "numpy.iinfo", "np.iinfo(np.int32)",
            "an iinfo object is rejected by the default hook"),
    CallRow("numpy.iinfo", "numpy.iinfo", "np.iinfo(t) is an iinfo object", "np.iinfo(np.int32)"),
    *(MemberRow("numpy.iinfo", ATTRIBUTE, name, "builtins.int", f"np.iinfo(t).{name} is a Python int, not a numpy integer")
      for name in IINFO_INTS),
    MemberRow("numpy.iinfo", ATTRIBUTE, "dtype", "numpy.dtype", "np.iinfo(t).dtype is a numpy.dtype (Int32DType here)"),
    MemberRow("numpy.iinfo", ATTRIBUTE, "kind", "builtins.str", "np.iinfo(t).kind is a str ('i')"),
    MemberRow("numpy.dtype", ATTRIBUTE, "name", "builtins.str", "d.name is a str"),
    MemberRow("numpy.dtype", ATTRIBUTE, "kind", "builtins.str", "d.kind is a str"),
    MemberRow("numpy.dtype", ATTRIBUTE, "str", "builtins.str", "d.str is a str"),
    MemberRow("numpy.dtype", ATTRIBUTE, "itemsize", "builtins.int", "d.itemsize is an int"),
    TypeRow("numpy scalar type", T.TYPE_OBJECT.named("type object (a numpy scalar type)"), "builtins.type",
            "np.dtype('float32').type", "a numpy scalar type (a class) is rejected by the default hook and is no key",
            exact=True),
    MemberRow("numpy.dtype", ATTRIBUTE, "type", "numpy scalar type", "d.type is the scalar type, a class (numpy.float32)"),
    MemberRow("numpy scalar type", ATTRIBUTE, "__name__", "builtins.str", "t.__name__ is a str ('float32')"),
    MemberRow("numpy.bool_", METHOD, "item", "builtins.bool", "b.item() is a Python bool"),
    MemberRow("numpy number", METHOD, "item", "builtins.int|builtins.float",
              "x.item() of a numpy number is a Python int or float"),
    MemberRow("numpy integer", METHOD, "item", "builtins.int", "x.item() of a numpy integer is a Python int"),
)
