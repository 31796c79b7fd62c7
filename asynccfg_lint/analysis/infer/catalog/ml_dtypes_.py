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


def _finfo_rows(name: str) -> tuple[TypeRow | CallRow | MemberRow, ...]:
    """``finfo(<ml_dtypes float>)``: a finfo object whose float members are scalars of that type."""
    owner = f"ml_dtypes.finfo of {name}"
    return (
        TypeRow(owner, T.OBJECT.named("ml_dtypes.finfo"), "numpy.finfo",
                f"ml_dtypes.finfo(ml_dtypes.{name})", "a finfo object is rejected by the default hook"),
        *(CallRow(finfo, owner, f"{finfo}({name}) is a finfo object of {name}",
                  f"{finfo}({argument})".replace("jax.numpy.", "jnp.").replace("numpy.", "np."), argument=argument)
          for finfo in ("ml_dtypes.finfo", "jax.numpy.finfo")  # (numpy.finfo(bfloat16) raises ValueError)
          for argument in (f"ml_dtypes.{name}", f"jax.numpy.{name}")),
        *(MemberRow(owner, ATTRIBUTE, member, f"ml_dtypes.{name}",
                    f"finfo({name}).{member} is a {name} scalar, which the default hook rejects")
          for member in FINFO_FLOATS),
        *(MemberRow(owner, ATTRIBUTE, member, "builtins.int", f"finfo({name}).{member} is an int")
          for member in FINFO_INTS),
        MemberRow(owner, ATTRIBUTE, "dtype", "numpy.dtype",
                  f"finfo({name}).dtype is the {name} numpy.dtype: rejected, its .name a str"),
    )


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
    *(row for name in _FLOATS for row in _finfo_rows(name)),
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
