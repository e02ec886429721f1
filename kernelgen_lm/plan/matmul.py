"""Matrix products on the cube unit: a third plan kind next to the fused domain plan and pooling.

One `aten.mm` / `aten.bmm` / `aten.addmm` per graph (torch.matmul, nn.Linear, F.linear,
baddbmm and broadcast-batched matmul all export to these) becomes

    out[b..., m, n] = epilogue(sum_k A[b..., m, k] * B[b..., k, n], other inputs)

- each operand is one graph input reached only through views, expands, contiguous clones and a
  permute of its last two axes (`trans`: the input holds the operand transposed, which the
  Matmul API reads directly); batch axes broadcast right-aligned (stride 0 where size 1);
- the epilogue is every op after the product, planned by the fused vector planner
  (`plan/build.py`) on a graph whose product is a float32 input (`MM_INPUT`): elementwise only
  (activation, residual add, scale, cast), applied to each base block of the result in UB;
- `addmm(c, a, b, beta, alpha)` is the product plus the epilogue `alpha * mm + beta * c`, except
  a float32 bias row with alpha = beta = 1 (nn.Linear in fp32), which the Matmul API adds itself.

Batch axes that only A carries (nn.Linear on [B, S, H]) fold into M when the epilogue allows
(`folded`): one [B * S, H] product split over all cube cores. Runtime sizes are (input, dim)
pairs read by the host TilingFunc, so one build serves every shape of the captured layout.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode, TensorSpec
from kernelgen_lm.plan.build import build_plan, snake
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import KernelPlan, plan_text

CORE_OPS = ("aten.mm.default", "aten.bmm.default", "aten.addmm.default")
# Ops an operand may pass through between its graph input and the product.
OPERAND_OPS = (
    "aten.view.default",
    "aten._unsafe_view.default",
    "aten.reshape.default",
    "aten.expand.default",
    "aten.clone.default",
    "aten.unsqueeze.default",
    "aten.permute.default",
    "aten.t.default",
    "aten.transpose.int",
)
SHAPE_OPS = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
# The product handed to the epilogue planner as this float32 input.
MM_INPUT = "mm_result"
# Cube-unit input dtypes per arch, from the AscendC docs: the Matmul high-level API is not
# offered on the Atlas training series (Ascend 910, dav-c100); float inputs need the Atlas A2/A3
# cube (aclnnMatmul: with KEEP_DTYPE the cube units of the Atlas training and inference series
# reject FLOAT); bfloat16 is an Atlas A2/A3 type. 310B (dav-m300): fp16 only, the docs' float
# and bf16 statements for it disagree between pages, so it is not claimed.
CUBE_DTYPES: dict[str, tuple[str, ...]] = {
    "dav-c220": ("float16", "bfloat16", "float32"),
    "dav-m200": ("float16",),
    "dav-m300": ("float16",),
}
Role = Literal["M", "N", "K"]


class DimRef(BaseModel):
    """A runtime size: dim `dim` of kernel input `input`, or the constant 1 (input -1)."""

    input: int = -1
    dim: int = 0


class MmOperand(BaseModel):
    input: int  # kernel input index
    trans: bool  # the input holds the operand with its last two axes swapped


class EpiInput(BaseModel):
    """A kernel input the epilogue reads: right-aligned broadcast against the output shape."""

    input: int
    plan_index: int  # its index among the epilogue plan's inputs


class MatmulPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[TensorSpec]  # every kernel input (graph inputs, in order)
    dtype: str  # A and B element type
    a: MmOperand
    b: MmOperand
    batch: list[DimRef]  # output batch axes (before M, N)
    # The batch axes fold into M (A holds every batch, B none, and the epilogue reads nothing
    # that varies along batch or M except whole-result tensors): one [batch * M, K] product.
    folded: bool = False
    m: DimRef
    n: DimRef
    k: DimRef
    out_shape: list[int]  # captured output [*batch, M, N]
    out_dtype: str
    bias: int | None = None  # float32 [N] input added by the Matmul API (SetBias)
    epilogue: KernelPlan | None = None  # None: the product is the output (IterateAll to GM)
    epi_inputs: list[EpiInput] = []
    notes: list[str] = []

    @property
    def direct(self) -> bool:
        """No epilogue and the output is the cube's own result type: IterateAll straight to GM."""
        return self.epilogue is None and self.out_dtype == self.dtype


def _refs(args: list, name: str) -> bool:
    for a in args:
        if isinstance(a, NodeRef) and a.ref == name:
            return True
        if isinstance(a, list) and _refs(a, name):
            return True
    return False


