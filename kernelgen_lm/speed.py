"""Modelled speed-up of a generated kernel against PyTorch eager on the same NPU.

The eager baseline is modelled from the captured core-ATen graph (`kernelgen_lm.capture`), with
the same cost model and chip facts as the kernel (`ascend_tools.cost`), so the ratio compares
like with like. Assumptions (a MODEL, not a measurement; every figure printed says so):

- the graph is the forward as exported BEFORE decomposition to core ATen
  (`CapturedGraph.eager_nodes`): `mse_loss`, `softmax`, `layer_norm`, `cross_entropy_loss`,
  `silu`, ... stay one op each, as PyTorch dispatches them;
- each compute op of that graph is one eager kernel launch (one launch overhead each). This
  favours eager: torch_npu runs some composite ops (`triplet_margin_loss`, `cosine_similarity`,
  `cross_entropy_loss` = log_softmax + nll_loss) as several kernels. Views, reshapes,
  `getitem`, broadcasts and metadata checks are free (`FREE_OPS`); a non-contiguous view that an
  eager kernel would first copy is not charged, nor is a cast to the dtype a value already has;
- an op reads each tensor operand once from GM and writes its outputs once (no cache reuse
  between ops, intermediates round-trip through GM);
- its vector work is its largest operand's repeats (256 bytes each, at its widest dtype) priced
  by the AscendC API that does that op (`EAGER_API`, default Add-like), spread evenly over all
  vector cores (at most one block per repeat): eager kernels are assumed well parallelised;
- pooling is priced on its input (window overlap ignored);
- a matrix product (`MATMUL_K`) runs on the cube cores: its MACs (result elements x K) at the
  chip's cube rate, spread over all cube cores (at most one block per 16 x 16 result fractal),
  each operand read once (no re-reads across blocks: this favours eager); a convolution
  (`CONV_OPS`) likewise, K being the weight's elements per output channel (implicit GEMM);
- `scaled_dot_product_attention` (`ATTENTION_OPS`) is three launches, as an unfused eager
  attention runs it: Q K^T on the cube with the scores written to GM, softmax over the scores
  (scale and mask applied in the same pass, reading the mask once), P V on the cube reading the
  scores back. torch_npu's fused attention kernels (npu_fusion_attention) are not modelled;
  against them the speed-ups would be lower;
- a contiguous copy (`contiguous`, `clone`) of a strided view (transpose, slice), or such a
  view returned as the output (the caller gets a strided view; the kernel writes the contiguous
  result), is one copy launch (`STRIDED_VIEWS`).

`speedup = eager_us / kernel_us`.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from ascend_tools.chips import REPEAT_BYTES, Chip
from ascend_tools.cost import KernelCost, even_counters, kernel_time
from ascend_tools.toolchain.dtypes import get_dtype
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode
from kernelgen_lm.plan.ops import VIEW_OPS

MODEL_NOTE = "model, not measured"

# Ops that launch no kernel in eager mode: views and metadata.
FREE_OPS = frozenset(
    (
        *VIEW_OPS,
        "<built-in function getitem>",
        "aten.unsqueeze.default",
        "aten.squeeze.dim",
        "aten.squeeze.dims",
        "aten.squeeze.default",
        "aten.expand.default",
        "aten.permute.default",
        "aten.transpose.int",
        "aten.t.default",
        "aten.slice.Tensor",
        "aten.select.int",
        "aten.alias.default",
        "aten.detach.default",
        "aten.as_strided.default",
        "aten._assert_tensor_metadata.default",
        "aten.scalar_tensor.default",
        "aten.broadcast_tensors.default",
        "aten.expand_as.default",
        "aten.view_as.default",
        "aten.flatten.using_ints",
        "aten.unflatten.int",
        "aten.contiguous.default",
    )
)

# The AscendC API whose per-repeat cost (chips.json `vector_api_cycles`) an eager op is priced
# at; ops not listed cost as Add (one cycle per repeat). Fused ops use the high-level API.
EAGER_API: dict[str, str] = {
    "aten.div.Tensor": "Div",
    "aten.div.Scalar": "Div",
    "aten.reciprocal.default": "Reciprocal",
    "aten.fmod.Scalar": "Div",
    "aten.fmod.Tensor": "Div",
    "aten.remainder.Scalar": "Div",
    "aten.remainder.Tensor": "Div",
    "aten.exp.default": "Exp",
    "aten.expm1.default": "Exp",
    "aten.log.default": "Ln",
    "aten.log1p.default": "Ln",
    "aten.sqrt.default": "Sqrt",
    "aten.rsqrt.default": "Rsqrt",
    "aten.pow.Tensor_Scalar": "Power",
    "aten.pow.Tensor_Tensor": "Power",
    "aten.sigmoid.default": "Sigmoid",
    "aten.tanh.default": "Tanh",
    "aten.gelu.default": "Gelu",
    "aten.erf.default": "Erf",
    "aten.elu.default": "Exp",
    "aten.sin.default": "Sin",
    "aten.cos.default": "Cos",
    "aten.tan.default": "Sin",
    "aten.asin.default": "Asin",
    "aten.acos.default": "Acos",
    "aten.atan.default": "Atan",
    "aten.atan2.default": "Atan",
    "aten.sinh.default": "Tanh",
    "aten.cosh.default": "Tanh",
    "aten.asinh.default": "Tanh",
    "aten.acosh.default": "Tanh",
    "aten.atanh.default": "Tanh",
    "aten.exp2.default": "Exp",
    "aten.erfc.default": "Erf",
    "aten.hypot.default": "Sqrt",
    "aten.xlogy.Tensor": "Ln",
    "aten.logaddexp.default": "Exp",
    "aten.sum.dim_IntList": "ReduceSum",
    "aten.sum.default": "ReduceSum",
    "aten.mean.dim": "ReduceSum",
    "aten.mean.default": "ReduceSum",
    "aten.prod.dim_int": "ReduceSum",
    "aten.linalg_vector_norm.default": "ReduceSum",
    "aten.var.correction": "ReduceSum",
    "aten.amax.default": "ReduceMax",
    "aten.amin.default": "ReduceMin",
    "aten.max.default": "ReduceMax",
    "aten.max.dim": "ReduceMax",
    "aten.min.dim": "ReduceMin",
    "aten.argmax.default": "ReduceMax",
    "aten.argmin.default": "ReduceMin",
    "aten._softmax.default": "SoftMax",
    "aten._log_softmax.default": "SoftMax",
    "aten.native_layer_norm.default": "LayerNorm",
    "aten.native_group_norm.default": "LayerNorm",
    "aten._native_batch_norm_legit.no_stats": "LayerNorm",
    "aten._native_batch_norm_legit_no_training.default": "LayerNorm",
    "aten.gather.default": "Gather",
    # Index and resize ops of the move family: eager reads its source through a gather.
    "aten.index_select.default": "Gather",
    "aten.upsample_nearest2d.vec": "Gather",
    "aten.upsample_bilinear2d.vec": "Gather",
    # Fused ops of the pre-decomposition graph, priced at their dominant step.
    "aten.softmax.int": "SoftMax",
    "aten.log_softmax.int": "SoftMax",
    "aten.logsumexp.default": "Exp",
    "aten.cross_entropy_loss.default": "SoftMax",
    "aten.nll_loss_nd.default": "Gather",
    "aten.layer_norm.default": "LayerNorm",
    "aten.group_norm.default": "LayerNorm",
    "aten.instance_norm.default": "LayerNorm",
    "aten.batch_norm.default": "LayerNorm",
    "aten.rms_norm.default": "LayerNorm",
    "aten.mse_loss.default": "ReduceSum",
    "aten.l1_loss.default": "ReduceSum",
    "aten.huber_loss.default": "ReduceSum",
    "aten.smooth_l1_loss.default": "ReduceSum",
    "aten.margin_ranking_loss.default": "ReduceSum",
    "aten.kl_div.default": "Ln",
    "aten.binary_cross_entropy.default": "Ln",
    "aten.binary_cross_entropy_with_logits.default": "Exp",
    "aten.poisson_nll_loss.default": "Exp",
    "aten.soft_margin_loss.default": "Exp",
    "aten.triplet_margin_loss.default": "Sqrt",
    "aten.cosine_similarity.default": "Sqrt",
    "aten.std.dim": "ReduceSum",
    "aten.var.dim": "ReduceSum",
    "aten.var_mean.dim": "ReduceSum",
    "aten.all.dim": "ReduceMin",
    "aten.any.dim": "ReduceMax",
    "aten.silu.default": "Sigmoid",
    "aten.mish.default": "Tanh",
    "aten.softplus.default": "Exp",
    "aten.log_sigmoid.default": "Exp",
    "aten.celu.default": "Exp",
    "aten.selu.default": "Exp",
    "aten.addcdiv.default": "Div",
    "aten.pow.Scalar": "Power",
}


# Matrix-product ops of the eager graph: the argument whose last dim is K (the left operand).
MATMUL_K: dict[str, int] = {
    "aten.mm.default": 0,
    "aten.bmm.default": 0,
    "aten.matmul.default": 0,
    "aten.linear.default": 0,
    "aten.addmm.default": 1,
    "aten.baddbmm.default": 1,
}
FRACTAL = 16 * 16  # result elements of one cube fractal
# Attention ops of the eager graph, priced as matmul + softmax + matmul (`_attention_ops`).
ATTENTION_OPS = ("aten.scaled_dot_product_attention.default",)
# Convolutions of the eager graph (weight = argument 1, [Cout, Cin/groups, *kernel]): implicit
# GEMM on the cube, result elements x Cin/groups x kernel taps MACs.
CONV_OPS = ("aten.convolution.default", "aten.conv1d.default", "aten.conv2d.default")
# Views whose contiguous copy is a real eager kernel (a strided read).
STRIDED_VIEWS = (
    "aten.transpose.int",
    "aten.permute.default",
    "aten.t.default",
    "aten.slice.Tensor",
    "aten.narrow.default",
    "aten.expand.default",  # x.expand(...).contiguous() materialises the broadcast
)
COPY_OPS = ("aten.contiguous.default", "aten.clone.default")


class EagerOp(BaseModel):
    """One modelled eager launch."""

    target: str
    api: str
    gm_bytes: int
    total_us: float


class EagerCost(BaseModel):
    chip: str
    total_us: float
    launches: int
    ops: list[EagerOp]


class SpeedReport(BaseModel):
    """Modelled kernel and eager times (us) and `speedup` = eager / kernel."""

    kernel: KernelCost
    eager: EagerCost
    speedup: float
    note: str = MODEL_NOTE

    def line(self) -> str:
        return (
            f"modelled speed-up vs eager: {self.speedup:.2f}x (kernel {self.kernel.total_us:.1f} "
            f"us, eager {self.eager.total_us:.1f} us; {self.note})"
        )


def _tensors(graph: CapturedGraph) -> dict[str, tuple[int, int]]:
    """Each named value's (elements, element bytes), where the graph knows its shape."""
    known = {t.name: (math.prod(t.shape), get_dtype(t.dtype).size) for t in graph.inputs}
    for n in _eager_nodes(graph):
        if n.shape is not None and n.dtype is not None:
            known[n.name] = (math.prod(n.shape), get_dtype(n.dtype).size)
    return known


