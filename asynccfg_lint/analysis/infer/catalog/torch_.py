"""torch — JUDGED BY READING, not executed: torch is too large to install here. Every row is marked
``by_reading`` (from the ``torch.Tensor`` documentation and ``torch/_tensor.py``); the verification
test lists them instead of running them, and ``docs/design.md`` names them.

A tensor is not an np.ndarray: JAX's default hook rejects it; ``.tolist()``/``.item()`` give Python
values; ``.shape``/``.size()`` are ``torch.Size``, a tuple subclass (it serializes).
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, METHOD, CallRow, MemberRow, TypeRow

IMPORTS = "import torch"

_TENSOR = "torch.Tensor"

ROWS = (
    TypeRow(_TENSOR, T.TORCH_TENSOR, "torch.Tensor", "torch.tensor([1, 2])", "a tensor is rejected by the default hook",
            by_reading=True, annotation=("torch.Tensor",)),
    TypeRow("torch.Size", T.TUPLE.named("torch.Size"), "torch.Size", "torch.tensor([1, 2]).shape",
            "torch.Size is a tuple subclass: it serializes", by_reading=True),
    TypeRow("torch.dtype", T.rejected("torch.dtype", "use str(x)"), "torch.dtype", "torch.float32",
            "a torch.dtype is rejected by the default hook", by_reading=True),
    TypeRow("torch.device", T.rejected("torch.device", "use str(x)"), "torch.device", "torch.device('cpu')",
            "a torch.device is rejected by the default hook", by_reading=True),
    CallRow("torch.device", "torch.device", "torch.device(...) is a device", "torch.device('cpu')", by_reading=True),
    CallRow("torch.cuda.device_count", "builtins.int", "torch.cuda.device_count() is an int",
            "torch.cuda.device_count()", by_reading=True),
    MemberRow(_TENSOR, METHOD, "tolist", "JSON value", "t.tolist() gives Python numbers", by_reading=True),
    MemberRow(_TENSOR, ATTRIBUTE, "shape", "torch.Size", "t.shape is a torch.Size", by_reading=True),
    MemberRow(_TENSOR, METHOD, "size", "torch.Size", "t.size() is a torch.Size", by_reading=True),
    MemberRow(_TENSOR, ATTRIBUTE, "dtype", "torch.dtype", "t.dtype is a torch.dtype", by_reading=True),
    MemberRow(_TENSOR, ATTRIBUTE, "device", "torch.device", "t.device is a torch.device", by_reading=True),
    MemberRow(_TENSOR, METHOD, "numel", "builtins.int", "t.numel() is an int", by_reading=True),
    MemberRow(_TENSOR, METHOD, "dim", "builtins.int", "t.dim() is an int", by_reading=True),
    MemberRow(_TENSOR, ATTRIBUTE, "ndim", "builtins.int", "t.ndim is an int", by_reading=True),
    MemberRow(_TENSOR, METHOD, "numpy", "numpy.ndarray", "t.numpy() is an ndarray", by_reading=True),
    *(MemberRow(_TENSOR, METHOD, name, _TENSOR, f"t.{name}() is a tensor", by_reading=True)
      for name in ("float", "int", "long", "bool", "cpu", "detach", "clone", "contiguous")),
    MemberRow(_TENSOR, METHOD, "to", _TENSOR, "t.to(...) is a tensor", "{}.to('cpu')", by_reading=True,
              with_arguments=True),
)
