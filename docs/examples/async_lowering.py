"""A custom async all-gather lowering rule, as an extender of JAX might write it.

Every fault here passes `python -c "import ..."` and unit tests of the Python code; each one
fails only when a jitted function using it is lowered or compiled.
"""
import enum
import math

import numpy as np
import jax.numpy as jnp
from jax._src.interpreters import mlir
from jax._src.lax import parallel
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import hlo


class Schedule(enum.Enum):
    RING = "ring"
    TREE = "tree"


class Priority(enum.IntEnum):
    LOW = 0
    HIGH = 1


def _channel():
    return hlo.ChannelHandle.get(mlir.COLLECTIVE_CHANNEL_ID, mlir.DEVICE_TO_DEVICE_TYPE)


def _base_config(axis_size):
    return {
        "replica_groups": [list(range(axis_size))],
        "schedule": Schedule.RING,
        "priority": Priority.HIGH,
    }


def my_all_gather_lowering(ctx, x, *, axis_size, all_gather_dimension: int, overlap: np.bool_):
    cfg = _base_config(axis_size)
    cfg["all_gather_dimension"] = all_gather_dimension
    cfg["overlap"] = overlap
    cfg["chunk_bytes"] = jnp.int32(1 << 20)
    cfg["timeout_s"] = math.inf
    cfg.update(channel_handle=_channel(), use_global_device_ids=True)
    return parallel._emit_async_start_custom_call("all-gather-start", ctx, x, cfg)


def my_reduce_scatter_lowering(ctx, x, *, scatter_dimension: int):
    cfg = {
        "scatter_dimension": scatter_dimension,
        "tiled": "true",
        "replica_groups": [[0, 1], [2, 3]],
        "channel_handle": _channel(),
        "use_global_device_ids": ir.BoolAttr.get(True),
        "dims_seen": {scatter_dimension},
    }
    return parallel._emit_async_start_custom_call("reduce-scatter-start", ctx, x, cfg)
