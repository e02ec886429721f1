"""Data movement: a fourth plan kind for graphs that only move elements.

- `transpose`: one permute that swaps the last two axes of a model input (`x.transpose(-1, -2)`,
  `x.t()`, `x.mT`, with or without `.contiguous()`): square tiles through UB, each transposed by
  one vector Gather with a byte-offset table built once per core;
- `cat`: one `torch.cat` of model inputs along any axis: each input is a [outer, inner] matrix
  copied row block by row block into its column range of the [outer, sum(inner)] output;
- `slice`: one step-1 slice (`x[:, a:b]`, `narrow`) of a model input along any axis: the
  same row-block copy, from a column range of each input row; `stack` is this cat with the new
  axis inserted (`stack` set);
- `view`: every output a strided view of a model input, reached through a chain of permute,
  transpose, slice (any step), select, split/chunk/unbind, expand, unsqueeze/squeeze, flip and
  repeat (then an optional final reshape). The host replays the chain on the runtime shapes
  into (offset, sizes, strides) per output and the kernel copies rows: contiguous rows by
  DataCopyPad, strided ones by one vector Gather from the row's span;
- `index_select`, `gather`: rows or elements addressed by an int32/int64 index tensor (the
  indices read on the scalar unit; gather along the last axis is one vector Gather per row).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode, TensorSpec
from kernelgen_lm.plan.build import snake
from kernelgen_lm.plan.graph import PlanError

# Ops that leave values as they are (contiguous copies, metadata checks).
PASS = ("aten.clone.default", "aten._assert_tensor_metadata.default", "aten.alias.default")
MOVE_OPS = (
    "aten.permute.default",
    "aten.transpose.int",
    "aten.t.default",
    "aten.cat.default",
    "aten.slice.Tensor",
)
MOVE_DTYPES = ("float32", "float16", "bfloat16")
INDEX_DTYPES = ("int32", "int64")
GETITEM = "<built-in function getitem>"
RESHAPES = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
# Ops a `view` chain replays on the host (each one step), with the split ops and getitem.
VIEW_STEPS = (
    "aten.permute.default",
    "aten.transpose.int",
    "aten.t.default",
    "aten.slice.Tensor",
    "aten.select.int",
    "aten.expand.default",
    "aten.unsqueeze.default",
    "aten.squeeze.dim",
    "aten.squeeze.dims",
    "aten.flip.default",
    "aten.repeat.default",
    "aten.split_with_sizes.default",
    "aten.split.Tensor",
    GETITEM,
    *RESHAPES,
)
INDEX_OPS = ("aten.index_select.default", "aten.gather.default")
SCATTER_OPS = (
    "aten.index_put.default",
    "aten.scatter.src",
    "aten.scatter_add.default",
)
# Elements of one UB slab (the indexed axis x a column block) a scatter updates in place.
SCATTER_SLAB_BYTES = 16 * 1024
ARANGE_OPS = ("aten.arange.start_step", "aten.arange.default", "aten.arange.start")
ARANGE_DTYPES = (*MOVE_DTYPES, *INDEX_DTYPES)
# arange dtypes made on the vector unit (int32 index, cast to the output); int64 on the scalar.
ARANGE_VECTOR = (*MOVE_DTYPES, "int32")
RESIZE_OPS = ("aten.upsample_nearest2d.vec", "aten.upsample_bilinear2d.vec")
# Widest input or output row a resize keeps in UB (float work rows of this many elements).
MAX_RESIZE_WIDTH = 2000
# Strided iteration dims a view may have before merging (repeat doubles the rank).
MAX_VIEW_RANK = 8
MAX_VIEW_PARTS = 8
BIG = 2**62  # an open slice end
DSIZE_OF = {"float32": 4, "float16": 2, "bfloat16": 2}


class ViewStep(BaseModel):
    """One view op replayed on (offset, sizes, strides); field use depends on `kind`."""

    kind: Literal[
        "permute", "slice", "select", "expand", "unsqueeze", "squeeze", "flip", "repeat", "reshape"
    ]
    dims: list[int] = []  # permute order, expand sizes, flip axes, repeat counts, reshape shape
    dim: int = 0
    start: int = 0
    end: int = BIG
    step: int = 1
    split: bool = False  # a slice that is one piece of split/chunk (its axis keeps its size)


class ViewPart(BaseModel):
    """One output: the kernel input it views and the steps, first applied first."""

    source: int
    steps: list[ViewStep]
    shape: list[int]  # the output's shape at the captured sizes


class MovePlan(BaseModel):
    op_name: str
    kernel_name: str
    op: Literal[
        "transpose",
        "cat",
        "slice",
        "view",
        "index_select",
        "gather",
        "upsample",
        "scatter",
        "arange",
    ]
    inputs: list[TensorSpec]
    dtype: str
    out_shape: list[int]
    parts: list[int] = []  # cat: the kernel input of each concatenated tensor, in order
    dim: int = 0  # cat, slice: the axis (non-negative)
    start: int = 0  # slice: torch's bounds (negative from the end; clamped at run time)
    end: int = 0
    stack: bool = False  # cat: torch.stack (a new axis `dim` of size len(parts))
    views: list[ViewPart] = []  # view: one per output
    index: int = 0  # index_select, gather, scatter: the kernel input holding the indices
    index_dtype: str = "int64"
    roll: int | None = None  # index_select: torch.roll's shift (index (j - roll) mod size)
    values: int = 0  # scatter: the kernel input holding the written values
    accumulate: bool = False  # scatter: add into the output (index_add, scatter_add)
    rows: bool = False  # scatter: index_put of whole rows along axis 0 (one index per row)
    step: float = 1.0  # arange: start + i * step (start in `arange_start`)
    arange_start: float = 0.0
    # upsample: nearest or bilinear; the output size, else the scale factors (H, W)
    mode: Literal["nearest", "bilinear"] = "nearest"
    align_corners: bool = False
    size: list[int] | None = None
    scales: list[float] | None = None
    # Validation shape variants (one list of input shapes each); None: the generic ones.
    variants: list[list[list[int]]] | None = None


def _work(g: CapturedGraph) -> list[OpNode]:
    return [n for n in g.nodes if n.target not in PASS]


def is_move_graph(g: CapturedGraph) -> bool:
    work = _work(g)
    if len(work) == 1 and work[0].target in (*MOVE_OPS, *INDEX_OPS, *RESIZE_OPS, *SCATTER_OPS):
        return True
    if len(work) == 1 and work[0].target in ARANGE_OPS and g.outputs == [work[0].name]:
        return True
    if work and work[-1].target == "aten.index_select.default" and len(work) == 4:
        return _roll_shift(g, work[-1].args[2]) is not None
    if _stack_refs(g) is not None:
        return True
    return (
        bool(work)
        and all(n.target in VIEW_STEPS for n in work)
        and any(n.target not in RESHAPES for n in work)
    )


class _General(Exception):
    """The single-op fast path does not take this op; the general view path does."""


def build_move_plan(g: CapturedGraph) -> MovePlan:
    plan = _build(g)
    if plan.variants is None:
        plan.variants = _generic_variants(g)
    return plan


def _build(g: CapturedGraph) -> MovePlan:
    work = _work(g)
    if _stack_refs(g) is not None:
        return _stack_plan(g)
    if len(work) == 1 and work[0].target in INDEX_OPS:
        return _index_plan(g, work[0])
    if len(work) == 4 and work[-1].target == "aten.index_select.default":
        return _index_plan(g, work[-1])
    if len(work) == 1 and work[0].target in RESIZE_OPS:
        return _resize_plan(g, work[0])
    if len(work) == 1 and work[0].target in SCATTER_OPS:
        return _scatter_plan(g, work[0])
    if len(work) == 1 and work[0].target in ARANGE_OPS:
        return _arange_plan(g, work[0])
    if len(work) == 1 and work[0].target in MOVE_OPS and len(g.outputs) == 1:
        try:
            return _single_plan(g, work[0])
        except _General:
            pass
    if not work or not all(n.target in VIEW_STEPS for n in work):
        raise PlanError("not a data-movement graph")
    return _view_plan(g)


def _single_plan(g: CapturedGraph, node: OpNode) -> MovePlan:
    names = g.input_names()
    if node.shape is None:
        raise PlanError("data movement with several outputs is not covered")
    base = dict(op_name=g.op_name, kernel_name=snake(g.op_name), inputs=g.inputs)
    if node.target == "aten.cat.default":
        refs = node.args[0] if isinstance(node.args[0], list) else []
        if not refs or not all(isinstance(r, NodeRef) and r.ref in names for r in refs):
            raise PlanError("cat of computed values is not covered (model inputs only)")
        parts = [names.index(r.ref) for r in refs]  # type: ignore[union-attr]
        rank = len(node.shape)
        dim = int(node.args[1]) % rank if len(node.args) > 1 else 0  # type: ignore[arg-type]
        dtypes = {g.inputs[i].dtype for i in parts}
        if len(dtypes) != 1 or g.inputs[parts[0]].dtype not in MOVE_DTYPES:
            raise PlanError(f"cat of dtypes {sorted(dtypes)} is not covered (one float type)")
        if any(len(g.inputs[i].shape) != rank for i in parts):
            raise PlanError("cat of tensors of different ranks (empty tensors) is not covered")
        return MovePlan(
            **base, op="cat", dtype=dtypes.pop(), out_shape=node.shape, parts=parts, dim=dim
        )
    src = node.args[0]
    if not isinstance(src, NodeRef) or src.ref not in names:
        raise _General
    x = g.inputs[names.index(src.ref)]
    rank = len(x.shape)
    if node.target == "aten.slice.Tensor":
        a = [*node.args, None, None, None, None][1:5]
        dim = int(a[0] or 0) % rank
        start = int(a[1]) if a[1] is not None else 0
        end = int(a[2]) if a[2] is not None else 2**62
        if a[3] not in (None, 1):
            raise _General
        if x.dtype not in MOVE_DTYPES:
            raise PlanError(f"slice of {x.dtype} is not covered")
        return MovePlan(
            **base,
            op="slice",
            dtype=x.dtype,
            out_shape=node.shape,
            parts=[names.index(x.name)],
            dim=dim,
            start=start,
            end=min(end, 2**62),
        )
    if node.target == "aten.permute.default":
        dims = [int(d) % rank for d in node.args[1]]  # type: ignore[union-attr]
    elif node.target == "aten.transpose.int":
        a, b = (int(d) % rank for d in node.args[1:3])  # type: ignore[arg-type]
        dims = list(range(rank))
        dims[a], dims[b] = dims[b], dims[a]
    else:
        dims = [1, 0] if rank == 2 else list(range(rank))
    if rank < 2 or dims != [*range(rank - 2), rank - 1, rank - 2]:
        raise _General
    if x.dtype not in MOVE_DTYPES:
        raise PlanError(f"transpose of {x.dtype} is not covered")
    return MovePlan(
        **base, op="transpose", dtype=x.dtype, out_shape=node.shape, parts=[names.index(x.name)]
    )


def _src_shape(g: CapturedGraph, ref: object) -> list[int]:
    if not isinstance(ref, NodeRef):
        raise PlanError("a data-movement op of a non-tensor value is not covered")
    names = g.input_names()
    if ref.ref in names:
        return g.inputs[names.index(ref.ref)].shape
    node = g.node(ref.ref)
    if node is None or node.shape is None:
        raise PlanError(f"{ref.ref}: the shape of this value is unknown")
    return node.shape


def _stack_refs(g: CapturedGraph) -> tuple[list[int], int, int] | None:
    """(kernel inputs, stack axis, output rank) when the graph is `torch.stack` of model inputs:
    cat of unsqueezes at the cat axis, or cat then a view inserting the stacked axis."""
    work = _work(g)
    cats = [n for n in work if n.target == "aten.cat.default"]
    if len(cats) != 1 or len(g.outputs) != 1 or not isinstance(cats[0].args[0], list):
        return None
    cat, names = cats[0], g.input_names()
    refs = cats[0].args[0]
    if not refs or not all(isinstance(r, NodeRef) for r in refs) or cat.shape is None:
        return None
    rank = len(cat.shape)
    dim = int(cat.args[1]) % rank if len(cat.args) > 1 else 0  # type: ignore[arg-type]
    rest = [n for n in work if n is not cat]
    unsq = {n.name: n for n in rest if n.target == "aten.unsqueeze.default"}
    if len(unsq) == len(rest) == len(refs) and g.outputs == [cat.name]:
        srcs = [unsq.get(r.ref) for r in refs]
        if all(
            u is not None
            and isinstance(u.args[0], NodeRef)
            and u.args[0].ref in names
            and int(u.args[1]) % rank == dim  # type: ignore[arg-type]
            for u in srcs
        ):
            return [names.index(u.args[0].ref) for u in srcs], dim, rank  # type: ignore[union-attr]
        return None
    if len(rest) == 1 and rest[0].target in RESHAPES and g.outputs == [rest[0].name]:
        if not all(r.ref in names for r in refs):
            return None
        parts = [names.index(r.ref) for r in refs]
        x = g.inputs[parts[0]].shape
        stacked = [*x[:dim], len(parts), *x[dim:]]
        if rest[0].shape == stacked and all(g.inputs[i].shape == x for i in parts):
            return parts, dim, rank + 1
    return None


def _stack_plan(g: CapturedGraph) -> MovePlan:
    found = _stack_refs(g)
    assert found is not None
    parts, dim, _rank = found
    dtypes = {g.inputs[i].dtype for i in parts}
    if len(dtypes) != 1 or g.inputs[parts[0]].dtype not in MOVE_DTYPES:
        raise PlanError(f"stack of dtypes {sorted(dtypes)} is not covered (one float type)")
    x = g.inputs[parts[0]].shape
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op="cat",
        dtype=dtypes.pop(),
        out_shape=[*x[:dim], len(parts), *x[dim:]],
        parts=parts,
        dim=dim,
        stack=True,
    )


def _roll_shift(g: CapturedGraph, ref: object) -> int | None:
    """torch.roll's shift when `ref` is its index `fmod(arange(0, n) + k, n)`, else None."""
    fmod = g.node(ref.ref) if isinstance(ref, NodeRef) else None
    if fmod is None or fmod.target != "aten.fmod.Scalar" or not isinstance(fmod.args[0], NodeRef):
        return None
    add = g.node(fmod.args[0].ref)
    if add is None or add.target != "aten.add.Tensor" or not isinstance(add.args[0], NodeRef):
        return None
    ar = g.node(add.args[0].ref)
    n, k = fmod.args[1], add.args[1]
    if ar is None or ar.target not in ARANGE_OPS or not isinstance(k, int):
        return None
    if [v for v in ar.args] not in ([0, n], [n]) or not isinstance(n, int) or n <= 0:
        return None
    return (n - k) % n  # torch.roll's shift: output j reads input (j - shift) mod size


