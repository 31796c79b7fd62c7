"""jax, jax.numpy and the lowering context (measured on jax 0.12.0.1 with 8 forced CPU devices, inside
the lowering rule of a primitive lowered under ``jax.jit(jax.shard_map(...))``, where the
verification test binds ``ctx`` to the real ``LoweringRuleContext``).

Surprises the rows pin: ``ctx.avals_in`` is a tuple but ``ctx.avals_out`` a list (of
``AbstractFuture`` for an async primitive); ``mesh.shape`` is an ``OrderedDict`` that serializes
while its ``keys()`` view does not; ``mesh.devices`` is an ndarray of ``Device`` objects, which
passes the default hook (``.tolist()``) and then fails on its elements, while ``mesh.device_ids``
is an ndarray of ints that serializes; ``module_context.new_channel()`` is a plain int;
``mesh.axis_types`` is a tuple of ``AxisType`` members (a plain ``Enum``, rejected); ``aval.sharding``
is a ``NamedSharding`` (rejected), and its ``.spec`` a ``PartitionSpec`` (``jax.P``, no tuple: rejected).
"""

from __future__ import annotations

from asynccfg_lint.analysis import type_verdicts as T
from asynccfg_lint.analysis.infer.model import ATTRIBUTE, ELEMENT, METHOD, OPERATOR, CallRow, MemberRow, TypeRow

IMPORTS = ("import numpy as np; import jax; import jax.numpy as jnp; import jax.extend.core; from jax._src import core; "
           "import jax._src.dtypes; import jax.dtypes; "
           "from jax._src.interpreters import mlir; import jax.interpreters.mlir; "
           "from jax._src import sharding_impls, mesh as mesh_lib; import jax.sharding")

#: the module constants of ``jax._src.interpreters.mlir`` JAX's own lowering rules pass next to a
#: config (``hlo.ChannelHandle.get(mlir.COLLECTIVE_CHANNEL_ID, mlir.DEVICE_TO_DEVICE_TYPE)`` in
#: ``jax/_src/lax/parallel.py``), and which of them the public ``jax.interpreters.mlir`` re-exports
_MLIR_INT_CONSTANTS = ("COLLECTIVE_CHANNEL_ID", "DEVICE_TO_DEVICE_TYPE", "SEND_TO_HOST_TYPE", "RECV_FROM_HOST_TYPE")
_MLIR_PUBLIC_INT_CONSTANTS = ("DEVICE_TO_DEVICE_TYPE", "SEND_TO_HOST_TYPE", "RECV_FROM_HOST_TYPE")

CONTEXT = "jax._src.interpreters.mlir.LoweringRuleContext"
MODULE_CONTEXT = "jax._src.interpreters.mlir.ModuleContext"
SPMD = "jax._src.sharding_impls.SPMDAxisContext"
MESH = "jax._src.mesh.Mesh"
SHAPED = "jax._src.core.ShapedArray"
FUTURE = "jax._src.core.AbstractFuture"
PRIMITIVE = "jax._src.core.Primitive"
DEVICE = "jax.Device"
AXIS_TYPE = "jax.sharding.AxisType"
AXIS_TYPES = "tuple of jax.sharding.AxisType"
NAMED_SHARDING = "jax.sharding.NamedSharding"
PARTITION_SPEC = "jax.sharding.PartitionSpec"
ABSTRACT_MESH = "jax._src.mesh.AbstractMesh"
#: the ``dims_in`` a batching rule is called with (``jax/_src/interpreters/batching.py``)
BATCH_DIMS = "tuple of batch dimensions"

DEVICE_LIST = T.rejected("list of jax.Device", "use [d.id for d in devices]")
DEVICE_ARRAY = T.rejected("numpy.ndarray of jax.Device", "use mesh.device_ids.tolist() (or [d.id for d in x.flat])")
#: ndarray methods that keep an object array's elements (numpy 2.5.5: each gives an object ndarray of Devices)
_DEVICE_ARRAY_METHODS = {"ravel": "{}.ravel()", "flatten": "{}.flatten()", "reshape": "{}.reshape(-1)",
                         "copy": "{}.copy()", "squeeze": "{}.squeeze()", "transpose": "{}.transpose()"}



