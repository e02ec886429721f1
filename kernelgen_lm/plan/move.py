"""Data movement: a fourth plan kind for graphs that only move elements.

- `transpose`: one permute that swaps the last two axes of a model input (`x.transpose(-1, -2)`,
  `x.t()`, `x.mT`, with or without `.contiguous()`): square tiles through UB, each transposed by
  one vector Gather with a byte-offset table built once per core;
- `cat`: one `torch.cat` of model inputs along any axis: each input is a [outer, inner] matrix
  copied row block by row block into its column range of the [outer, sum(inner)] output;
- `slice`: one step-1 slice (`x[:, a:b]`, `narrow`) of a model input along any axis: the
  same row-block copy, from a column range of each input row.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from kernelgen_lm.capture import CapturedGraph, NodeRef, TensorSpec
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


class MovePlan(BaseModel):
    op_name: str
    kernel_name: str
    op: Literal["transpose", "cat", "slice"]
    inputs: list[TensorSpec]
    dtype: str
    out_shape: list[int]
    parts: list[int] = []  # cat: the kernel input of each concatenated tensor, in order
    dim: int = 0  # cat, slice: the axis (non-negative)
    start: int = 0  # slice: torch's bounds (negative from the end; clamped at run time)
    end: int = 0


def is_move_graph(g: CapturedGraph) -> bool:
    work = [n for n in g.nodes if n.target not in PASS]
    return len(work) == 1 and work[0].target in MOVE_OPS


def build_move_plan(g: CapturedGraph) -> MovePlan:
    work = [n for n in g.nodes if n.target not in PASS]
    if len(work) != 1 or work[0].target not in MOVE_OPS:
        raise PlanError("not a single data-movement op")
    node = work[0]
    names = g.input_names()
    if len(g.outputs) != 1 or node.shape is None:
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
        raise PlanError(f"{node.target} of a computed value is not covered (a model input only)")
    x = g.inputs[names.index(src.ref)]
    rank = len(x.shape)
    if node.target == "aten.slice.Tensor":
        a = [*node.args, None, None, None, None][1:5]
        dim = int(a[0] or 0) % rank
        start = int(a[1]) if a[1] is not None else 0
        end = int(a[2]) if a[2] is not None else 2**62
        if a[3] not in (None, 1):
            raise PlanError(f"slice with step {a[3]} is not covered (step 1 only)")
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
        raise PlanError(
            f"permute {dims} of {x.name}{x.shape}: only the last-two-axes transpose is generated"
        )
    if x.dtype not in MOVE_DTYPES:
        raise PlanError(f"transpose of {x.dtype} is not covered")
    return MovePlan(
        **base, op="transpose", dtype=x.dtype, out_shape=node.shape, parts=[names.index(x.name)]
    )


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
    else:
        body = [
            f"cat along axis {p.dim} of {', '.join(names[i] for i in p.parts)} -> "
            f"{p.dtype}{p.out_shape}",
            "each input viewed as [outer, inner]; work units = (input, row block, column block) "
            "over the vector cores; DataCopyPad in, DataCopyPad out at the input's column offset",
        ]
    return "\n".join([f"kernel {p.kernel_name} (op {p.op_name}), mode move ({p.op})", *body])