def _index_plan(g: CapturedGraph, node: OpNode) -> MovePlan:
    """index_select(x, dim, idx) and gather(x, dim, idx) of model inputs."""
    names = g.input_names()
    kind = "index_select" if node.target == "aten.index_select.default" else "gather"
    x_ref, dim_arg, i_ref = node.args[:3]
    roll = _roll_shift(g, i_ref) if kind == "index_select" else None
    if roll is not None and isinstance(x_ref, NodeRef) and x_ref.ref in names:
        x = g.inputs[names.index(x_ref.ref)]
        if x.dtype not in MOVE_DTYPES:
            raise PlanError(f"roll of {x.dtype} is not covered (float16, bfloat16, float32)")
        axis = int(dim_arg) % max(len(x.shape), 1)  # type: ignore[call-overload]
        src = names.index(x.name)
        return MovePlan(
            op_name=g.op_name,
            kernel_name=snake(g.op_name),
            inputs=g.inputs,
            op="index_select",
            dtype=x.dtype,
            out_shape=node.shape or x.shape,
            parts=[src],
            dim=axis,
            index=-1,
            roll=roll,
            # The captured index only gives the shift modulo the captured size (a negative or
            # oversized shift is lost), so validation keeps the rolled axis's size.
            variants=[v for v in _generic_variants(g) if v[src][axis] == x.shape[axis]],
        )
    if not all(isinstance(r, NodeRef) and r.ref in names for r in (x_ref, i_ref)):
        raise PlanError(
            f"{kind} of computed values is not covered (model inputs only; torch.roll over one "
            "axis is)"
        )
    if node.kwargs.get("sparse_grad"):
        raise PlanError("gather with sparse_grad is not covered")
    x = g.inputs[names.index(x_ref.ref)]  # type: ignore[union-attr]
    idx = g.inputs[names.index(i_ref.ref)]  # type: ignore[union-attr]
    if x.dtype not in MOVE_DTYPES:
        raise PlanError(f"{kind} of {x.dtype} is not covered (float16, bfloat16, float32)")
    if idx.dtype not in INDEX_DTYPES:
        raise PlanError(f"{kind} with {idx.dtype} indices is not covered (int32, int64)")
    rank = max(len(x.shape), 1)
    if len(g.outputs) != 1 or node.shape is None:
        raise PlanError(f"{kind} with several outputs is not covered")
    if kind == "index_select" and len(idx.shape) > 1:
        raise PlanError("index_select needs a 1-D (or 0-D) index tensor")
    if kind == "gather" and len(idx.shape) != len(x.shape):
        raise PlanError("gather needs an index tensor of the input's rank")
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op=kind,
        dtype=x.dtype,
        out_shape=node.shape,
        parts=[names.index(x.name)],
        dim=int(dim_arg) % rank,  # type: ignore[arg-type]
        index=names.index(idx.name),
        index_dtype=idx.dtype,
    )