def _mesh_rows(owner: str, what: str) -> tuple[MemberRow, ...]:
    """The members a ``Mesh`` and an ``AbstractMesh`` share (measured on both, jax 0.12.0.1): ``axis_sizes`` a
    tuple of ints, ``shape_tuple`` a tuple of ``(name, size)`` pairs, the ``*_axes`` tuples of axis names,
    the ``_any_axis_*`` and ``empty`` flags bools, ``abstract_mesh`` an AbstractMesh."""
    return (
        MemberRow(owner, ATTRIBUTE, "axis_sizes", "tuple of int", f"{what}.axis_sizes is a tuple of ints"),
        MemberRow(owner, ATTRIBUTE, "shape_tuple", "builtins.tuple",
                  f"{what}.shape_tuple is a tuple of (axis name, size) pairs: it serializes"),
        *(MemberRow(owner, ATTRIBUTE, name, "tuple of str", f"{what}.{name} is a tuple of axis names")
          for name in ("manual_axes", "explicit_axes", "auto_axes")),
        *(MemberRow(owner, ATTRIBUTE, name, "builtins.bool", f"{what}.{name} is a bool")
          for name in ("_any_axis_manual", "_any_axis_explicit", "_any_axis_auto", "_any_axis_auto_or_manual",
                       "empty")),
        MemberRow(owner, ATTRIBUTE, "abstract_mesh", ABSTRACT_MESH, f"{what}.abstract_mesh is an AbstractMesh"),
    )


