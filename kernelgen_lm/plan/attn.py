"""Attention: `softmax(Q K^T * scale [+ mask]) V` as one fused flash-attention kernel.

Two sources plan to the same `AttnPlan`:

- `F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=False,
  scale=None)` is read from the graph as eager PyTorch runs it (`CapturedGraph.eager_nodes`: one
  `aten.scaled_dot_product_attention` node), since its core-ATen decomposition differs between
  masks, dtypes and torch versions;
- the product written out in torch ops is read from the core-ATen graph: two matrix products
  (`mm`/`bmm`, from `@`, `matmul`, `bmm`), the scores between them passing only through views,
  scalar scaling (`* c`, `/ c`, also on Q or K before the product), an additive mask input
  (`+ mask`) or a boolean one (`masked_fill(mask, -inf)`), and `softmax(dim=-1)`; casts and
  views after the second product.

Q, K, V are model inputs of shape [*batch, S, D] with the same batch axes (no broadcast, no
grouped heads); K may arrive as K^T ([*batch, D, Sk], `k_trans` False). The mask broadcasts
right-aligned to [*batch, Sq, Sk]. Runtime sizes come from the inputs' shapes, so one build
serves every batch, Sq and Sk; D and Dv size the on-chip tiles and are fixed per build.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode, TensorSpec
from kernelgen_lm.plan.build import snake
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.matmul import CORE_OPS, CUBE_DTYPES, OPERAND_OPS, SHAPE_OPS

SDPA = "aten.scaled_dot_product_attention.default"
ATTN_DTYPES = ("float32", "float16", "bfloat16")
# Largest value head size: the [block rows, Dv] float accumulator and the second product's L0C
# block (rows x Dv x 4 bytes) stay small next to the score block.
MAX_DV = 256
CAST_OPS = ("aten._to_copy.default",)
PASS_OPS = ("aten._assert_tensor_metadata.default", "aten.alias.default")
# Scalar scaling the scores (or Q, or K) may pass through.
SCALE_OPS = ("aten.mul.Tensor", "aten.mul.Scalar", "aten.div.Tensor", "aten.div.Scalar")
MaskKind = Literal["add", "keep", "drop"]
NOT_OPS = ("aten.logical_not.default", "aten.bitwise_not.default")


class AttnPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[TensorSpec]
    dtype: str  # Q, K, V element type (the cube's operand type)
    q: int  # kernel input indices
    k: int
    v: int
    k_trans: bool = True  # K holds [*batch, Sk, D] (the product reads it transposed)
    scale: float
    # The mask input and how it applies: "add" (float, added to the scaled scores), "keep" (bool,
    # True = attend: SDPA), "drop" (bool, True = masked: masked_fill(mask, -inf)).
    mask: int | None = None
    mask_kind: MaskKind | None = None
    causal: bool = False  # is_causal: key j attends query i only when j <= i (top-left)
    out_shape: list[int]
    out_dtype: str
    source: Literal["sdpa", "ops"]
    notes: list[str] = []

    @property
    def batch_rank(self) -> int:
        return len(self.out_shape) - 2

    @property
    def head_dim(self) -> int:
        q = self.inputs[self.q]
        return q.shape[-1]

    @property
    def value_dim(self) -> int:
        return self.inputs[self.v].shape[-1]


def is_attn_graph(g: CapturedGraph) -> bool:
    """SDPA in the eager graph, or two matrix products with a softmax feeding the second."""
    if any(n.target == SDPA for n in g.eager_nodes):
        return True
    cores = [n for n in g.nodes if n.target in CORE_OPS]
    return len(cores) == 2 and any(n.target == "aten._softmax.default" for n in g.nodes)


def _scalar(v: object) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v)


def _check_inputs(g: CapturedGraph, q: int, k: int, v: int, k_trans: bool, chip: Chip | None):
    Q, K, V = g.inputs[q], g.inputs[k], g.inputs[v]
    for t in (Q, K, V):
        if len(t.shape) < 2:
            raise PlanError(f"attention operand {t.name}{t.shape} has fewer than two axes")
        if t.dtype not in ATTN_DTYPES:
            raise PlanError(f"attention operand {t.name} has dtype {t.dtype} (float types only)")
    if len({Q.dtype, K.dtype, V.dtype}) != 1:
        raise PlanError(
            f"Q, K, V of different dtypes ({Q.dtype}, {K.dtype}, {V.dtype}) are not covered"
        )
    ks = K.shape if k_trans else [*K.shape[:-2], K.shape[-1], K.shape[-2]]  # [*b, Sk, D]
    if not (len(Q.shape) == len(ks) == len(V.shape)) or not (
        Q.shape[:-2] == ks[:-2] == V.shape[:-2]
    ):
        raise PlanError(
            f"Q{Q.shape}, K{K.shape}, V{V.shape}: the batch axes must be equal (broadcast or "
            "grouped K/V heads are not covered)"
        )
    if ks[-1] != Q.shape[-1] or ks[-2] != V.shape[-2]:
        raise PlanError(f"Q{Q.shape}, K{K.shape}, V{V.shape} do not form Q K^T V")
    if V.shape[-1] > MAX_DV:
        raise PlanError(f"value head size {V.shape[-1]} > {MAX_DV} is not covered")
    if chip is not None:
        ok = CUBE_DTYPES.get(chip.arch)
        if ok is None:
            raise PlanError(
                f"{chip.name} ({chip.arch}): the Matmul high-level API is not documented for this "
                "chip (Atlas training series); attention is not generated for it"
            )
        if Q.dtype not in ok:
            raise PlanError(
                f"{Q.dtype} attention is not supported by the cube unit of {chip.name} "
                f"({chip.arch}: {', '.join(ok)})"
            )
        if not chip.has_datacopypad:
            raise PlanError(f"{chip.name} has no DataCopyPad: odd attention blocks are not lowered")


def _check_mask(g: CapturedGraph, m: int, out_shape: list[int]) -> None:
    """The mask broadcasts right-aligned to the scores [*batch, Sq, Sk] and carries the key
    axis itself (its rows are copied into UB as they lie in GM)."""
    t = g.inputs[m]
    if len(t.shape) > len(out_shape) or any(
        s not in (1, o) for s, o in zip(reversed(t.shape), reversed(out_shape), strict=False)
    ):
        raise PlanError(f"attention mask {t.name}{t.shape} does not broadcast to the scores")
    if len(t.shape) < 1 or t.shape[-1] != out_shape[-1]:
        raise PlanError(
            f"attention mask {t.name}{t.shape} broadcast along the key axis is not covered"
        )
    if t.dtype not in (*ATTN_DTYPES, "bool"):
        raise PlanError(f"attention mask {t.name} has dtype {t.dtype} (bool or float only)")


def _sdpa_plan(g: CapturedGraph, chip: Chip | None) -> AttnPlan:
    nodes = [n for n in g.eager_nodes if n.target not in PASS_OPS]
    sdpa = [n for n in nodes if n.target == SDPA]
    n = sdpa[0]
    names = g.input_names()
    pos = ["query", "key", "value", "attn_mask", "dropout_p", "is_causal"]
    a = dict(zip(pos, n.args, strict=False)) | n.kwargs
    idx: dict[str, int] = {}
    for role in ("query", "key", "value"):
        r = a.get(role)
        if not isinstance(r, NodeRef) or r.ref not in names:
            raise PlanError(
                f"scaled_dot_product_attention {role} is computed in the forward: Q, K and V "
                "must be model inputs (projections are not fused)"
            )
        idx[role] = names.index(r.ref)
    if len(sdpa) != 1 or len(nodes) != 1:
        other = sorted({n.target for n in nodes if n.target != SDPA})
        raise PlanError(
            "scaled_dot_product_attention with other ops in the forward "
            f"({', '.join(other) or 'several attentions'}) is not fused: one attention only"
        )
    if float(a.get("dropout_p") or 0.0) != 0.0:
        raise PlanError("scaled_dot_product_attention with dropout_p > 0 is not covered")
    if a.get("enable_gqa"):
        raise PlanError("scaled_dot_product_attention with enable_gqa is not covered")
    q, k, v = idx["query"], idx["key"], idx["value"]
    _check_inputs(g, q, k, v, True, chip)
    Q, K = g.inputs[q], g.inputs[k]
    out_shape = [*Q.shape[:-1], g.inputs[v].shape[-1]]
    scale = a.get("scale")
    scale = float(scale) if scale is not None else 1.0 / math.sqrt(Q.shape[-1])
    mask: int | None = None
    kind: MaskKind | None = None
    m = a.get("attn_mask")
    if m is not None:
        if not isinstance(m, NodeRef) or m.ref not in names:
            raise PlanError("an attention mask computed in the forward is not covered")
        mask = names.index(m.ref)
        _check_mask(g, mask, [*Q.shape[:-1], K.shape[-2]])
        kind = "keep" if g.inputs[mask].dtype == "bool" else "add"
    return AttnPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        dtype=Q.dtype,
        q=q,
        k=k,
        v=v,
        scale=scale,
        mask=mask,
        mask_kind=kind,
        causal=bool(a.get("is_causal")),
        out_shape=out_shape,
        out_dtype=n.dtype or Q.dtype,
        source="sdpa",
    )


def _users(g: CapturedGraph, name: str) -> list[OpNode]:
    def refs(v: object) -> bool:
        if isinstance(v, NodeRef):
            return v.ref == name
        if isinstance(v, (list, tuple)):
            return any(refs(x) for x in v)
        return False

    return [n for n in g.nodes if refs([*n.args, *n.kwargs.values()])]


def _scale_of(n: OpNode) -> float | None:
    """The factor of `x * c` / `x / c` with a scalar c (None when the op is not that)."""
    if n.target not in SCALE_OPS or len(n.args) < 2:
        return None
    c = _scalar(n.args[1])
    if c is None:
        return None
    if n.target.startswith("aten.div"):
        return None if c == 0 else 1.0 / c
    return c


def _trace(
    g: CapturedGraph, ref: object, chain: set[str], allow: tuple[str, ...]
) -> tuple[str, bool, float]:
    """Follows a product operand back to its source through views, expands, last-two-axes
    transposes and scalar scaling: (source name, transposed, factor)."""
    trans, factor = False, 1.0
    names = g.input_names()
    while True:
        if not isinstance(ref, NodeRef):
            raise PlanError("an attention operand is not a tensor")
        if ref.ref in names or ref.ref in allow:
            return ref.ref, trans, factor
        node = g.node(ref.ref)
        if node is None:
            raise PlanError(f"attention operand {ref.ref} is not in the graph")
        rank = len(node.shape or [])
        f = _scale_of(node)
        if f is not None:
            factor *= f
        elif node.target in CAST_OPS:
            pass
        elif node.target not in OPERAND_OPS:
            raise PlanError(
                f"attention operand computed by {node.target}: only views, transposes, casts and "
                "scalar scaling of model inputs are fused (projections are not)"
            )
        elif node.target == "aten.permute.default":
            dims = [int(d) % rank for d in node.args[1]]  # type: ignore[union-attr]
            if dims == [*range(rank - 2), rank - 1, rank - 2]:
                trans = not trans
            elif dims != list(range(rank)):
                raise PlanError(f"attention operand permuted by {dims}: only the last two axes")
        elif node.target == "aten.transpose.int":
            pair = sorted(int(d) % rank for d in node.args[1:3])  # type: ignore[arg-type]
            if pair == [rank - 2, rank - 1]:
                trans = not trans
            elif pair[0] != pair[1]:
                raise PlanError(f"attention operand transposed on axes {pair}: only the last two")
        elif node.target == "aten.t.default" and rank == 2:
            trans = not trans
        chain.add(node.name)
        ref = node.args[0] if node.args else None


def _bool_mask(g: CapturedGraph, ref: object, chain: set[str]) -> tuple[int, bool]:
    """The bool model input a score mask comes from and whether it arrives inverted: the input
    itself, `~m` / `logical_not(m)`, `m == 0` / `m == False` (inverted) or `m != 0`."""
    names = g.input_names()
    inverted = False
    while isinstance(ref, NodeRef) and ref.ref not in names:
        node = g.node(ref.ref)
        if node is None:
            break
        c = _scalar(node.args[1]) if len(node.args) > 1 else None
        if node.target in NOT_OPS or (node.target == "aten.eq.Scalar" and c == 0.0):
            inverted = not inverted
        elif node.target == "aten.ne.Scalar" and c == 0.0:
            pass
        else:
            break
        chain.add(node.name)
        ref = node.args[0]
    if not isinstance(ref, NodeRef) or ref.ref not in names:
        raise PlanError(
            "a mask on the scores must be a bool model input (or ~mask, mask == 0, mask != 0 "
            "of one): masks computed otherwise are not fused"
        )
    idx = names.index(ref.ref)
    if g.inputs[idx].dtype != "bool":
        raise PlanError(
            f"masked_fill/where mask {g.inputs[idx].name} is {g.inputs[idx].dtype}: only bool "
            "masks are fused (add a float mask to the scores instead)"
        )
    return idx, inverted


def _ops_plan(g: CapturedGraph, chip: Chip | None) -> AttnPlan:
    cores = [n for n in g.nodes if n.target in CORE_OPS]
    if len(cores) != 2 or any(n.target == "aten.addmm.default" for n in cores):
        raise PlanError("attention needs exactly two matrix products (Q K^T, then P V)")
    mm1, mm2 = cores
    names = g.input_names()
    chain: set[str] = {mm1.name, mm2.name}
    qn, qt, fq = _trace(g, mm1.args[0], chain, ())
    kn, kt, fk = _trace(g, mm1.args[1], chain, ())
    if qn not in names or kn not in names:
        raise PlanError("Q and K must be model inputs")
    if qt:
        raise PlanError("Q arriving transposed ([.., D, Sq]) is not covered")
    # The scores: views, scaling, a mask, then softmax over the last axis.
    scale = fq * fk
    mask: int | None = None
    kind: MaskKind | None = None
    cur = mm1
    softmax: OpNode | None = None
    while softmax is None:
        users = _users(g, cur.name)
        if len(users) != 1:
            raise PlanError(
                f"the scores ({cur.target}) are used {len(users)} times: only one softmax chain "
                "between the two products is fused"
            )
        n = users[0]
        f = _scale_of(n)
        if n.target in SHAPE_OPS or n.target in CAST_OPS:
            pass
        elif f is not None:
            if mask is not None:
                raise PlanError("scaling the scores after the mask is not covered")
            scale *= f
        elif n.target == "aten.add.Tensor" and mask is None:
            other = [a for a in n.args[:2] if not (isinstance(a, NodeRef) and a.ref == cur.name)]
            if len(other) != 1 or not isinstance(other[0], NodeRef) or other[0].ref not in names:
                raise PlanError("only a model input is added to the scores (an additive mask)")
            mask, kind = names.index(other[0].ref), "add"
        elif n.target == "aten.masked_fill.Scalar" and mask is None:
            src, inverted = _bool_mask(g, n.args[1], chain)
            if _scalar(n.args[2]) != -math.inf:
                raise PlanError("masked_fill on the scores is fused only with -inf")
            mask, kind = src, ("keep" if inverted else "drop")
        elif n.target == "aten.where.self" and mask is None:
            # masked_fill(mask, -inf) exports as where(mask, -inf, s); where(mask, s, -inf) keeps.
            m, a, b = n.args[:3]
            fill = b if isinstance(a, NodeRef) and a.ref == cur.name else a
            src = g.node(fill.ref) if isinstance(fill, NodeRef) else None
            if (
                src is None
                or src.target != "aten.scalar_tensor.default"
                or _scalar(src.args[0]) != -math.inf
            ):
                raise PlanError("where/masked_fill on the scores is fused only with -inf")
            chain.add(src.name)
            idx, inverted = _bool_mask(g, m, chain)
            mask, kind = idx, ("keep" if (fill is b) != inverted else "drop")
        elif n.target == "aten._softmax.default":
            rank = len(n.shape or [])
            if int(n.args[1]) % max(rank, 1) != rank - 1:  # type: ignore[arg-type]
                raise PlanError("softmax over an axis other than the last (keys) is not attention")
            softmax = n
        else:
            raise PlanError(
                f"{n.target} on the scores between the products is not fused (views, scalar "
                "scaling, an additive or masked_fill mask and softmax(dim=-1) are)"
            )
        chain.add(n.name)
        cur = n
    pn, pt, fp = _trace(g, mm2.args[0], chain, (softmax.name,))
    if pn != softmax.name or pt or fp != 1.0:
        raise PlanError("the second product must read the softmax directly (P V)")
    vn, vt, fv = _trace(g, mm2.args[1], chain, ())
    if vn not in names or vt or fv != 1.0:
        raise PlanError("V must be an untransposed, unscaled model input")
    # After the second product: views and casts to the output.
    cur = mm2
    while True:
        users = _users(g, cur.name)
        if not users:
            break
        if len(users) != 1 or users[0].target not in (*SHAPE_OPS, *CAST_OPS):
            raise PlanError(
                f"{users[0].target} after the attention product is not fused (views and casts)"
            )
        cur = users[0]
        chain.add(cur.name)
    if g.outputs != [cur.name]:
        raise PlanError("the attention result must be the only output")
    rest = [n.target for n in g.nodes if n.name not in chain and n.target not in PASS_OPS]
    if rest:
        raise PlanError(f"ops outside the attention pattern: {', '.join(sorted(set(rest)))}")
    q, k, v = names.index(qn), names.index(kn), names.index(vn)
    k_trans = kt  # traced transposed: the input holds [*b, Sk, D]
    _check_inputs(g, q, k, v, k_trans, chip)
    Q, V = g.inputs[q], g.inputs[v]
    sk = V.shape[-2]
    if mask is not None:
        _check_mask(g, mask, [*Q.shape[:-1], sk])
        if kind == "add" and g.inputs[mask].dtype == "bool":
            raise PlanError("a bool tensor added to the scores is not a mask")
        if kind == "drop" and g.inputs[mask].dtype != "bool":
            raise PlanError("masked_fill needs a bool mask")
    return AttnPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        dtype=Q.dtype,
        q=q,
        k=k,
        v=v,
        k_trans=k_trans,
        scale=scale,
        mask=mask,
        mask_kind=kind,
        out_shape=[*Q.shape[:-1], V.shape[-1]],
        out_dtype=cur.dtype or Q.dtype,
        source="ops",
    )


def build_attn_plan(g: CapturedGraph, chip: Chip | None = None) -> AttnPlan:
    if any(n.target == SDPA for n in g.eager_nodes):
        return _sdpa_plan(g, chip)
    return _ops_plan(g, chip)


def attn_text(p: AttnPlan) -> str:
    Q, K, V = (p.inputs[i] for i in (p.q, p.k, p.v))
    mask = "none"
    if p.mask is not None:
        m = p.inputs[p.mask]
        mask = {
            "add": f"{m.name}{m.shape} added to the scaled scores",
            "keep": f"{m.name}{m.shape} bool, True attends (others -> -inf)",
            "drop": f"{m.name}{m.shape} bool, True is masked (-> -inf)",
        }[p.mask_kind or "add"]
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode attn ({p.source})",
        f"Q = {Q.name}{Q.shape}, K = {K.name}{K.shape}"
        + ("" if p.k_trans else " (holds K^T)")
        + f", V = {V.name}{V.shape}; {p.dtype}",
        f"out {p.out_dtype}{p.out_shape} = softmax(Q K^T * {p.scale:.6g} + mask) V; mask: {mask}"
        + ("; causal (key j <= query i)" if p.causal else ""),
        "split: work units = (batch, query block of BQ rows) over the cube cores (mix AIC:AIV "
        "1:1), big/small split",
        "per unit: for each key block of BK keys: S = Q_blk K_blk^T on the cube (Matmul API, "
        "GetTensorC into UB, float32), scale + mask on the vector unit, SoftmaxFlashV2 (running "
        "row max and sum in float32), acc *= exp(m_old - m_new), P to a per-core GM workspace "
        f"block ({p.dtype}), O_blk = P V_blk on the cube, acc += O_blk; then acc / sum, cast, "
        "DataCopyPad rows to GM. The scores never go to GM in full.",
    ]
    if p.causal:
        lines.append("causal: key blocks past the query block are skipped; BK = BQ")
    lines += [f"note: {x}" for x in p.notes]
    return "\n".join(lines)


def attn_variants(p: AttnPlan) -> list[list[list[int]]]:
    """One shape variant with odd sizes: Sq + 3 and Sk + 5 (D and Dv fix the build's tiles);
    the mask grows along the axes it carries. None when a parameter carries a sequence axis."""
    sq, sk = p.out_shape[-2], p.inputs[p.v].shape[-2]
    users = [i for i, t in enumerate(p.inputs) if t.kind == "input"]
    if any(p.inputs[i].kind != "input" for i in (p.q, p.k, p.v)) or (
        p.mask is not None and p.inputs[p.mask].kind != "input"
    ):
        return []
    gq, gk = 3, 5
    variant = []
    for i in users:
        shape = list(p.inputs[i].shape)
        if i == p.q:
            shape[-2] += gq
        elif i == p.k:
            shape[-2 if p.k_trans else -1] += gk
        elif i == p.v:
            shape[-2] += gk
        elif i == p.mask:
            if shape[-1] == sk:
                shape[-1] += gk
            if len(shape) >= 2 and shape[-2] == sq and sq != 1:
                shape[-2] += gq
        variant.append(shape)
    return [variant]


__all__ = ["AttnPlan", "attn_text", "attn_variants", "build_attn_plan", "is_attn_graph"]
