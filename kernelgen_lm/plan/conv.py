"""Convolution as implicit GEMM on the cube unit: a plan kind next to matmul and move.

One `aten.convolution` (nn.Conv1d/Conv2d, F.conv1d/conv2d) per graph. For every batch image
`b` and group `g` the output is one matrix product

    out[b, g*Cog:(g+1)*Cog, p] = W_g[Cog, K] @ col_bg[K, p],   K = Cin/groups * kh * kw,

where p runs over the output positions (oy, ox) in NCHW order, so the product's rows are output
channels and its columns are the contiguous spatial positions of the result. The im2col matrix
`col` is gathered per block of whole output rows by the vector unit into a per-core GM
workspace (a Gather per kernel tap from a slab of input rows in UB; padding reads a zero slot),
then the Matmul high-level API multiplies the group's weight rows by it.

The bias and every elementwise op after the convolution (activation, residual add, scale, cast)
form the epilogue, planned by the fused vector planner on a graph whose first input is the
float32 product (`MM_INPUT`), and applied per base block in UB as in the matmul family. An
epilogue input reached through views (the bias `b.view(1, -1, 1, 1)`) is read in its viewed
shape; it varies along the channels, along all output positions, both, or neither.

Strides, padding, dilation and groups are constants of the captured call; sizes (N, Cin, H, W)
are runtime values read by the host TilingFunc. Conv3d and transposed convolution are refused.
"""

from __future__ import annotations

import math

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode, TensorSpec
from kernelgen_lm.plan.build import build_plan, snake
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import KernelPlan, plan_text
from kernelgen_lm.plan.matmul import CUBE_DTYPES, MM_INPUT

CONV_OPS = ("aten.convolution.default",)
# Ops between a graph input and the convolution that leave its values as they are.
PASS_OPS = ("aten.clone.default", "aten.contiguous.default", "aten.alias.default")
# Views an epilogue input may be read through (its elements in order, a new shape).
VIEW_OPS = (
    "aten.view.default",
    "aten._unsafe_view.default",
    "aten.reshape.default",
    "aten.unsqueeze.default",
)
CONV_DTYPES = ("float32", "float16", "bfloat16")


class ConvEpiInput(BaseModel):
    """A kernel input the epilogue reads, in the shape it is seen with (after views)."""

    input: int
    plan_index: int  # its index among the epilogue plan's inputs
    shape: list[int]  # the viewed shape, right-aligned against the output
    vary_c: bool  # varies along the output channels
    vary_p: bool  # varies along the output positions (then along all of them)


class ConvPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[TensorSpec]
    dtype: str  # x and weight element type
    x: int  # kernel input index of the image [N, Cin, (H,) W]
    w: int  # kernel input index of the weight [Cout, Cin/groups, (kh,) kw]
    spatial: int  # 1 (conv1d) or 2 (conv2d)
    # Per spatial axis, (H, W) order; conv1d is planned as H = 1, kh = 1.
    kernel: list[int]
    stride: list[int]
    padding: list[int]
    dilation: list[int]
    groups: int
    out_shape: list[int]
    out_dtype: str
    epilogue: KernelPlan | None = None  # None: the product (cast to out_dtype) is the output
    epi_inputs: list[ConvEpiInput] = []
    bias: int | None = None  # the convolution's own bias input (read by the epilogue)
    # The slab lowering (Load3D from an NC1HWC0 slab in L1) instead of the gathered im2col
    # workspace: chosen by the cost model (plan/conv_cost.py); `lowering` says why.
    slab: bool = False
    shared_weight: bool = False  # slab: the weight re-laid once by all cores (one SyncAll)
    lowering: str = ""

    @property
    def direct(self) -> bool:
        """Always False: every block comes to UB (the result is [Cout, positions] per image)."""
        return False

    @property
    def pointwise(self) -> bool:
        """1 x 1 kernel, stride 1, no padding: the image plane [Cin, H * W] is the im2col
        matrix itself, so the product reads it in place (no gather, no workspace)."""
        return (
            all(k == 1 for k in self.kernel)
            and all(s == 1 for s in self.stride)
            and all(x == 0 for x in self.padding)
        )

    @property
    def fixpipe_epilogue(self) -> tuple[bool, bool] | None:
        """(bias, relu) when the epilogue is at most the conv's own bias then a ReLU, with the
        output in the product's dtype or float32: the slab lowering's cube then adds the bias
        (one more K column, against ones) and Fixpipe applies the ReLU and the cast on its way
        to GM. None: the vector epilogue is needed."""
        if self.out_dtype not in (self.dtype, "float32"):
            return None
        if self.epilogue is None:
            return (False, False)
        nodes, out = self.epilogue.nodes, self.epilogue.outputs
        relu_only = [("input", [], 0), ("relu", [0], None)]
        if [(n.op, n.args, n.index) for n in nodes] == relu_only and not self.epi_inputs:
            return (False, True) if len(out) == 1 and out[0].node == 1 else None
        bias_k = next((e.plan_index for e in self.epi_inputs if e.input == self.bias), None)
        if len(out) != 1 or bias_k is None or len(self.epi_inputs) != 1:
            return None
        if self.inputs[self.bias or 0].dtype != self.dtype:
            return None
        ops = [(n.op, n.args, n.index) for n in nodes]
        want = [("input", [], 0), ("input", [], bias_k), ("add", [0, 1], None)]
        if ops == want and out[0].node == 2:
            return (True, False)
        if ops == [*want, ("relu", [2], None)] and out[0].node == 3:
            return (True, True)
        return None

    @property
    def geometry2d(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """(kernel, stride, padding, dilation) as (H, W) pairs; conv1d gets H = 1."""
        if self.spatial == 2:
            return self.kernel, self.stride, self.padding, self.dilation
        return (
            [1, *self.kernel],
            [1, *self.stride],
            [0, *self.padding],
            [1, *self.dilation],
        )


def is_conv_graph(g: CapturedGraph) -> bool:
    return any(n.target in CONV_OPS for n in g.nodes)


def out_size(size: int, k: int, s: int, p: int, d: int) -> int:
    """torch's output length of one spatial axis."""
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _source(g: CapturedGraph, ref: object, what: str, chain: set[str]) -> int:
    """The graph input a convolution operand is, through contiguous copies only."""
    names = g.input_names()
    while True:
        if not isinstance(ref, NodeRef):
            raise PlanError(f"the convolution's {what} is not a tensor")
        if ref.ref in names:
            return names.index(ref.ref)
        node = g.node(ref.ref)
        if node is not None and node.target == "aten.unsqueeze.default" and what == "input":
            raise PlanError(
                "an unbatched convolution input (torch adds the batch axis): only batched "
                "[N, C, L] / [N, C, H, W] inputs are covered"
            )
        if node is None or node.target not in PASS_OPS:
            op = node.target if node is not None else ref.ref
            raise PlanError(
                f"the convolution's {what} is computed by {op}: ops before the convolution "
                "(a prologue, padding modes other than zeros) are not fused; the "
                f"{what} must be a model input or parameter"
            )
        chain.add(node.name)
        ref = node.args[0] if node.args else None


def _ints(v: object, n: int) -> list[int]:
    vals = [int(x) for x in v] if isinstance(v, list) else [int(v)] * n  # type: ignore[arg-type]
    return vals * n if len(vals) == 1 else vals


def build_conv_plan(g: CapturedGraph, chip: Chip | None = None) -> ConvPlan:
    cores = [n for n in g.nodes if n.target in CONV_OPS]
    if not cores:
        raise PlanError("no convolution in the graph")
    if len(cores) > 1:
        raise PlanError(
            f"{len(cores)} convolutions in one graph: only one convolution with an elementwise "
            "epilogue is generated by the rule-based path"
        )
    core = cores[0]
    a = [*core.args, None, None, None, None, None, None, None, None, None][:9]
    x_ref, w_ref, b_ref, stride, padding, dilation, transposed, _out_pad, groups = a
    w_name = w_ref.ref if isinstance(w_ref, NodeRef) else ""
    w_spec = next((t for t in g.inputs if t.name == w_name), None)
    rank = len(core.shape or [])
    if rank == 5 or (w_spec is not None and len(w_spec.shape) == 5):
        raise PlanError(
            "conv3d is not generated yet: the implicit-GEMM lowering covers 1-D and 2-D "
            "convolutions (nn.Conv1d, nn.Conv2d)"
        )
    if transposed:
        raise PlanError(
            "transposed convolution (ConvTranspose, conv_transpose) is not generated yet: only "
            "forward 1-D and 2-D convolutions are"
        )
    if rank not in (3, 4):
        raise PlanError(
            f"convolution with a {rank}-D result: only batched 1-D [N, C, L] and 2-D "
            "[N, C, H, W] inputs are covered (add the batch axis)"
        )
    if len(g.outputs) != 1:
        raise PlanError("a convolution with several outputs is not covered")
    spatial = rank - 2
    chain: set[str] = set()
    xi = _source(g, x_ref, "input", chain)
    wi = _source(g, w_ref, "weight", chain)
    X, Wt = g.inputs[xi], g.inputs[wi]
    if len(X.shape) != rank or len(Wt.shape) != rank:
        raise PlanError(f"convolution input {X.shape} / weight {Wt.shape} ranks differ")
    if X.dtype != Wt.dtype:
        raise PlanError(f"input and weight of different dtypes ({X.dtype}, {Wt.dtype})")
    if X.dtype not in CONV_DTYPES:
        raise PlanError(f"{X.dtype} convolution is not covered (float16, bfloat16, float32)")
    if chip is not None:
        ok = CUBE_DTYPES.get(chip.arch)
        if ok is None:
            raise PlanError(
                f"{chip.name} ({chip.arch}): the Matmul high-level API is not documented for "
                "this chip (Atlas training series); convolutions are not generated for it"
            )
        if X.dtype not in ok:
            raise PlanError(
                f"{X.dtype} convolution is not supported by the cube unit of {chip.name} "
                f"({chip.arch}: {', '.join(ok)})"
            )
        if not chip.has_datacopypad:
            raise PlanError(
                f"{chip.name} has no DataCopyPad: the im2col rows and odd-sized result rows "
                "are not lowered for it"
            )
    ks = list(Wt.shape[2:])
    st = _ints(stride, spatial)
    pd = _ints(padding, spatial)
    dl = _ints(dilation, spatial)
    grp = int(groups or 1)  # type: ignore[arg-type]
    if any(s < 1 for s in st) or any(d < 1 for d in dl) or any(p < 0 for p in pd):
        raise PlanError(f"stride {st}, padding {pd}, dilation {dl}: out of range")
    cin, cout = X.shape[1], Wt.shape[0]
    if grp < 1 or cin % grp or cout % grp or Wt.shape[1] != cin // grp:
        raise PlanError(f"groups={grp} does not split Cin={cin} and Cout={cout}")

    # The bias: a graph input (the convolution's third argument) added per output channel.
    bias: int | None = None
    if b_ref is not None:
        bias = _source(g, b_ref, "bias", chain)
        if g.inputs[bias].shape != [cout]:
            raise PlanError(f"bias {g.inputs[bias].shape} is not [Cout={cout}]")
    final = g.node(g.outputs[0])
    if final is None or final.shape is None:
        raise PlanError("the output is not a tensor computed by the graph")
    out_shape = list(core.shape or [])
    if final.shape != out_shape:
        raise PlanError(
            f"the output {final.shape} is not the convolution's shape {out_shape}: reductions, "
            "pooling or reshapes after the convolution are not fused"
        )
    after = [
        n
        for n in g.nodes
        if n.name != core.name
        and n.name not in chain
        and n.target != "aten._assert_tensor_metadata.default"
    ]
    epilogue, epi_inputs = _plan_epilogue(g, core, after, bias, out_shape)
    plan = ConvPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        dtype=X.dtype,
        x=xi,
        w=wi,
        spatial=spatial,
        kernel=ks,
        stride=st,
        padding=pd,
        dilation=dl,
        groups=grp,
        out_shape=out_shape,
        out_dtype=final.dtype or X.dtype,
        epilogue=epilogue,
        epi_inputs=epi_inputs,
        bias=bias,
    )
    if chip is not None:
        from kernelgen_lm.plan.conv_cost import choose_slab  # it prices ConvPlans

        plan.slab, plan.shared_weight, plan.lowering = choose_slab(plan, chip)
    return plan