def _eager_nodes(graph: CapturedGraph) -> list[OpNode]:
    """The ops eager PyTorch runs (graphs captured before `eager_nodes` existed: core ATen)."""
    return graph.eager_nodes or graph.nodes


def _dtypes(graph: CapturedGraph) -> dict[str, str]:
    """Each named value's dtype, where the graph knows it."""
    known = {t.name: t.dtype for t in graph.inputs}
    return known | {n.name: n.dtype for n in _eager_nodes(graph) if n.dtype is not None}


def _same_dtype_cast(node: OpNode, dtypes: dict[str, str]) -> bool:
    """`x.to(dtype)` / `x.float()` to the dtype `x` already has returns `x`: no launch."""
    if node.target not in ("aten.to.dtype", "aten._to_copy.default", "aten.type_as.default"):
        return False
    src = _refs(node.args[:1])
    return bool(src) and node.dtype is not None and dtypes.get(src[0]) == node.dtype


def _refs(value: object) -> list[str]:
    if isinstance(value, NodeRef):
        return [value.ref]
    if isinstance(value, (list, tuple)):
        return [r for v in value for r in _refs(v)]
    return []


def _outputs(node: OpNode, graph: CapturedGraph, known: dict[str, tuple[int, int]]) -> list[str]:
    """The values a launch writes: the node itself, or the `getitem`s of a tuple result."""
    if node.name in known:
        return [node.name]
    return [
        n.name
        for n in _eager_nodes(graph)
        if n.target in FREE_OPS and n.name in known and node.name in _refs(n.args[:1])
    ]


