"""Model-level graphs as one kernel of sequential stages: a matrix product (with its elementwise
epilogue) whose result the rest of the graph reduces or multiplies again.

    Linear -> act -> sum / mean / max / softmax over the last dim
    Linear -> act -> Linear                                   (an MLP block)

The single-product planner (`plan/matmul.py`) refuses these: its epilogue is elementwise only.
Here the captured graph is cut at the product's (epilogued) result X:

- stage 1 = every node X depends on, planned by `build_matmul_plan` with X as its output; the
  kernel writes X into the GM user workspace (the intermediate);
- stage 2 = the other nodes, planned by the existing planner for them (`build_plan`, the fused
  vector planner, for reductions, softmax and norms; `build_matmul_plan` again for a second
  product) with X as the first model input.

The kernel runs stage 1, `SyncAll()`, then stage 2 (`lower/stages.py`). The cut is the latest
node whose prefix the product planner accepts and after which nothing reads a node before it,
so as much elementwise work as possible stays in the product's epilogue.
"""

from __future__ import annotations

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode, TensorSpec
from kernelgen_lm.plan.build import build_plan, snake
from kernelgen_lm.plan.graph import PlanError
from kernelgen_lm.plan.ir import KernelPlan, plan_text
from kernelgen_lm.plan.matmul import (
    CORE_OPS,
    DimRef,
    MatmulPlan,
    build_matmul_plan,
    matmul_text,
    matmul_variants,
)

# Suffixes of the stages' op names: their kernel classes and tiling structs are
# Kernel<op><suffix> and <op><suffix>TilingData.
STAGE_SUFFIX = ("Stage1", "Stage2")


class StagedPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[TensorSpec]  # the model's inputs: the kernel's inputs, in order
    first: MatmulPlan  # over every model input (same indices); its output is the intermediate
    second: KernelPlan | MatmulPlan  # its input 0 is the intermediate
    # The model input behind each of `second`'s inputs; -1: the intermediate.
    second_inputs: list[int]
    mid_name: str  # the graph node cut at
    mid_shape: list[int]
    mid_dtype: str
    # Runtime size of each intermediate axis, as a model input's dim (stage 1's [*batch, M, N]).
    mid_dims: list[DimRef]
    out_shape: list[int]
    out_dtype: str
    notes: list[str] = []