def _arange_plan(g: CapturedGraph, node: OpNode) -> MovePlan:
    """torch.arange(start, end, step) with literal bounds: an output from scalars alone."""
    nums = [v for v in node.args if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(nums) != len(node.args) or node.shape is None or node.dtype is None:
        raise PlanError("arange with bounds computed from tensors is not covered (literals only)")
    start, step = (nums[0], nums[2] if len(nums) > 2 else 1) if len(nums) > 1 else (0, 1)
    if node.dtype not in ARANGE_DTYPES:
        raise PlanError(f"arange of {node.dtype} is not covered ({', '.join(ARANGE_DTYPES)})")
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op="arange",
        dtype=node.dtype,
        out_shape=node.shape,
        arange_start=float(start),
        step=float(step),
        variants=[],
    )


def _scatter_plan(g: CapturedGraph, node: OpNode) -> MovePlan:
    """index_put / index_add along axis 0 (whole rows) and scatter / scatter_add along any axis
    (one index per element), of model inputs, into a copy of the input."""
    names = g.input_names()
    a = node.args
    rows = node.target == "aten.index_put.default"
    kind = node.target.split(".")[1]
    if rows:
        idx_list = a[1] if isinstance(a[1], list) else []
        if len(idx_list) != 1 or not isinstance(idx_list[0], NodeRef):
            raise PlanError(
                "index_put with several index tensors or None entries is not covered (one index "
                "tensor on axis 0)"
            )
        x_ref, i_ref, v_ref, dim = a[0], idx_list[0], a[2], 0
        accumulate = bool(a[3]) if len(a) > 3 else False
    else:
        x_ref, dim, i_ref, v_ref = a[:4]
        accumulate = node.target == "aten.scatter_add.default"
        if node.kwargs.get("reduce"):
            raise PlanError(f"{kind} with reduce= is not covered")
    refs = (x_ref, i_ref, v_ref)
    if not all(isinstance(r, NodeRef) and r.ref in names for r in refs):
        raise PlanError(f"{kind} of computed values is not covered (model inputs only)")
    x, idx, val = (g.inputs[names.index(r.ref)] for r in refs)  # type: ignore[union-attr]
    if x.dtype not in MOVE_DTYPES or val.dtype != x.dtype:
        raise PlanError(f"{kind} of {x.dtype} with {val.dtype} values is not covered")
    if idx.dtype not in INDEX_DTYPES:
        raise PlanError(f"{kind} with {idx.dtype} indices is not covered (int32, int64)")
    rank = len(x.shape)
    dim = int(dim) % max(rank, 1)  # type: ignore[call-overload]
    if rows:
        if len(idx.shape) != 1 or val.shape != [idx.shape[0], *x.shape[1:]]:
            raise PlanError(
                "index_put needs a 1-D index and values of shape [len(index), *x.shape[1:]] "
                "(broadcast values are not covered)"
            )
    elif idx.shape != val.shape or any(idx.shape[d] != x.shape[d] for d in range(rank) if d != dim):
        raise PlanError(
            f"{kind} with an index smaller than the input off the axis, or values of another "
            "shape than the index, is not covered"
        )
    size = x.shape[dim]
    slab = SCATTER_SLAB_BYTES // DSIZE_OF[x.dtype]
    if (size > slab) if dim == rank - 1 else (size * (32 // DSIZE_OF[x.dtype]) > slab):
        raise PlanError(
            f"{kind} along an axis of {size} elements is not covered (its slab must fit UB)"
        )
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op="scatter",
        dtype=x.dtype,
        out_shape=x.shape,
        parts=[names.index(x.name)],
        dim=dim,
        index=names.index(idx.name),
        index_dtype=idx.dtype,
        values=names.index(val.name),
        accumulate=accumulate,
        rows=rows,
    )


def _resize_plan(g: CapturedGraph, node: OpNode) -> MovePlan:
    """F.interpolate(mode nearest | bilinear) of an NCHW model input, by size or scale factor."""
    names = g.input_names()
    mode = "nearest" if "nearest" in node.target else "bilinear"
    a = node.args
    if not isinstance(a[0], NodeRef) or a[0].ref not in names:
        raise PlanError(f"{mode} upsampling of a computed value is not covered (a model input)")
    x = g.inputs[names.index(a[0].ref)]
    if x.dtype not in MOVE_DTYPES:
        raise PlanError(f"{mode} upsampling of {x.dtype} is not covered")
    if len(g.outputs) != 1 or node.shape is None or len(x.shape) != 4:
        raise PlanError(f"{mode} upsampling of a {len(x.shape)}-D input is not covered (NCHW)")
    size = a[1] if isinstance(a[1], list) else None
    align = bool(a[2]) if mode == "bilinear" else False
    scales = a[3] if mode == "bilinear" else a[2]
    scales = [float(v) for v in scales] if isinstance(scales, list) else None
    widest = max(x.shape[3], node.shape[3])
    if widest > MAX_RESIZE_WIDTH:
        raise PlanError(
            f"{mode} upsampling with rows of {widest} elements is not covered (at most "
            f"{MAX_RESIZE_WIDTH}: a row pair and its weights stay in UB)"
        )
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op="upsample",
        dtype=x.dtype,
        out_shape=node.shape,
        parts=[names.index(x.name)],
        mode=mode,
        align_corners=align,
        size=[int(v) for v in size] if size else None,
        scales=scales if not size else None,
    )


