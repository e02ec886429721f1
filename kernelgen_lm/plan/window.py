"""Pooling as a windowed reduction: a second plan kind next to the fused domain plan.

Every average/max pool (1D/2D/3D, stride, padding, dilation, ceil mode) is normalized to a 3D
pool over planes: input (P, D, H, W) -> output (P, OD, OH, OW); a 2D pool has D = 1 and a 1D
pool (which torch.export writes as a 2D pool on an unsqueezed input) also H = 1.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

from kernelgen_lm.capture import CapturedGraph, NodeRef
from kernelgen_lm.plan.build import snake
from kernelgen_lm.plan.graph import PlanError

POOL_OPS = {
    "aten.max_pool2d_with_indices.default": ("max", 2),
    "aten.max_pool3d_with_indices.default": ("max", 3),
    "aten.avg_pool2d.default": ("avg", 2),
    "aten.avg_pool3d.default": ("avg", 3),
}
PASS_OPS = (
    "aten.unsqueeze.default",
    "aten.squeeze.dims",
    "aten.squeeze.dim",
    "aten.view.default",
    "aten._unsafe_view.default",
    "<built-in function getitem>",
    "aten.clone.default",
)
MAX_ROW = 16384  # one input row must fit a UB tile


class WindowPlan(BaseModel):
    op_name: str
    kernel_name: str
    input_name: str
    dtype: str
    in_shape: list[int]
    out_shape: list[int]
    op: Literal["max", "avg"]
    spatial: list[int]  # input dims that are (D, H, W); -1 for a size-1 dim torch inserted
    kernel: list[int]  # (kd, kh, kw)
    stride: list[int]
    padding: list[int]
    dilation: list[int]
    ceil_mode: bool = False
    count_include_pad: bool = True
    divisor_override: int | None = None


def _triple(v: object, n: int, fill: int, missing: list[int] | None = None) -> list[int]:
    """An n-dim pooling argument (list or int) as (d, h, w), padded on the left with `fill`."""
    vals = [int(x) for x in v] if isinstance(v, list) else ([] if v is None else [int(v)])
    if not vals:
        vals = list(missing or [fill] * n)
    if len(vals) == 1:
        vals = vals * n
    return [fill] * (3 - n) + vals


def build_window_plan(g: CapturedGraph) -> WindowPlan:
    pools = [n for n in g.nodes if n.target in POOL_OPS]
    if len(pools) != 1:
        raise PlanError("not a single pooling op")
    other = [n for n in g.nodes if n.target not in POOL_OPS and n.target not in PASS_OPS]
    if other:
        raise PlanError(f"pooling fused with {other[0].target} is not supported")
    used = [t for t in g.inputs if any(_refs(n.args, t.name) for n in g.nodes)]
    if len(used) != 1 or len(g.outputs) != 1:
        raise PlanError("pooling is supported on one input with one output")
    pool = pools[0]
    op, rank = POOL_OPS[pool.target]
    src = pool.args[0]
    operand = (
        next((n.shape for n in g.nodes if isinstance(src, NodeRef) and n.name == src.ref), None)
        or used[0].shape
    )
    a = pool.args
    kernel = _triple(a[1], rank, 1)
    stride = _triple(a[2] if len(a) > 2 else None, rank, 1, kernel[3 - rank :])
    padding = _triple(a[3] if len(a) > 3 else None, rank, 0)
    if op == "max":
        dilation = _triple(a[4] if len(a) > 4 else None, rank, 1)
        ceil = bool(a[5]) if len(a) > 5 else False
        include, override = True, None
    else:
        dilation = [1, 1, 1]
        ceil = bool(a[4]) if len(a) > 4 else False
        include = bool(a[5]) if len(a) > 5 else True
        override = int(a[6]) if len(a) > 6 and a[6] is not None else None
    inp = used[0]
    spatial = _match_spatial(inp.shape, operand, rank)
    out = g.node(g.outputs[0])
    if out is None or out.shape is None:
        raise PlanError("pooling output has no shape")
    if inp.shape[-1] > MAX_ROW:
        raise PlanError(f"input rows of {inp.shape[-1]} elements do not fit one UB tile")
    if inp.dtype not in ("float32", "float16", "bfloat16"):
        raise PlanError(f"pooling on {inp.dtype} is not supported")
    return WindowPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        input_name=inp.name,
        dtype=inp.dtype,
        in_shape=inp.shape,
        out_shape=out.shape,
        op=op,
        spatial=spatial,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=ceil,
        count_include_pad=include,
        divisor_override=override,
    )


def _refs(args: list, name: str) -> bool:
    for a in args:
        if isinstance(a, NodeRef) and a.ref == name:
            return True
        if isinstance(a, list) and _refs(a, name):
            return True
    return False


def _match_spatial(in_shape: list[int], operand: list[int], rank: int) -> list[int]:
    """Input dim index of each pooled dim (D, H, W), right to left; -1 where torch inserted it."""
    if math.prod(in_shape) != math.prod(operand):
        raise PlanError("pooling input is not a plain view of the model input")
    out = [-1, -1, -1]
    j = len(in_shape) - 1
    for k in range(rank):
        od = len(operand) - 1 - k
        if j >= 0 and in_shape[j] == operand[od]:
            out[2 - k] = j
            j -= 1
        elif operand[od] != 1:
            raise PlanError("pooling input layout is not supported")
    if j < 0 and math.prod(operand[: len(operand) - rank]) != 1:
        raise PlanError("pooling input layout is not supported")
    return out


def window_text(p: WindowPlan) -> str:
    names = "DHW"
    dims = ", ".join(
        f"{names[i]}={p.input_name}.shape[{d}]" if d >= 0 else f"{names[i]}=1"
        for i, d in enumerate(p.spatial)
    )
    return "\n".join(
        [
            f"kernel {p.kernel_name} (op {p.op_name}), mode window",
            f"input {p.input_name}: {p.dtype}{p.in_shape} viewed as planes x (D, H, W); {dims}",
            f"output: {p.dtype}{p.out_shape} = {p.op}_pool(kernel {p.kernel}, stride {p.stride}, "
            f"padding {p.padding}, dilation {p.dilation}, ceil_mode {p.ceil_mode}"
            + (f", count_include_pad {p.count_include_pad}" if p.op == "avg" else "")
            + (f", divisor {p.divisor_override}" if p.divisor_override else "")
            + ")",
            "split: work units = output rows (plane, od, oh) over cores, big/small split; each "
            "input row is copied to UB once per window row between neutral padding slots",
            "vector: per window column one Gather (byte offsets ow * stride) over the output row "
            + ("+ Max" if p.op == "max" else "+ Add, then Div by the clipped-window divisors")
            + " (chips without Gather, e.g. Ascend 910: the window is read on the scalar unit)",
            "compute: float32 (half/bfloat16 cast on load and store)",
        ]
    )