def _shapes(graph: CapturedGraph) -> dict[str, list[int]]:
    known = {t.name: t.shape for t in graph.inputs}
    return known | {n.name: n.shape for n in _eager_nodes(graph) if n.shape is not None}


def _matmul_op(node: OpNode, graph: CapturedGraph, chip: Chip, gm_bytes: int) -> EagerOp | None:
    """A matrix product priced on the cube cores, or None when its operand shapes are unknown."""
    shapes = _shapes(graph)
    dtypes = _dtypes(graph)
    conv = node.target in CONV_OPS
    at = 1 if conv else MATMUL_K[node.target]
    arg = node.args[at] if len(node.args) > at else None
    if not isinstance(arg, NodeRef) or arg.ref not in shapes or node.shape is None:
        return None
    dims = shapes[arg.ref]
    # K of a convolution's implicit GEMM: the weight's elements per output channel.
    k = math.prod(dims[1:]) if conv else (dims[-1] if dims else 1)
    out = math.prod(node.shape)
    macs = out * k
    key = "cube_macs_fp32" if dtypes.get(arg.ref) == "float32" else "cube_macs"
    blocks = min(max(1, chip.cube_cores), max(1, math.ceil(out / FRACTAL)))
    counters = even_counters(gm_bytes, {}, blocks)
    for b in counters["per_block"]:
        b[key] = macs / blocks
    cost = kernel_time(counters, chip)
    return EagerOp(target=node.target, api="Matmul", gm_bytes=gm_bytes, total_us=cost.total_us)