def _rename(args: list, old: str, new: str) -> list:
    out = []
    for a in args:
        if isinstance(a, NodeRef) and a.ref == old:
            out.append(NodeRef(ref=new))
        elif isinstance(a, list):
            out.append(_rename(a, old, new))
        else:
            out.append(a)
    return out


def _refs(args: list) -> list[str]:
    out: list[str] = []
    for a in args:
        if isinstance(a, NodeRef):
            out.append(a.ref)
        elif isinstance(a, list):
            out += _refs(a)
    return out


def _plan_epilogue(
    g: CapturedGraph, core: OpNode, after: list[OpNode], bias: int | None, out_shape: list[int]
) -> tuple[KernelPlan | None, list[ConvEpiInput]]:
    """The bias and the ops after the convolution as a fused elementwise plan whose first input
    is the float32 product; views of model inputs become those inputs in the viewed shape."""
    names = g.input_names()
    seen: dict[str, list[int]] = {}  # input name -> the shape the epilogue reads it in
    nodes: list[OpNode] = []
    alias: dict[str, str] = {}  # view node -> the input it views
    for n in after:
        src = n.args[0] if n.args else None
        if n.target in VIEW_OPS and isinstance(src, NodeRef) and src.ref in names:
            shape = list(n.shape or [])
            if seen.get(src.ref, shape) != shape:
                raise PlanError(f"epilogue input {src.ref} is read in two shapes")
            seen[src.ref] = shape
            alias[n.name] = src.ref
            continue
        args = n.args
        for old, new in alias.items():
            args = _rename(args, old, new)
        nodes.append(n.model_copy(update={"args": args}))
    for n in nodes:
        for r in _refs([*n.args, *n.kwargs.values()]):
            if r in names and r not in seen:
                seen[r] = g.inputs[names.index(r)].shape
    if bias is not None:
        bname = names[bias]
        view = [out_shape[1]] + [1] * (len(out_shape) - 2)
        if seen.get(bname, view) != view:
            raise PlanError(f"the bias {bname} is also read in another shape after the conv")
        seen[bname] = view
        add = OpNode(
            name=core.name,
            target="aten.add.Tensor",
            args=[NodeRef(ref=MM_INPUT), NodeRef(ref=bname)],
            shape=out_shape,
            dtype=core.dtype,
        )
        nodes = [add, *nodes]
    else:
        nodes = [n.model_copy(update={"args": _rename(n.args, core.name, MM_INPUT)}) for n in nodes]
    if not nodes:
        return None, []
    for n in nodes:
        if n.target in (*VIEW_OPS, "aten.expand.default", "aten.permute.default"):
            raise PlanError(
                f"{n.target} of a computed value after the convolution: only elementwise ops "
                "(and views of model inputs) are fused into the epilogue"
            )
    used = [i for i, t in enumerate(g.inputs) if t.name in seen]
    r = len(out_shape)
    epi: list[ConvEpiInput] = []
    for k, i in enumerate(used):
        t, shape = g.inputs[i], seen[g.inputs[i].name]
        if math.prod(shape) != math.prod(t.shape):
            raise PlanError(f"epilogue input {t.name}{t.shape} viewed as {shape}: not a view")
        if len(shape) > r or any(
            s not in (1, o) for s, o in zip(reversed(shape), reversed(out_shape), strict=False)
        ):
            raise PlanError(f"epilogue input {t.name}{shape} does not broadcast to {out_shape}")
        if t.dtype not in CONV_DTYPES:
            raise PlanError(f"epilogue input {t.name} has dtype {t.dtype} (float types only)")
        lead = [1] * (r - len(shape)) + shape
        sp = [s != 1 for s, o in zip(lead[2:], out_shape[2:], strict=True) if o != 1]
        if any(sp) and not all(sp):
            raise PlanError(
                f"epilogue input {t.name}{shape} broadcasts along some output positions only "
                "(a per-row or per-column tensor): not fused"
            )
        epi.append(
            ConvEpiInput(
                input=i,
                plan_index=k + 1,
                shape=shape,
                vary_c=lead[1] != 1,
                vary_p=any(sp),
            )
        )
    sub = CapturedGraph(
        op_name=g.op_name,
        source=g.source,
        inputs=[TensorSpec(name=MM_INPUT, shape=out_shape, dtype="float32")]
        + [
            g.inputs[i].model_copy(update={"kind": "input", "shape": seen[g.inputs[i].name]})
            for i in used
        ],
        nodes=nodes,
        outputs=list(g.outputs),
    )
    try:
        plan = build_plan(sub)
    except PlanError as e:
        raise PlanError(f"epilogue after the convolution: {e}") from None
    if plan.stages:
        raise PlanError("reductions after the convolution (norms, softmax, sums) are not fused")
    for n in plan.nodes:
        if n.op in ("iota", "count", "gcount", "stat"):
            raise PlanError(f"epilogue op {n.op} is not covered after a convolution")
    if len(plan.outputs) != 1 or plan.outputs[0].level != "full":
        raise PlanError("the epilogue must produce one full-shape output")
    return plan, epi


