"""ml_dtypes (measured with ml_dtypes 0.6.0): its scalars are ``numpy.generic`` but not
``np.floating``/``np.integer``, so JAX's default hook rejects them; ``finfo(...).max`` is such a scalar.
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
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
    MemberRow("ml_dtypes.finfo of bfloat16", ATTRIBUTE, "max", "ml_dtypes.bfloat16",
              "finfo(bfloat16).max is a bfloat16 scalar, which the default hook rejects"),
    MemberRow("ml_dtypes.finfo of bfloat16", ATTRIBUTE, "bits", "builtins.int", "finfo(bfloat16).bits is an int"),
)