def _strip(shape: list[int]) -> list[int]:
    i = 0
    while i < len(shape) - 1 and shape[i] == 1:
        i += 1
    return shape[i:]


def _trace_operand(g: CapturedGraph, ref: object, chain: set[str]) -> tuple[int, bool]:
    """The graph input an operand comes from and whether it arrives transposed (last two axes
    swapped). Adds the nodes it passes through to `chain`."""
    names = g.input_names()
    trans = False
    while True:
        if not isinstance(ref, NodeRef):
            raise PlanError("a matrix operand is not a tensor")
        if ref.ref in names:
            return names.index(ref.ref), trans
        node = g.node(ref.ref)
        if node is None or node.target not in OPERAND_OPS:
            what = node.target if node is not None else ref.ref
            raise PlanError(
                f"matrix operand computed by {what}: ops before the product (a prologue) "
                "are not fused; only views, expands and transposes of a model input"
            )
        src = node.args[0] if node.args else None
        rank = len(node.shape or [])
        if node.target == "aten.permute.default":
            dims = [int(d) % rank for d in node.args[1]]  # type: ignore[union-attr]
            if dims == list(range(rank)):
                pass
            elif dims == [*range(rank - 2), rank - 1, rank - 2]:
                trans = not trans
            else:
                raise PlanError(f"matrix operand permuted by {dims}: only the last two axes swap")
        elif node.target == "aten.transpose.int":
            pair = sorted(int(d) % rank for d in node.args[1:3])  # type: ignore[arg-type]
            if pair == [rank - 2, rank - 1]:
                trans = not trans
            elif pair[0] != pair[1]:
                raise PlanError(f"matrix operand transposed on axes {pair}: only the last two")
        elif node.target == "aten.t.default" and rank == 2:
            trans = not trans
        chain.add(node.name)
        ref = src


def _role_dims(shape: list[int], trans: bool, first: Role, second: Role) -> dict[Role, int]:
    """Which input dim holds each matrix role (the last two axes, swapped when `trans`)."""
    r = len(shape)
    if trans:
        return {first: r - 1, second: r - 2}
    return {first: r - 2, second: r - 1}