def _cube_launch(target: str, out: int, k: int, fp32: bool, gm_bytes: int, chip: Chip) -> EagerOp:
    """One eager product of `out` result elements and reduction length `k` on the cube cores
    (spread as `_matmul_op` spreads them)."""
    key = "cube_macs_fp32" if fp32 else "cube_macs"
    blocks = min(max(1, chip.cube_cores), max(1, math.ceil(out / FRACTAL)))
    counters = even_counters(gm_bytes, {}, blocks)
    for b in counters["per_block"]:
        b[key] = out * k / blocks
    cost = kernel_time(counters, chip)
    return EagerOp(target=target, api="Matmul", gm_bytes=gm_bytes, total_us=cost.total_us)


def _attention_ops(node: OpNode, graph: CapturedGraph, chip: Chip) -> list[EagerOp] | None:
    """SDPA as eager attention without a fused kernel: S = Q K^T to GM, softmax(S * scale +
    mask) in GM, O = P V. None when the operand shapes are unknown."""
    shapes, dtypes = _shapes(graph), _dtypes(graph)
    refs = [a.ref if isinstance(a, NodeRef) else None for a in node.args[:4]]
    if len(refs) < 3 or any(r not in shapes for r in refs[:3]):
        return None
    q, k, v = (shapes[r] for r in refs[:3])  # type: ignore[index]
    if min(len(q), len(k), len(v)) < 2:
        return None
    size = get_dtype(dtypes.get(refs[0] or "", "float32")).size
    fp32 = dtypes.get(refs[0] or "") == "float32"
    batch = math.prod(q[:-2])
    scores = batch * q[-2] * k[-2]
    out = batch * q[-2] * v[-1]
    mask = refs[3] if len(refs) > 3 else None
    mask_bytes = 0
    if mask in shapes:
        mask_bytes = math.prod(shapes[mask]) * get_dtype(dtypes.get(mask, "float32")).size
    qk = _cube_launch(
        node.target, scores, q[-1], fp32, (math.prod(q) + math.prod(k) + scores) * size, chip
    )
    repeats = math.ceil(scores * max(size, 4) / REPEAT_BYTES)
    sm_bytes = 2 * scores * size + mask_bytes
    sm = kernel_time(
        even_counters(sm_bytes, {"SoftMax": repeats}, min(chip.vector_cores, max(1, repeats))),
        chip,
    )
    pv = _cube_launch(node.target, out, k[-2], fp32, (scores + math.prod(v) + out) * size, chip)
    softmax = EagerOp(target=node.target, api="SoftMax", gm_bytes=sm_bytes, total_us=sm.total_us)
    return [qk, softmax, pv]