def _norm(d: object, rank: int) -> int:
    return int(d) % max(rank, 1)  # type: ignore[call-overload]


def _view_part(g: CapturedGraph, out: str) -> ViewPart:
    """The chain of view steps from a model input to the graph output `out`."""
    names = g.input_names()
    steps: list[ViewStep] = []
    name = out
    final = g.node(out)
    if final is None or final.shape is None:
        raise PlanError(f"output {out} is not a computed tensor (an input returned as is)")
    while name not in names:
        node = g.node(name)
        if node is None:
            raise PlanError(f"{name}: not a node of the graph")
        t, a = node.target, node.args
        if t == GETITEM:
            split = g.node(a[0].ref) if isinstance(a[0], NodeRef) else None
            if split is None:
                raise PlanError("getitem of a non-split value is not covered")
            shape = _src_shape(g, split.args[0])
            dim = _norm(split.args[2] if len(split.args) > 2 else 0, len(shape))
            i = int(a[1])  # type: ignore[call-overload]
            if split.target == "aten.split_with_sizes.default":
                sizes = [int(v) for v in split.args[1]]  # type: ignore[union-attr]
                start, end = sum(sizes[:i]), sum(sizes[: i + 1])
            else:
                size = int(split.args[1])  # type: ignore[call-overload]
                start, end = i * size, (i + 1) * size
            steps.append(ViewStep(kind="slice", dim=dim, start=start, end=end, split=True))
            name = split.args[0].ref  # type: ignore[union-attr]
            continue
        if not a or not isinstance(a[0], NodeRef):
            raise PlanError(f"{t} of a non-tensor value is not covered")
        rank = len(_src_shape(g, a[0]))
        if t in PASS:
            pass
        elif t in RESHAPES:
            if steps:
                raise PlanError(
                    "a reshape inside a view chain (a copy in torch) is not covered; only a "
                    "final reshape"
                )
            steps.append(ViewStep(kind="reshape", dims=[int(v) for v in a[1]]))  # type: ignore[union-attr]
        elif t == "aten.permute.default":
            steps.append(ViewStep(kind="permute", dims=[_norm(d, rank) for d in a[1]]))  # type: ignore[union-attr]
        elif t == "aten.transpose.int":
            dims = list(range(rank))
            x0, x1 = _norm(a[1], rank), _norm(a[2], rank)
            dims[x0], dims[x1] = dims[x1], dims[x0]
            steps.append(ViewStep(kind="permute", dims=dims))
        elif t == "aten.t.default":
            steps.append(ViewStep(kind="permute", dims=[1, 0] if rank == 2 else [0][:rank]))
        elif t == "aten.slice.Tensor":
            v = [*a, None, None, None, None][1:5]
            step = int(v[3]) if v[3] is not None else 1
            if step < 1:
                raise PlanError(f"slice step {step}: torch takes positive steps only")
            steps.append(
                ViewStep(
                    kind="slice",
                    dim=_norm(v[0] or 0, rank),
                    start=int(v[1]) if v[1] is not None else 0,
                    end=min(int(v[2]), BIG) if v[2] is not None else BIG,
                    step=step,
                )
            )
        elif t == "aten.select.int":
            steps.append(ViewStep(kind="select", dim=_norm(a[1], rank), start=int(a[2])))  # type: ignore[call-overload]
        elif t == "aten.expand.default":
            steps.append(ViewStep(kind="expand", dims=[int(v) for v in a[1]]))  # type: ignore[union-attr]
        elif t == "aten.unsqueeze.default":
            steps.append(ViewStep(kind="unsqueeze", dim=_norm(a[1], rank + 1)))
        elif t in ("aten.squeeze.dim", "aten.squeeze.dims"):
            dims = a[1] if isinstance(a[1], list) else [a[1]]
            for d in sorted({_norm(d, rank) for d in dims}, reverse=True):
                steps.append(ViewStep(kind="squeeze", dim=d))
        elif t == "aten.flip.default":
            steps.append(ViewStep(kind="flip", dims=sorted({_norm(d, rank) for d in a[1]})))  # type: ignore[union-attr]
        elif t == "aten.repeat.default":
            if any(s.kind != "reshape" for s in steps):
                raise PlanError("a view of a repeated tensor is not covered (repeat last)")
            reps = [int(v) for v in a[1]]  # type: ignore[union-attr]
            if len(reps) < rank:
                raise PlanError("repeat with fewer counts than dims (torch refuses it)")
            steps.append(ViewStep(kind="repeat", dims=reps))
        else:
            raise PlanError(f"{t} inside a data-movement chain is not covered")
        name = a[0].ref
    steps.reverse()
    src = names.index(name)
    rank = len(g.inputs[src].shape)
    iter_rank = rank
    for s in steps:
        if s.kind == "select":
            iter_rank -= 1
        elif s.kind == "unsqueeze":
            iter_rank += 1
        elif s.kind == "squeeze":
            iter_rank -= 1
        elif s.kind == "expand":
            iter_rank = len(s.dims)
        elif s.kind == "repeat":
            iter_rank = 2 * len(s.dims)
    if iter_rank > MAX_VIEW_RANK:
        raise PlanError(
            f"a view of {iter_rank} strided dims is not covered (at most {MAX_VIEW_RANK})"
        )
    return ViewPart(source=src, steps=steps, shape=final.shape)


