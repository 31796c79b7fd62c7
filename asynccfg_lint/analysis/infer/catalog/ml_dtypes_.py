"""ml_dtypes (measured with ml_dtypes 0.6.0): its scalars are ``numpy.generic`` but not
``np.floating``/``np.integer``, so JAX's default hook rejects them; ``finfo(...).max`` is such a scalar.
``jnp.finfo``/``jnp.iinfo`` are ``ml_dtypes.finfo``/``ml_dtypes.iinfo`` (measured with ml_dtypes 0.7.0, as
installed beside jax 0.12.0.1): of a numpy float type the finfo is a ``numpy.finfo`` subclass with numpy floats.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.catalog.numpy_ import FINFO_FLOATS, FINFO_INTS, IINFO_INTS
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, CallRow, MemberRow, TypeRow

IMPORTS = "import ml_dtypes; import numpy as np; import jax.numpy as jnp"

_FLOATS = ("bfloat16", "float8_e4m3fn", "float8_e5m2")
_INTS = ("int4", "uint4")

ROWS = (
    *(TypeRow(f"ml_dtypes.{name}", T.rejected(f"ml_dtypes.{name}", "use float(...)"), f"ml_dtypes.{name}",
              f"ml_dtypes.{name}(1.5)", f"an ml_dtypes.{name} scalar is not an np.floating: the default hook rejects it",
              exact=True, annotation=(f"ml_dtypes.{name}",))
      for name in _FLOATS),
    *(TypeRow(f"ml_dtypes.{name}", T.rejected(f"ml_dtypes.{name}", "use int(...)"), f"ml_dtypes.{name}",
              f"ml_dtypes.{name}(3)", f"an ml_dtypes.{name} scalar is not an np.integer: the default hook rejects it",
              exact=True, annotation=(f"ml_dtypes.{name}",))
      for name in _INTS),
    *(CallRow(f"ml_dtypes.{name}", f"ml_dtypes.{name}", f"ml_dtypes.{name}(x) is a scalar", f"ml_dtypes.{name}(1)")
      for name in _FLOATS + _INTS),
    TypeRow("ml_dtypes.finfo of bfloat16", T.OBJECT.named("ml_dtypes.finfo"), "numpy.finfo",
            "ml_dtypes.finfo(ml_dtypes.bfloat16)", "a finfo object is rejected by the default hook"),
    *(CallRow(finfo, "ml_dtypes.finfo of bfloat16", f"{finfo}(bfloat16) is a finfo object of bfloat16",
              f"{finfo}({argument})".replace("jax.numpy.", "jnp.").replace("numpy.", "np."), argument=argument)
      for finfo in ("ml_dtypes.finfo", "jax.numpy.finfo")  # (numpy.finfo(bfloat16) raises ValueError)
      for argument in ("ml_dtypes.bfloat16", "jax.numpy.bfloat16")),
    *(MemberRow("ml_dtypes.finfo of bfloat16", ATTRIBUTE, name, "ml_dtypes.bfloat16",
                f"finfo(bfloat16).{name} is a bfloat16 scalar, which the default hook rejects") for name in FINFO_FLOATS),
    *(MemberRow("ml_dtypes.finfo of bfloat16", ATTRIBUTE, name, "builtins.int", f"finfo(bfloat16).{name} is an int")
      for name in FINFO_INTS),
    MemberRow("ml_dtypes.finfo of bfloat16", ATTRIBUTE, "dtype", "numpy.dtype",
              "finfo(bfloat16).dtype is the bfloat16 numpy.dtype: rejected, its .name a str"),
    # jnp.finfo is ml_dtypes.finfo: of a numpy float type it is an ml_dtypes._finfo.finfo, a numpy.finfo
    # subclass whose .max is a numpy float of that type (np.float32 of jnp.float32)
    *(CallRow(finfo, "numpy.finfo", f"{finfo}({argument}) is a numpy.finfo (ml_dtypes' subclass of it)",
              f"{finfo}({argument})".replace("jax.numpy.", "jnp.").replace("numpy.", "np."), argument=argument)
      for finfo in ("ml_dtypes.finfo", "jax.numpy.finfo")
      for argument in (f"{module}.{name}" for module in ("numpy", "jax.numpy") for name in ("float16", "float32", "float64"))),
    # jnp.iinfo is ml_dtypes.iinfo, of any int type its own class (no numpy.iinfo subclass)
    TypeRow("ml_dtypes.iinfo", T.OBJECT.named("ml_dtypes.iinfo"), "ml_dtypes._iinfo.iinfo", "ml_dtypes.iinfo(ml_dtypes.int4)",
            "an ml_dtypes iinfo object (also jnp.iinfo's) is rejected by the default hook"),
    *(CallRow(iinfo, "ml_dtypes.iinfo", f"{iinfo}(t) is an ml_dtypes iinfo object",
              f"{iinfo}(np.int32)".replace("jax.numpy.", "jnp.")) for iinfo in ("ml_dtypes.iinfo", "jax.numpy.iinfo")),
    *(MemberRow("ml_dtypes.iinfo", ATTRIBUTE, name, "builtins.int", f"iinfo(t).{name} is a Python int") for name in IINFO_INTS),
    MemberRow("ml_dtypes.iinfo", ATTRIBUTE, "dtype", "numpy.dtype", "iinfo(t).dtype is a numpy.dtype (int4's here)"),
    MemberRow("ml_dtypes.iinfo", ATTRIBUTE, "kind", "builtins.str", "iinfo(t).kind is a str ('i')"),
)