def eager_time(graph: CapturedGraph, chip: Chip) -> EagerCost:
    """Modelled time of running the graph op by op in PyTorch eager (assumptions above)."""
    known = _tensors(graph)
    dtypes = _dtypes(graph)
    ops: list[EagerOp] = []
    nodes = _eager_nodes(graph)
    transposed = {n.name for n in nodes if n.target in STRIDED_VIEWS}
    read = {r for n in nodes for r in _refs([*n.args, *n.kwargs.values()])}
    for node in nodes:
        src = _refs(node.args[:1])
        copy = (node.target in COPY_OPS and bool(src) and src[0] in transposed) or (
            node.name in transposed and node.name not in read  # returned as the output
        )
        if (node.target in FREE_OPS and not copy) or _same_dtype_cast(node, dtypes):
            continue
        reads = [known[r] for r in _refs([*node.args, *node.kwargs.values()]) if r in known]
        writes = [known[w] for w in _outputs(node, graph, known)]
        operands = reads + writes
        if not operands:
            continue
        gm_bytes = sum(n * size for n, size in operands)
        if node.target in ATTENTION_OPS:
            attn = _attention_ops(node, graph, chip)
            if attn is not None:
                ops += attn
                continue
        if node.target in MATMUL_K or node.target in CONV_OPS:
            mm = _matmul_op(node, graph, chip, gm_bytes)
            if mm is not None:
                ops.append(mm)
                continue
        width = max(size for _, size in operands)
        repeats = math.ceil(max(n for n, _ in operands) * width / REPEAT_BYTES)
        api = EAGER_API.get(node.target, "Add")
        blocks = min(chip.vector_cores, max(1, repeats))
        cost = kernel_time(even_counters(gm_bytes, {api: repeats}, blocks), chip)
        ops.append(EagerOp(target=node.target, api=api, gm_bytes=gm_bytes, total_us=cost.total_us))
    return EagerCost(
        chip=chip.name, total_us=sum(o.total_us for o in ops), launches=len(ops), ops=ops
    )


def speed_report(graph: CapturedGraph, counters: dict, chip: Chip) -> SpeedReport:
    """Kernel cost from the emulator counters of the reference-shape run, eager cost from the
    graph captured at the same shapes, and their ratio."""
    kernel = kernel_time(counters, chip)
    eager = eager_time(graph, chip)
    return SpeedReport(kernel=kernel, eager=eager, speedup=eager.total_us / kernel.total_us)


# Speed-up thresholds of the fast_p metric (AscendCraft reports Fast1.0, >= 0.8x and >= 0.2x).
FAST_THRESHOLDS = (1.0, 0.8, 0.2)


class SpeedSummary(BaseModel):
    """Suite metrics: `fast[str(p)]` = fraction of ALL stubs that are correct and at or above
    p x eager (modelled); `geomean_speedup` over the correct stubs that have a speed figure."""

    total: int
    passed: int
    pass_rate: float
    fast: dict[str, float]
    geomean_speedup: float | None


def speed_summary(results: list[tuple[bool, float | None]]) -> SpeedSummary:
    """Metrics of (correct, modelled speed-up or None) per stub."""
    total = len(results)
    passed = sum(1 for ok, _ in results if ok)
    ups = [s for ok, s in results if ok and s is not None and s > 0]
    fast = {
        f"{p:.1f}": (sum(1 for s in ups if s >= p) / total if total else 0.0)
        for p in FAST_THRESHOLDS
    }
    geo = math.exp(sum(math.log(s) for s in ups) / len(ups)) if ups else None
    return SpeedSummary(
        total=total,
        passed=passed,
        pass_rate=passed / total if total else 0.0,
        fast=fast,
        geomean_speedup=geo,
    )