def _view_plan(g: CapturedGraph) -> MovePlan:
    if not g.outputs:
        raise PlanError("no outputs")
    if len(g.outputs) > MAX_VIEW_PARTS:
        raise PlanError(
            f"{len(g.outputs)} outputs: at most {MAX_VIEW_PARTS} views are generated in one kernel"
        )
    parts = [_view_part(g, o) for o in g.outputs]
    dtypes = {g.inputs[v.source].dtype for v in parts}
    dtype = dtypes.pop()
    if dtypes or dtype not in MOVE_DTYPES:
        raise PlanError(
            f"views of {dtype} are not covered (one of {', '.join(MOVE_DTYPES)} for every output)"
        )
    # Split, unbind and select axes keep their captured size in validation (torch would make
    # more outputs).
    fixed = {
        (v.source, s.dim)
        for v in parts
        for s in v.steps[:1]
        if s.split or (s.kind in ("slice", "select") and len(parts) > 1)
    }
    variants = [
        var
        for var in _generic_variants(g)
        if all(var[i][d] == g.inputs[i].shape[d] for i, d in fixed if i < len(var))
    ]
    return MovePlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        op="view",
        dtype=dtype,
        out_shape=parts[0].shape,
        parts=sorted({v.source for v in parts}),
        views=parts,
        variants=variants,
    )