def build_matmul_plan(g: CapturedGraph, chip: Chip | None = None) -> MatmulPlan:
    cores = [n for n in g.nodes if n.target in CORE_OPS]
    if not cores:
        raise PlanError("no matrix product in the graph")
    if len(cores) > 1:
        raise PlanError(
            f"{len(cores)} matrix products in one graph (attention, MLP blocks): this planner "
            "takes one product with an elementwise epilogue (two products in a row are the "
            "staged family's, plan/stages.py)"
        )
    core = cores[0]
    where = f" (line {core.line})" if core.line else ""
    if len(g.outputs) != 1:
        raise PlanError("a matrix product with several outputs is not covered")
    is_addmm = core.target == "aten.addmm.default"
    a_ref, b_ref = (core.args[1], core.args[2]) if is_addmm else (core.args[0], core.args[1])
    chain: set[str] = set()
    ai, at = _trace_operand(g, a_ref, chain)
    bi, bt = _trace_operand(g, b_ref, chain)
    A, B = g.inputs[ai], g.inputs[bi]
    for t in (A, B):
        if len(t.shape) < 2:
            raise PlanError(f"matrix operand {t.name} {t.shape} has fewer than two axes")
    if A.dtype != B.dtype:
        raise PlanError(f"operands of different dtypes ({A.dtype}, {B.dtype}) are not covered")
    if chip is not None:
        ok = CUBE_DTYPES.get(chip.arch)
        if ok is None:
            raise PlanError(
                f"{chip.name} ({chip.arch}): the Matmul high-level API is not documented for this "
                "chip (Atlas training series); matrix products are not generated for it"
            )
        if A.dtype not in ok:
            raise PlanError(
                f"{A.dtype} matrix products are not supported by the cube unit of {chip.name} "
                f"({chip.arch}: {', '.join(ok)}); cast the operands to one of those"
            )
    # The product's result as the model sees it: through views that only (un)flatten batches.
    out_name = core.name
    out_shape = list(core.shape or [])
    while True:
        users = [n for n in g.nodes if _refs([*n.args, *n.kwargs.values()], out_name)]
        if len(users) != 1 or users[0].target not in SHAPE_OPS:
            break
        out_name = users[0].name
        out_shape = list(users[0].shape or [])
        chain.add(out_name)
    if len(out_shape) < 2:
        raise PlanError(f"matrix product result {out_shape} has fewer than two axes")
    rank = len(out_shape)
    bshape = out_shape[:-2]
    M, N = out_shape[-2], out_shape[-1]
    adims = _role_dims(A.shape, at, "M", "K")
    bdims = _role_dims(B.shape, bt, "K", "N")
    K = A.shape[adims["K"]]
    if A.shape[adims["M"]] != M or B.shape[bdims["N"]] != N or B.shape[bdims["K"]] != K:
        raise PlanError(
            f"matrix operands {A.name}{A.shape} and {B.name}{B.shape} do not map onto the "
            f"result {out_shape}{where} as broadcast batches (a view that folds batch axes "
            "into rows of a 2-D input is not covered)"
        )
    batch: list[DimRef] = []
    for j, size in enumerate(bshape):
        ref = DimRef()
        for idx, t in ((ai, A), (bi, B)):
            k = j - (len(bshape) - (len(t.shape) - 2))
            if 0 <= k < len(t.shape) - 2:
                if t.shape[k] not in (1, size):
                    raise PlanError(f"batch axis {j} of {t.name}{t.shape} does not broadcast")
                if t.shape[k] == size and size != 1 and ref.input < 0:
                    ref = DimRef(input=idx, dim=k)
        if size != 1 and ref.input < 0:
            raise PlanError(f"batch axis {j} ({size}) comes from neither operand")
        batch.append(ref)
    for t in (A, B):
        if len(t.shape) - 2 > len(bshape):
            raise PlanError(f"{t.name}{t.shape} has more batch axes than the result")

    # Everything else is the epilogue (ops feeding the operands are in `chain`; an operand
    # computed by anything else was refused above).
    epi_nodes: list[OpNode] = []
    bias: int | None = None
    names = g.input_names()
    synth: list[OpNode] = []
    if is_addmm:
        c_ref = core.args[0]
        beta = float(core.kwargs.get("beta", 1.0))
        alpha = float(core.kwargs.get("alpha", 1.0))
        c_in = names.index(c_ref.ref) if isinstance(c_ref, NodeRef) and c_ref.ref in names else None
        if (
            c_in is not None
            and beta == 1.0
            and alpha == 1.0
            and A.dtype == "float32"
            and _strip(g.inputs[c_in].shape) == [N]
        ):
            bias = c_in
        else:
            synth = _addmm_epilogue(core, c_ref, alpha, beta, out_shape)
    for n in g.nodes:
        if n.name == core.name:
            epi_nodes += synth
        elif n.name not in chain:
            epi_nodes.append(n)
    epi_nodes = [n for n in epi_nodes if n.target != "aten._assert_tensor_metadata.default"]
    final = g.node(g.outputs[0])
    if final is None or final.shape is None:
        raise PlanError("the output is not a tensor computed by the graph")
    if final.shape != out_shape:
        raise PlanError(
            f"the output {final.shape} is not the product's shape {out_shape}: reductions or "
            "reshapes after the product are not fused"
        )
    epilogue: KernelPlan | None = None
    epi_inputs: list[EpiInput] = []
    if epi_nodes:
        epilogue, epi_inputs = _plan_epilogue(g, epi_nodes, out_name, out_shape, bool(synth), core)
    plan = MatmulPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        dtype=A.dtype,
        a=MmOperand(input=ai, trans=at),
        b=MmOperand(input=bi, trans=bt),
        batch=batch,
        m=DimRef(input=ai, dim=adims["M"]),
        n=DimRef(input=bi, dim=bdims["N"]),
        k=DimRef(input=ai, dim=adims["K"]),
        out_shape=out_shape,
        out_dtype=final.dtype or A.dtype,
        bias=bias,
        epilogue=epilogue,
        epi_inputs=epi_inputs,
    )
    if rank > 6:
        raise PlanError(f"results of rank {rank} are not covered")
    plan.folded = _foldable(plan)
    if chip is not None and not plan.direct and not chip.has_datacopypad:
        raise PlanError(
            f"{chip.name} has no DataCopyPad: the epilogue's odd-sized block rows are not lowered "
            "for it (a plain product with the operands' dtype as output is)"
        )
    return plan


def _foldable(p: MatmulPlan) -> bool:
    """Whether the batch axes can join M: A carries them all (no broadcast, not transposed), B
    none, and every epilogue input either spans batch and M exactly like the result (so row
    `b * M + m` is its row too) or varies along neither."""
    if not p.batch or p.a.trans:
        return False
    A, B = p.inputs[p.a.input], p.inputs[p.b.input]
    r = len(p.out_shape)
    if len(A.shape) != r or A.shape[:-2] != p.out_shape[:-2] or any(s != 1 for s in B.shape[:-2]):
        return False
    for e in p.epi_inputs:
        t = p.inputs[e.input]
        lead = [1] * (r - len(t.shape)) + list(t.shape)
        rows = lead[: r - 1]
        if rows != p.out_shape[: r - 1] and any(x != 1 for x in rows):
            return False
    return True