def conv_text(p: ConvPlan) -> str:
    names = [t.name for t in p.inputs]
    X, Wt = p.inputs[p.x], p.inputs[p.w]
    k, s, pd, d = p.geometry2d
    cg = X.shape[1] // p.groups
    if p.slab:
        return _slab_text(p)
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode conv (conv{p.spatial}d, implicit GEMM)",
        f"x = {X.name}{X.shape}, weight = {Wt.name}{Wt.shape}, groups {p.groups}; "
        f"kernel {k}, stride {s}, padding {pd}, dilation {d} (as H, W)",
        f"per (image, group): out[Cout/groups={Wt.shape[0] // p.groups}, positions] = "
        f"W_g[Cout/groups, K={cg * k[0] * k[1]}] @ col[K, positions] on the cube "
        f"(Matmul high-level API, {p.dtype} -> float32 accumulate)",
        "im2col: per block of whole output rows, per input channel of the group a slab of "
        "input rows in UB (zero rows for vertical padding), one Gather per kernel tap "
        "(offset table built once per core; horizontal padding reads a zero slot) into a "
        "per-core GM workspace",
        "split: work units = (image, group, output-row block) over the cube cores, big/small; "
        "pointwise units also split the output channels when that moves fewer GM bytes",
        *(
            ["pointwise (1 x 1, stride 1, no padding): the product reads the image in place"]
            if p.pointwise
            else []
        ),
        "epilogue: per baseM x baseN block GetTensorC into UB (float32), then per chunk of its "
        f"rows the vector plan below, cast to {p.out_dtype}, DataCopyPad rows to GM",
    ]
    if p.lowering:
        lines.append(f"lowering: {p.lowering}")
    if p.bias is not None:
        lines.append(f"bias {names[p.bias]}: added per output channel in the epilogue")
    if p.epilogue is not None:
        lines += ["  " + x for x in plan_text(p.epilogue).splitlines()]
    return "\n".join(lines)