def _generic_variants(g: CapturedGraph) -> list[list[list[int]]]:
    from kernelgen_lm.generate import shape_variants

    return shape_variants(g)


def move_variants(p: MovePlan) -> list[list[list[int]]]:
    """The plan's validation shapes (the generic ones; views keep their split axes)."""
    return p.variants or []


_INDEX_TEXT = {
    "index_select": "input viewed as [outer, size, inner]; output row (o, k) is input row "
    "(o, index[k]) (index read on the scalar unit); work units = (outer, index "
    "block) over the vector cores; DataCopyPad per row, or one vector Gather per outer row "
    "when inner is 1",
    "gather": "output element (..., j, ...) = input at index[..., j, ...] along the axis; work "
    "units = output rows over the vector cores; along the last axis one vector Gather per row "
    "(byte offsets from the index row), else the elements are read on the scalar unit",
}


def _step_text(s: ViewStep) -> str:
    if s.kind == "slice":
        end = "" if s.end >= BIG else str(s.end)
        step = f":{s.step}" if s.step != 1 else ""
        return f"slice(axis {s.dim}, {s.start}:{end}{step})"
    if s.kind in ("select", "unsqueeze", "squeeze"):
        at = f", {s.start}" if s.kind == "select" else ""
        return f"{s.kind}(axis {s.dim}{at})"
    return f"{s.kind}{s.dims}"