def _addmm_epilogue(
    core: OpNode, c_ref: object, alpha: float, beta: float, shape: list[int]
) -> list[OpNode]:
    """`alpha * mm + beta * c` as ordinary graph nodes over the product (the sum named like the
    addmm, so the ops after it read it unchanged)."""
    nodes: list[OpNode] = []
    mm: object = NodeRef(ref=core.name + "__mm")
    if alpha != 1.0:
        nodes.append(
            OpNode(
                name=core.name + "__alpha",
                target="aten.mul.Tensor",
                args=[mm, alpha],
                shape=shape,
                dtype=core.dtype,
            )
        )
        mm = NodeRef(ref=core.name + "__alpha")
    c: object = c_ref
    if beta != 1.0:
        nodes.append(
            OpNode(
                name=core.name + "__beta",
                target="aten.mul.Tensor",
                args=[c_ref, beta],
                shape=shape,
                dtype=core.dtype,
            )
        )
        c = NodeRef(ref=core.name + "__beta")
    nodes.append(
        OpNode(
            name=core.name,
            target="aten.add.Tensor",
            args=[mm, c] if beta != 0.0 else [mm, 0.0],
            shape=shape,
            dtype=core.dtype,
        )
    )
    return nodes


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


def _plan_epilogue(
    g: CapturedGraph,
    nodes: list[OpNode],
    out_name: str,
    out_shape: list[int],
    synth: bool,
    core: OpNode,
) -> tuple[KernelPlan, list[EpiInput]]:
    """The ops after the product as a fused elementwise plan whose first input is the product.
    `synth`: the nodes start with addmm's `alpha * mm + beta * c`, which reads the product as
    `<addmm>__mm` and is itself named like the addmm (the ops after read it through views)."""
    renamed = []
    for n in nodes:
        if synth:
            args = _rename(n.args, core.name + "__mm", MM_INPUT)
            args = _rename(args, out_name, core.name)
        else:
            args = _rename(n.args, out_name, MM_INPUT)
        renamed.append(n.model_copy(update={"args": args}))
    used_inputs = [
        (i, t) for i, t in enumerate(g.inputs) if any(_refs(n.args, t.name) for n in renamed)
    ]
    for n in renamed:
        if n.target in (*SHAPE_OPS, "aten.unsqueeze.default", "aten.expand.default"):
            src_ref = n.args[0]
            src_shape = next(
                (
                    t.shape
                    for t in g.inputs
                    if isinstance(src_ref, NodeRef) and t.name == src_ref.ref
                ),
                None,
            ) or next(
                (
                    m.shape
                    for m in renamed
                    if isinstance(src_ref, NodeRef) and m.name == src_ref.ref
                ),
                None,
            )
            if isinstance(src_ref, NodeRef) and src_ref.ref == MM_INPUT:
                src_shape = out_shape
            if src_shape is None or n.shape is None:
                continue
            if n.target == "aten.expand.default":
                ok = len(n.shape) >= len(src_shape)
            else:
                ok = _strip(list(n.shape)) == _strip(list(src_shape))
            if not ok:
                raise PlanError(
                    f"{n.target} {src_shape} -> {n.shape} after the product: only broadcasts "
                    "that keep right alignment are fused into the epilogue"
                )
    sub = CapturedGraph(
        op_name=g.op_name,
        source=g.source,
        inputs=[TensorSpec(name=MM_INPUT, shape=out_shape, dtype="float32")]
        + [t.model_copy(update={"kind": "input"}) for _, t in used_inputs],
        nodes=renamed,
        outputs=[core.name if synth and o == out_name else o for o in g.outputs],
    )
    try:
        plan = build_plan(sub)
    except PlanError as e:
        raise PlanError(f"epilogue after the matrix product: {e}") from None
    if plan.stages:
        raise PlanError(
            "reductions after the matrix product (softmax, norms, sums) are not fused into its "
            "epilogue (the staged family runs them as a second stage, plan/stages.py)"
        )
    for n in plan.nodes:
        if n.op in ("iota", "count", "gcount", "stat"):
            raise PlanError(f"epilogue op {n.op} is not covered after a matrix product")
    if len(plan.outputs) != 1 or plan.outputs[0].level != "full":
        raise PlanError("the epilogue must produce one full-shape output")
    for _, t in used_inputs:
        if len(t.shape) > len(out_shape) or any(
            s not in (1, o) for s, o in zip(reversed(t.shape), reversed(out_shape), strict=False)
        ):
            raise PlanError(f"epilogue input {t.name}{t.shape} does not broadcast to {out_shape}")
        if t.dtype not in ("float32", "float16", "bfloat16"):
            raise PlanError(f"epilogue input {t.name} has dtype {t.dtype} (float types only)")
    epi = [EpiInput(input=i, plan_index=k + 1) for k, (i, _) in enumerate(used_inputs)]
    return plan, epi