ROWS = (
    # module constants (an int under channel_handle has no .handle: ACC104, as a literal 1)
    *(CallRow(f"jax._src.interpreters.mlir.{name}", "builtins.int", f"mlir.{name} is a plain int",
              f"mlir.{name}", value=True) for name in _MLIR_INT_CONSTANTS),
    *(CallRow(f"jax.interpreters.mlir.{name}", "builtins.int", f"jax.interpreters.mlir.{name} is a plain int",
              f"jax.interpreters.mlir.{name}", value=True) for name in _MLIR_PUBLIC_INT_CONSTANTS),
    TypeRow(DEVICE, T.rejected("jax.Device", "use d.id"), "jaxlib._jax.Device", "jax.devices()[0]",
            "a Device is rejected by the default hook; d.id is an int", annotation=("jax.Device",)),
    TypeRow("list of jax.Device", DEVICE_LIST, "builtins.list", "jax.devices()",
            "jax.devices() is a list of Device objects: json fails on its first element"),
    CallRow("jax.devices", "list of jax.Device", "jax.devices() is a list of Devices", "jax.devices()"),
    CallRow("jax.local_devices", "list of jax.Device", "jax.local_devices() is a list of Devices",
            "jax.local_devices()"),
    MemberRow("list of jax.Device", ELEMENT, "", DEVICE, "an element of jax.devices() is a Device"),
    MemberRow("list of jax.Device", OPERATOR, "[:]", "list of jax.Device", "a slice of jax.devices() is a list of Devices",
              "{}[:2]"),
    MemberRow(DEVICE, ATTRIBUTE, "id", "builtins.int", "d.id is an int"),
    MemberRow(DEVICE, ATTRIBUTE, "process_index", "builtins.int", "d.process_index is an int"),
    MemberRow(DEVICE, ATTRIBUTE, "platform", "builtins.str", "d.platform is a str"),
    MemberRow(DEVICE, ATTRIBUTE, "device_kind", "builtins.str", "d.device_kind is a str"),
    CallRow("jax.process_index", "builtins.int", "jax.process_index() is an int", "jax.process_index()"),
    CallRow("jax.process_count", "builtins.int", "jax.process_count() is an int", "jax.process_count()"),
    CallRow("jax.device_count", "builtins.int", "jax.device_count() is an int", "jax.device_count()"),
    CallRow("jax.local_device_count", "builtins.int", "jax.local_device_count() is an int",
            "jax.local_device_count()"),
    # an axis's size is a Python int (annotated `-> int`), not a traced array: the probe runs in a lowering
    # rule under shard_map, where a bind's keyword computed with it is evaluated too
    *(CallRow(f"{module}.axis_size", "builtins.int", "jax.lax.axis_size(name) is an int", 'jax.lax.axis_size("i")')
      for module in ("jax.lax", "jax._src.lax.parallel")),
    CallRow("jax.numpy.dtype", "numpy.dtype", "jnp.dtype(...) is a numpy.dtype", "jnp.dtype('float32')"),
    CallRow("jax.numpy.result_type", "numpy.dtype", "jnp.result_type(...) is a numpy.dtype",
            "jnp.result_type(np.float32, np.int32)"),
    CallRow("jax.numpy.promote_types", "numpy.dtype", "jnp.promote_types(a, b) is a numpy.dtype",
            "jnp.promote_types(np.float32, np.int32)"),
    # jax._src.dtypes (and its public face jax.dtypes): a numpy.dtype also of an ml_dtypes type (bfloat16's
    # here); canonicalize_dtype(t, allow_extended_dtype=True) of a key type is an ExtendedDType, rejected too
    *(CallRow(f"{module}.{name}", "numpy.dtype", f"{module}.{name}(...) is a numpy.dtype",
              f"{module}.{name}('bfloat16')")
      for module in ("jax._src.dtypes", "jax.dtypes") for name in ("canonicalize_dtype", "result_type")),
    CallRow("jax._src.dtypes.dtype", "numpy.dtype", "jax._src.dtypes.dtype(...) is a numpy.dtype",
            "jax._src.dtypes.dtype('float32')"),
    CallRow("jax.default_backend", "builtins.str", "jax.default_backend() is a str", "jax.default_backend()"),
    TypeRow("jax.Array", T.JAX_ARRAY, "jax.Array", "jnp.arange(3)", "a jax.Array is rejected by the default hook"),
    # a primitive: `prim.bind(x, ...)`'s positional arguments are its operands, jax.Arrays (under jit
    # the DynamicJaxprTracer the oracle's program fixtures measure: x.dtype a numpy.dtype,
    # x.shape a tuple of ints, x.ndim an int; asynccfg_lint.analysis.programs.bind_operands)
    TypeRow(PRIMITIVE, T.rejected("jax Primitive", "use its .name"), PRIMITIVE, "core.Primitive('probe')",
            "a Primitive is rejected by the default hook"),
    CallRow(PRIMITIVE, PRIMITIVE, "core.Primitive(name) is a Primitive", "core.Primitive('probe')"),
    CallRow("jax.extend.core.Primitive", PRIMITIVE, "jax.extend.core.Primitive(name) is a Primitive",
            "jax.extend.core.Primitive('probe')"),
    MemberRow("jax.Array", ATTRIBUTE, "dtype", "numpy.dtype", "x.dtype of a jax.Array is a numpy.dtype"),
    MemberRow("jax.Array", ATTRIBUTE, "shape", "tuple of int", "x.shape of a jax.Array is a tuple of ints"),
    MemberRow("jax.Array", ATTRIBUTE, "ndim", "builtins.int", "x.ndim of a jax.Array is an int"),
    MemberRow("jax.Array", ATTRIBUTE, "size", "builtins.int", "x.size of a jax.Array is an int"),
    MemberRow("jax.Array", METHOD, "tolist", "JSON value", "x.tolist() of a jax.Array gives Python numbers"),
    # batching rules (the positional dims_in JAX passes: params_rules.PARAMS_TABLES, tests/test_params_rules.py)
    TypeRow(BATCH_DIMS, T.TUPLE.named("tuple of batch dimensions"), "builtins.tuple", "(0, None)",
            "a batching rule's dims_in is a tuple of ints and Nones (batching.not_mapped): it serializes"),
    MemberRow(BATCH_DIMS, ELEMENT, "", "builtins.int|builtins.NoneType",
              "an element of dims_in is an operand's batch dimension, an int, or None when it is not batched"),
    # abstract values
    TypeRow(SHAPED, T.rejected("jax ShapedArray", "use its .shape and str(.dtype)"), SHAPED,
            "core.ShapedArray((2, 4), np.float32)", "an abstract value is rejected by the default hook",
            annotation=(SHAPED, "jax.core.ShapedArray")),
    CallRow(SHAPED, SHAPED, "ShapedArray(shape, dtype) is a ShapedArray", "core.ShapedArray((2, 4), np.float32)"),
    MemberRow(SHAPED, ATTRIBUTE, "dtype", "numpy.dtype", "aval.dtype is a numpy.dtype (Float32DType here)"),
    MemberRow(SHAPED, ATTRIBUTE, "shape", "tuple of int", "aval.shape is a tuple of ints"),
    MemberRow(SHAPED, ATTRIBUTE, "ndim", "builtins.int", "aval.ndim is an int"),
    MemberRow(SHAPED, ATTRIBUTE, "size", "builtins.int", "aval.size is an int"),
    MemberRow(SHAPED, ATTRIBUTE, "weak_type", "builtins.bool", "aval.weak_type is a bool"),
    MemberRow(SHAPED, ATTRIBUTE, "sharding", NAMED_SHARDING,
              "aval.sharding is a NamedSharding (of an AbstractMesh, inside shard_map)"),
    TypeRow(NAMED_SHARDING, T.rejected("jax.sharding.NamedSharding", "use str(x.spec)"), "jax.sharding.NamedSharding",
            "ctx.avals_in[0].sharding", "a NamedSharding is rejected by the default hook, and is no valid key",
            annotation=(NAMED_SHARDING,)),
    # (inside shard_map the aval's sharding is over an AbstractMesh: no devices, no device_ids)
    MemberRow(NAMED_SHARDING, ATTRIBUTE, "spec", PARTITION_SPEC, "sharding.spec is a PartitionSpec (jax.P)"),
    MemberRow(NAMED_SHARDING, ATTRIBUTE, "mesh", ABSTRACT_MESH, "sharding.mesh is an AbstractMesh under shard_map"),
    MemberRow(NAMED_SHARDING, ATTRIBUTE, "memory_kind", "builtins.str|builtins.NoneType",
              "sharding.memory_kind is a str or None (None here)"),
    MemberRow(NAMED_SHARDING, ATTRIBUTE, "num_devices", "builtins.int", "sharding.num_devices is an int"),
    MemberRow(NAMED_SHARDING, ATTRIBUTE, "is_fully_replicated", "builtins.bool", "sharding.is_fully_replicated is a bool"),
    TypeRow(PARTITION_SPEC, T.rejected("jax.sharding.PartitionSpec", "use str(x)"), "jax.P",
            "ctx.avals_in[0].sharding.spec", "a PartitionSpec is no tuple: rejected by the default hook, and no valid key",
            annotation=(PARTITION_SPEC, "jax.P")),
    *(MemberRow(PARTITION_SPEC, ATTRIBUTE, name, "builtins.frozenset",
                f"spec.{name} is a frozenset of axis names (empty here): rejected by the default hook")
      for name in ("reduced", "unreduced")),
    CallRow(PARTITION_SPEC, PARTITION_SPEC, "PartitionSpec(...) is a PartitionSpec", "jax.sharding.PartitionSpec('i')"),
    CallRow("jax.P", PARTITION_SPEC, "jax.P(...) is a PartitionSpec", "jax.P('i')"),
    TypeRow(ABSTRACT_MESH, T.rejected("jax AbstractMesh", "use its .axis_names and .shape"), ABSTRACT_MESH,
            "ctx.avals_in[0].sharding.mesh", "an AbstractMesh is rejected by the default hook"),
    MemberRow(ABSTRACT_MESH, ATTRIBUTE, "axis_names", "tuple of str", "abstract_mesh.axis_names is a tuple of strs"),
    MemberRow(ABSTRACT_MESH, ATTRIBUTE, "shape", "mesh shape", "abstract_mesh.shape is an OrderedDict"),
    MemberRow(ABSTRACT_MESH, ATTRIBUTE, "size", "builtins.int", "abstract_mesh.size is an int"),
    # (inside shard_map the aval's mesh has every axis Manual: axis_types is (AxisType.Manual,); its
    # .devices and .device_ids raise ValueError, "AbstractMesh does not implement devices")
    MemberRow(ABSTRACT_MESH, ATTRIBUTE, "axis_types", AXIS_TYPES,
              "abstract_mesh.axis_types is a tuple of AxisType members ((AxisType.Manual,) under shard_map)"),
    *_mesh_rows(ABSTRACT_MESH, "abstract_mesh"),
    TypeRow(FUTURE, T.rejected("jax AbstractFuture", "use its .inner_aval's shape and dtype"), FUTURE,
            "ctx.avals_out[0]", "an async primitive's output aval is an AbstractFuture, rejected by the default hook",
            annotation=(FUTURE, "jax.core.AbstractFuture")),
    MemberRow(FUTURE, ATTRIBUTE, "inner_aval", SHAPED, "future.inner_aval is the ShapedArray it wraps"),
    MemberRow(FUTURE, ATTRIBUTE, "dtype", "numpy.dtype", "future.dtype is its inner aval's numpy.dtype"),
    MemberRow(FUTURE, ATTRIBUTE, "shape", "tuple of int", "future.shape is its inner aval's tuple of ints"),
    MemberRow(FUTURE, ATTRIBUTE, "ndim", "builtins.int", "future.ndim is an int"),
    MemberRow(FUTURE, ATTRIBUTE, "size", "builtins.int", "future.size is an int"),
    # the lowering context
    TypeRow(CONTEXT, T.OBJECT.named("LoweringRuleContext"), CONTEXT, "ctx",
            "the lowering rule's context is rejected by the default hook",
            annotation=(CONTEXT, "jax.interpreters.mlir.LoweringRuleContext")),
    TypeRow("tuple of ShapedArray", T.rejected("tuple of jax ShapedArray", "use each aval's .shape and str(.dtype)"),
            "builtins.tuple", "ctx.avals_in", "ctx.avals_in is a tuple of ShapedArrays: json fails on its elements"),
    TypeRow("list of output avals", T.rejected("list of jax abstract values", "use each aval's .shape and str(.dtype)"),
            "builtins.list", "ctx.avals_out",
            "ctx.avals_out is a list (of AbstractFuture for an async primitive): json fails on its elements"),
    MemberRow(CONTEXT, ATTRIBUTE, "avals_in", "tuple of ShapedArray", "ctx.avals_in is a tuple of ShapedArrays"),
    MemberRow(CONTEXT, ATTRIBUTE, "avals_out", "list of output avals", "ctx.avals_out is a list of avals"),
    MemberRow("tuple of ShapedArray", ELEMENT, "", SHAPED, "an element of ctx.avals_in is a ShapedArray"),
    MemberRow("list of output avals", ELEMENT, "", f"{FUTURE}|{SHAPED}",
              "an element of ctx.avals_out is an AbstractFuture (async) or a ShapedArray"),
    MemberRow(CONTEXT, ATTRIBUTE, "module_context", MODULE_CONTEXT, "ctx.module_context is a ModuleContext"),
    TypeRow(MODULE_CONTEXT, T.OBJECT.named("ModuleContext"), MODULE_CONTEXT, "ctx.module_context",
            "the module context is rejected by the default hook", annotation=(MODULE_CONTEXT,)),
    MemberRow(MODULE_CONTEXT, METHOD, "new_channel", "builtins.int", "module_context.new_channel() is a plain int"),
    MemberRow(MODULE_CONTEXT, ATTRIBUTE, "platforms", "tuple of str", "module_context.platforms is a tuple of strs"),
    MemberRow(MODULE_CONTEXT, ATTRIBUTE, "axis_context", SPMD,
              "module_context.axis_context is an SPMDAxisContext under shard_map (the lowering this models)"),
    TypeRow(SPMD, T.OBJECT.named("SPMDAxisContext"), SPMD, "ctx.module_context.axis_context",
            "an axis context is rejected by the default hook", annotation=(SPMD, "jax.sharding.SPMDAxisContext")),
    MemberRow(SPMD, ATTRIBUTE, "mesh", MESH, "axis_context.mesh is a Mesh"),
    MemberRow(SPMD, ATTRIBUTE, "manual_axes", "builtins.frozenset", "axis_context.manual_axes is a frozenset"),
    TypeRow(MESH, T.OBJECT.named("jax.sharding.Mesh"), MESH, "ctx.module_context.axis_context.mesh",
            "a Mesh is rejected by the default hook", annotation=(MESH, "jax.sharding.Mesh")),
    TypeRow("numpy.ndarray of jax.Device", DEVICE_ARRAY, "numpy.ndarray", "ctx.module_context.axis_context.mesh.devices",
            "mesh.devices is an object ndarray of Devices: the default hook's .tolist() gives Devices, which json rejects"),
    TypeRow("numpy.ndarray of int", T.NUMPY_ARRAY.named("numpy.ndarray of int"), "numpy.ndarray",
            "ctx.module_context.axis_context.mesh.device_ids", "mesh.device_ids is an int ndarray: it serializes"),
    TypeRow("mesh shape", T.DICT.named("collections.OrderedDict"), "collections.OrderedDict",
            "ctx.module_context.axis_context.mesh.shape", "mesh.shape is an OrderedDict of axis name to size: it serializes"),
    MemberRow(MESH, ATTRIBUTE, "devices", "numpy.ndarray of jax.Device", "mesh.devices is an ndarray of Devices"),
    MemberRow(MESH, ATTRIBUTE, "device_ids", "numpy.ndarray of int", "mesh.device_ids is an ndarray of ints"),
    MemberRow(MESH, ATTRIBUTE, "shape", "mesh shape", "mesh.shape is an OrderedDict"),
    MemberRow(MESH, ATTRIBUTE, "axis_names", "tuple of str", "mesh.axis_names is a tuple of strs"),
    MemberRow(MESH, ATTRIBUTE, "size", "builtins.int", "mesh.size is an int"),
    MemberRow(MESH, ATTRIBUTE, "axis_types", AXIS_TYPES, "mesh.axis_types is a tuple of AxisType members"),
    *_mesh_rows(MESH, "mesh"),
    MemberRow(MESH, ATTRIBUTE, "is_multi_process", "builtins.bool", "mesh.is_multi_process is a bool"),
    MemberRow(MESH, ATTRIBUTE, "local_devices", "list of jax.Device", "mesh.local_devices is a list of Devices"),
    TypeRow(AXIS_TYPES, T.rejected(AXIS_TYPES, "use [t.name for t in x]"), "builtins.tuple",
            "ctx.module_context.axis_context.mesh.axis_types",
            "mesh.axis_types is a tuple of plain Enum members (AxisType.Explicit): json fails on its first element"),
    MemberRow(AXIS_TYPES, ELEMENT, "", AXIS_TYPE, "an element of mesh.axis_types is an AxisType member"),
    TypeRow(AXIS_TYPE, T.rejected("enum.Enum member jax.sharding.AxisType", "use x.name"), "jax._src.mesh.AxisType",
            "ctx.module_context.axis_context.mesh.axis_types[0]", "an AxisType is a plain Enum member: rejected, and no valid key"),
    MemberRow(AXIS_TYPE, ATTRIBUTE, "name", "builtins.str", "axis_type.name is a str ('Explicit')"),
    MemberRow("numpy.ndarray of jax.Device", METHOD, "tolist", "list of jax.Device",
              "mesh.devices.tolist() is a list of Devices"),
    *(MemberRow("numpy.ndarray of jax.Device", METHOD, name, "numpy.ndarray of jax.Device",
                f"mesh.devices.{name}(...) is again an object ndarray of Devices", probe, with_arguments=True)
      for name, probe in _DEVICE_ARRAY_METHODS.items()),
    *(CallRow(f"numpy.{func}", "numpy.ndarray of jax.Device", f"np.{func} of {data} is an object ndarray of Devices",
              f"np.{func}({probe})", argument=data)
      for func in ("array", "asarray")
      for data, probe in (("list of jax.Device", "jax.devices()"),
                          ("numpy.ndarray of jax.Device", "ctx.module_context.axis_context.mesh.devices"))),
    MemberRow("numpy.ndarray of int", METHOD, "tolist", "JSON value", "mesh.device_ids.tolist() is a list of ints"),
    MemberRow("mesh shape", OPERATOR, "[]", "builtins.int", "mesh.shape[name] is the axis size, an int", "{}['i']"),
    MemberRow("mesh shape", METHOD, "keys", "odict_keys", "mesh.shape.keys() is an odict_keys view, which is rejected"),
    MemberRow("mesh shape", METHOD, "values", "odict_values", "mesh.shape.values() is an odict_values view"),
    MemberRow("mesh shape", METHOD, "items", "odict_items", "mesh.shape.items() is an odict_items view"),
)