def _slab_text(p: ConvPlan) -> str:
    names = [t.name for t in p.inputs]
    X, Wt = p.inputs[p.x], p.inputs[p.w]
    k, s, pd, d = p.geometry2d
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode conv (conv{p.spatial}d, Load3D slab)",
        f"x = {X.name}{X.shape}, weight = {Wt.name}{Wt.shape}; kernel {k}, stride {s}, "
        f"padding {pd}, dilation {d} (as H, W)",
        f"lowering: {p.lowering}",
        "per core (AIV): the weight re-laid into Load3D's K order (c1, kh, kw, c0) as "
        "[Cout/16][K/16][16][16] L0A fractals, through the core's GM workspace",
        "per unit (image, block of R output rows): AIV re-lays the rows inside the image as an "
        "NC1HWC0 slab (Gather, 16 channels at a time) into the workspace; AIC loads it into L1 "
        "once, Load3D K chunks into L0B (padding by Load3D), weight fractals into L0A, Mmad "
        f"accumulates C[Cout, positions] in L0C ({p.dtype} -> float32), Fixpipe to the workspace",
        "epilogue (AIV): per baseM x baseN block of the float result, per chunk of its rows the "
        f"vector plan below, cast to {p.out_dtype}, DataCopyPad rows to GM",
    ]
    if p.bias is not None:
        lines.append(f"bias {names[p.bias]}: added per output channel in the epilogue")
    if p.epilogue is not None:
        lines += ["  " + x for x in plan_text(p.epilogue).splitlines()]
    return "\n".join(lines)