def matmul_text(p: MatmulPlan) -> str:
    names = [t.name for t in p.inputs]

    def dim(d: DimRef) -> str:
        return f"{names[d.input]}.shape[{d.dim}]" if d.input >= 0 else "1"

    A, B = p.inputs[p.a.input], p.inputs[p.b.input]
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode matmul",
        f"A = {A.name}{A.shape}" + (" (transposed: holds [.., K, M])" if p.a.trans else ""),
        f"B = {B.name}{B.shape}" + (" (transposed: holds [.., N, K])" if p.b.trans else ""),
        f"M = {dim(p.m)}, N = {dim(p.n)}, K = {dim(p.k)}; batch = "
        + ("[" + ", ".join(dim(d) for d in p.batch) + "]" if p.batch else "none")
        + (" (folded into M: one [batch * M, K] product)" if p.folded else ""),
        f"cube: Matmul high-level API, {p.dtype} x {p.dtype} -> float32 accumulate"
        + (f", bias {names[p.bias]} (SetBias)" if p.bias is not None else ""),
        "split: host MultiCoreMatmulTiling over M and N (SetDim = cube cores / batches); work "
        "units = (batch, M block, N block), big/small split over blockDim <= cube cores",
    ]
    if p.direct:
        lines.append(f"output {p.out_dtype}{p.out_shape}: IterateAll straight to GM")
    else:
        lines.append(
            "epilogue: per baseM x baseN block GetTensorC into UB (float32), then per chunk of "
            f"its rows the vector plan below, cast to {p.out_dtype}, DataCopyPad rows to GM"
        )
        if p.epilogue is not None:
            lines += ["  " + x for x in plan_text(p.epilogue).splitlines()]
    lines += [f"note: {x}" for x in p.notes]
    return "\n".join(lines)


def matmul_variants(p: MatmulPlan) -> list[list[list[int]]]:
    """One shape variant with odd sizes: M + 3, N + 1, K + 1 wherever only forward inputs carry
    that size (parameters pin theirs); every input dim bound to a grown size grows with it."""
    inputs = p.inputs
    users = [i for i, t in enumerate(inputs) if t.kind == "input"]
    grow: dict[Role, int] = {"M": 3, "N": 1, "K": 1}
    binds: dict[int, dict[int, Role]] = {i: {} for i in range(len(inputs))}
    A, B = inputs[p.a.input], inputs[p.b.input]
    for role, d in _role_dims(A.shape, p.a.trans, "M", "K").items():
        binds[p.a.input][d] = role
    for role, d in _role_dims(B.shape, p.b.trans, "K", "N").items():
        binds[p.b.input][d] = role
    r = len(p.out_shape)
    for e in p.epi_inputs:
        t = inputs[e.input]
        off = r - len(t.shape)
        for d, s in enumerate(t.shape):
            k = d + off
            if s != 1 and k == r - 2:
                binds[e.input][d] = "M"
            elif s != 1 and k == r - 1:
                binds[e.input][d] = "N"
    if p.bias is not None:
        binds[p.bias][len(inputs[p.bias].shape) - 1] = "N"
    for i, t in enumerate(inputs):
        if t.kind != "input":
            for role in binds[i].values():
                grow.pop(role, None)
    if not grow or not users:
        return []
    variant = []
    for i in users:
        shape = list(inputs[i].shape)
        for d, role in binds[i].items():
            shape[d] += grow.get(role, 0)
        variant.append(shape)
    if variant == [inputs[i].shape for i in users]:
        return []
    return [variant]


def is_matmul_graph(g: CapturedGraph) -> bool:
    return any(n.target in CORE_OPS for n in g.nodes)


__all__ = [
    "CUBE_DTYPES",
    "MatmulPlan",
    "build_matmul_plan",
    "is_matmul_graph",
    "matmul_text",
    "matmul_variants",
]