def move_text(p: MovePlan) -> str:
    names = [t.name for t in p.inputs]
    if p.op == "transpose":
        x = p.inputs[p.parts[0]]
        body = [
            f"input {x.name}: {p.dtype}{x.shape}; output {p.out_shape} = transpose of the last "
            "two axes",
            "split: work units = (batch, 64-row block, 64-column block) over the vector cores, "
            "big/small split; each block: DataCopyPad in, one Gather (byte-offset table built "
            "once per core) into the transposed block, DataCopyPad out",
        ]
    elif p.op == "slice":
        x = p.inputs[p.parts[0]]
        body = [
            f"slice {x.name}{x.shape} along axis {p.dim} [{p.start}:{p.end}] -> "
            f"{p.dtype}{p.out_shape}",
            "input viewed as [outer, size * after]; each output row is the column range "
            "[start * after, end * after) of its input row (bounds clamped at run time); work "
            "units = (row block, column block) over the vector cores",
        ]
    elif p.op == "view":
        body = []
        for k, v in enumerate(p.views):
            chain = ", ".join(_step_text(s) for s in v.steps) or "copy"
            body.append(f"output {k}: {names[v.source]} -> {chain} -> {p.dtype}{v.shape}")
        body.append(
            "the host replays each chain on the runtime shapes into (offset, sizes, strides), "
            "merged; work units = (outer index, row block, column block) over the vector cores; "
            "rows with last-axis stride 1 DataCopyPad in and out, other rows are one vector "
            "Gather (byte offsets j * stride) from their span in UB"
        )
    elif p.op == "arange":
        body = [
            f"arange: out[i] = {p.arange_start!r} + i * {p.step!r} -> {p.dtype}{p.out_shape}",
            "work units = 4096-element tiles over the vector cores; "
            + (
                "each tile: CreateVecIndex (int32), Cast, Muls, Adds, DataCopyPad out"
                if p.dtype in ARANGE_VECTOR
                else "each tile written on the scalar unit, DataCopyPad out"
            ),
        ]
    elif p.op == "scatter":
        x, i, v = p.inputs[p.parts[0]], p.inputs[p.index], p.inputs[p.values]
        what = "index_put rows" if p.rows else "scatter"
        how = "+=" if p.accumulate else "="
        body = [
            f"{what} along axis {p.dim}: out = {x.name}{x.shape}; out[{i.name}: "
            f"{p.index_dtype}{i.shape}] {how} {v.name}{v.shape} -> {p.dtype}{p.out_shape}",
            "output viewed as [outer, size, inner]; work unit = one slab (outer index, the whole "
            "indexed axis, a column block) over the vector cores, so no two cores write one "
            "element: the slab DataCopyPad'ed into UB, every update of it applied in index order "
            "on the scalar unit, DataCopyPad out",
        ]
    elif p.op == "upsample":
        x = p.inputs[p.parts[0]]
        how = f"size {p.size}" if p.size else f"scale factors {p.scales}"
        body = [
            f"{p.mode} upsampling of {x.name}{x.shape} ({how}, align_corners "
            f"{p.align_corners}) -> {p.dtype}{p.out_shape}",
            "source columns (and weights) per output column computed once per core as torch "
            "does (float scales); work units = output rows (n, c, h) over the vector cores; "
            + (
                "each row one vector Gather from its source row"
                if p.mode == "nearest"
                else "each row: its two source rows in UB (as float), four Gathers, weighted "
                "with Mul/Add, cast back"
            ),
        ]
    elif p.roll is not None:
        x = p.inputs[p.parts[0]]
        body = [
            f"roll {x.name}{x.shape} by {p.roll} along axis {p.dim}: index_select with index "
            f"(j - {p.roll}) mod size, computed in the kernel -> {p.dtype}{p.out_shape}",
            _INDEX_TEXT["index_select"],
        ]
    elif p.op in ("index_select", "gather"):
        x, i = p.inputs[p.parts[0]], p.inputs[p.index]
        body = [
            f"{p.op}({x.name}{x.shape}, dim {p.dim}, {i.name}: {p.index_dtype}{i.shape}) -> "
            f"{p.dtype}{p.out_shape}",
            _INDEX_TEXT[p.op],
        ]
    elif p.stack:
        body = [
            f"stack along axis {p.dim} of {', '.join(names[i] for i in p.parts)} -> "
            f"{p.dtype}{p.out_shape}",
            "the cat of the inputs with the new axis: each input viewed as [outer, inner]; work "
            "units = (input, row block, column block); DataCopyPad in, DataCopyPad out at the "
            "input's column offset",
        ]
    else:
        body = [
            f"cat along axis {p.dim} of {', '.join(names[i] for i in p.parts)} -> "
            f"{p.dtype}{p.out_shape}",
            "each input viewed as [outer, inner]; work units = (input, row block, column block) "
            "over the vector cores; DataCopyPad in, DataCopyPad out at the input's column offset",
        ]
    return "\n".join([f"kernel {p.kernel_name} (op {p.op_name}), mode move ({p.op})", *body])