def conv_variants(p: ConvPlan) -> list[list[list[int]]]:
    """One shape variant with odd sizes: the image's spatial axes grow (H + 2, W + 1; L + 1 for
    conv1d) and N + 1; forward inputs that vary along the output positions grow with the result.
    Parameters pin nothing here (they only carry channel counts)."""
    inputs = p.inputs
    users = [i for i, t in enumerate(inputs) if t.kind == "input"]
    if p.x not in users:
        return []
    X = inputs[p.x]
    grow_sp = [2, 1] if p.spatial == 2 else [1]
    new_x = [X.shape[0] + 1, X.shape[1]] + [
        s + gsz for s, gsz in zip(X.shape[2:], grow_sp, strict=True)
    ]
    k, s, pd, d = p.kernel, p.stride, p.padding, p.dilation
    new_out = [new_x[0], p.out_shape[1]] + [
        out_size(new_x[2 + j], k[j], s[j], pd[j], d[j]) for j in range(p.spatial)
    ]
    if any(v < 1 for v in new_out):
        return []
    r = len(p.out_shape)
    variant: list[list[int]] = []
    for i in users:
        t = inputs[i]
        if i == p.x:
            variant.append(new_x)
            continue
        if i == p.w:
            variant.append(list(t.shape))
            continue
        e = next((e for e in p.epi_inputs if e.input == i), None)
        if e is None:
            variant.append(list(t.shape))
            continue
        if e.shape != t.shape:  # read through a view: its sizes cannot follow the result's
            if e.vary_p or (len(e.shape) == r and e.shape[0] != 1):
                return []
            variant.append(list(t.shape))
            continue
        off = r - len(t.shape)
        shape = list(t.shape)
        for j, sz in enumerate(t.shape):
            if sz != 1 and (j + off == 0 or j + off >= 2):
                shape[j] = new_out[j + off]
        variant.append(shape)
    return [variant]


__all__ = [
    "ConvPlan",
    "build_conv_plan",
    "conv_text",
    "conv_variants",
    "is_conv_graph",
    "out_size",
]