def _refs(value: object) -> set[str]:
    if isinstance(value, NodeRef):
        return {value.ref}
    if isinstance(value, list):
        return set().union(*(_refs(v) for v in value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(_refs(v) for v in value.values())) if value else set()
    return set()


def _node_refs(n: OpNode) -> set[str]:
    return _refs(n.args) | _refs(n.kwargs)


def _ancestors(g: CapturedGraph, name: str) -> set[str]:
    """The graph nodes `name` depends on, itself included."""
    by_name = {n.name: n for n in g.nodes}
    seen: set[str] = set()
    todo = [name]
    while todo:
        cur = todo.pop()
        if cur in seen or cur not in by_name:
            continue
        seen.add(cur)
        todo += list(_node_refs(by_name[cur]))
    return seen


def _split(g: CapturedGraph, chip: Chip | None) -> tuple[OpNode, MatmulPlan, list[OpNode]] | None:
    """The latest cut X after the first product whose prefix the product planner accepts and
    whose rest reads nothing before X but X: (X, stage 1's plan, the rest's nodes)."""
    first = next((i for i, n in enumerate(g.nodes) if n.target in CORE_OPS), None)
    if first is None or len(g.outputs) != 1:
        return None
    for i in range(len(g.nodes) - 1, first - 1, -1):
        cut = g.nodes[i]
        if cut.shape is None or cut.name in g.outputs:
            continue
        before = _ancestors(g, cut.name)
        rest = [n for n in g.nodes if n.name not in before]
        if not rest or any(r in before and r != cut.name for n in rest for r in _node_refs(n)):
            continue
        try:
            p1 = build_matmul_plan(_prefix(g, cut.name, before), chip)
        except PlanError:
            continue
        return cut, p1, rest
    return None


def _prefix(g: CapturedGraph, cut: str, before: set[str]) -> CapturedGraph:
    """The graph of the nodes in `before`, with `cut` as its output: stage 1."""
    return CapturedGraph(
        op_name=g.op_name,
        source=g.source,
        inputs=g.inputs,
        nodes=[n for n in g.nodes if n.name in before],
        outputs=[cut],
    )


def needs_stages(g: CapturedGraph) -> bool:
    """A graph with a matrix product that the single-product planner refuses but that cuts
    into a product stage and a rest (the staged family claims it)."""
    if not any(n.target in CORE_OPS for n in g.nodes):
        return False
    try:
        build_matmul_plan(g)
    except PlanError:
        return _split(g, None) is not None
    return False


def build_staged_plan(g: CapturedGraph, chip: Chip | None = None) -> StagedPlan:
    split = _split(g, chip)
    if split is None:
        loose = _split(g, None)
        if loose is not None:  # the chip refuses the product itself: its reason
            cut = loose[0].name
            build_matmul_plan(_prefix(g, cut, _ancestors(g, cut)), chip)
        raise PlanError("no cut after the matrix product that the product planner accepts")
    cut, p1, rest = split
    names = g.input_names()
    used = sorted({names.index(r) for n in rest for r in _node_refs(n) if r in names})
    mid = TensorSpec(name=cut.name, shape=list(cut.shape or []), dtype=cut.dtype or p1.out_dtype)
    sub = CapturedGraph(
        op_name=g.op_name + STAGE_SUFFIX[1],
        source=g.source,
        inputs=[mid, *(g.inputs[i] for i in used)],
        nodes=rest,
        outputs=g.outputs,
    )
    form = f"after the matrix product's result {mid.name}{mid.shape}"
    second: KernelPlan | MatmulPlan
    products = sum(n.target in CORE_OPS for n in g.nodes)
    if products > 2:
        raise PlanError(
            f"{products} matrix products {form}: the staged kernel has two stages with one "
            "product each (an MLP of more than two layers is not generated yet)"
        )
    if any(n.target in CORE_OPS for n in rest):
        try:
            second = build_matmul_plan(sub, chip)
        except PlanError as e:
            raise PlanError(f"second stage (a matrix product {form}): {e}") from None
    else:
        try:
            second = build_plan(sub)
        except PlanError as e:
            raise PlanError(f"second stage ({form}): {e}") from None
        if any(st.scope != "domain" for st in second.stages):
            kinds = sorted({st.scope for st in second.stages if st.scope != "domain"})
            raise PlanError(
                f"second stage ({form}): {'/'.join(kinds)} reductions (over every row, or "
                "cumulative) after a matrix product are not generated as a stage yet"
            )
        if len(second.outputs) != 1:
            raise PlanError(f"second stage ({form}): several outputs are not covered")
    if mid.dtype not in ("float32", "float16", "bfloat16"):
        raise PlanError(f"intermediate {mid.name} of dtype {mid.dtype}: float types only")
    final = g.node(g.outputs[0])
    p1 = p1.model_copy(
        update={"op_name": g.op_name + STAGE_SUFFIX[0], "kernel_name": snake(g.op_name) + "_s1"}
    )
    second = second.model_copy(
        update={"op_name": g.op_name + STAGE_SUFFIX[1], "kernel_name": snake(g.op_name) + "_s2"}
    )
    return StagedPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        first=p1,
        second=second,
        second_inputs=[-1, *used],
        mid_name=mid.name,
        mid_shape=mid.shape,
        mid_dtype=mid.dtype,
        mid_dims=[*p1.batch, p1.m, p1.n],
        out_shape=list(final.shape or []) if final is not None else [],
        out_dtype=(final.dtype if final is not None else None) or mid.dtype,
    )


def staged_text(p: StagedPlan) -> str:
    inner = matmul_text if isinstance(p.second, MatmulPlan) else plan_text
    what = "matrix product" if isinstance(p.second, MatmulPlan) else "vector"
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode matmul-staged: two stages in one kernel",
        f"stage 1: the matrix product and its epilogue -> intermediate {p.mid_name}"
        f"{p.mid_shape} ({p.mid_dtype}) in the GM user workspace",
        "SyncAll (every block; a stage that uses fewer blocks leaves the rest idle), TPipe Reset",
        f"stage 2 ({what}): reads the intermediate as its input 0 -> output "
        f"{p.out_dtype}{p.out_shape}",
        "cost: the intermediate makes one GM round trip (written by stage 1, read by stage 2)",
        "--- stage 1",
        *matmul_text(p.first).splitlines(),
        "--- stage 2",
        *inner(p.second).splitlines(),
    ]
    lines += [f"note: {x}" for x in p.notes]
    return "\n".join(lines)


def staged_variants(p: StagedPlan) -> list[list[list[int]]] | None:
    """Stage 1's odd-size variant (M + 3, N + 1, K + 1 where forward inputs carry them) when
    stage 2 reads no forward input of its own; else the generic variants (None)."""
    if any(i >= 0 and p.inputs[i].kind == "input" for i in p.second_inputs):
        return None
    return matmul_variants(p.first)


__all__ = [
    "StagedPlan",
    "build_staged_plan",
    "needs_stages",
    "staged_text",
    "staged_variants",
]
