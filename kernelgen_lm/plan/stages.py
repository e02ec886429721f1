"""Model-level graphs as one kernel of sequential stages: matrix products (each with its
elementwise epilogue) whose results the rest of the graph reduces or multiplies again.

    Linear -> act -> sum / mean / max / softmax / logsumexp / LayerNorm over the last dim
    Linear -> act -> Linear [-> act -> Linear ...]           (MLP blocks)
    Linear -> softmax -> Linear                               (a vector stage between products)

The single-product planner (`plan/matmul.py`) refuses these: its epilogue is elementwise only.
Here the captured graph is cut at a product's (epilogued) result X:

- the stage = every node X depends on, planned by `build_matmul_plan` with X as its output (after
  a first product stage, a prefix without a product is planned by `build_plan`, the fused vector
  planner: a vector stage); the kernel writes X into the GM user workspace (an intermediate);
- the rest = the other nodes with X as their first input: planned whole by the existing planner
  for it (`build_plan` for reductions, softmax and norms; `build_matmul_plan` for a last
  product), else cut again.

The kernel runs the stages in order with `SyncAll()` between them (`lower/stages.py`). Each cut is
the latest node whose prefix its planner accepts and after which nothing reads a node before it,
so as much elementwise work as possible stays in a product's epilogue.
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

# REGIST_MATMUL_OBJ registers at most four Matmul objects in a program (ASCENDC_SPEC 7.12): one a
# product stage.
MAX_PRODUCTS = 4


class Mid(BaseModel):
    """An intermediate: written by one stage into the user workspace, read by later ones."""

    name: str  # the graph node cut at
    shape: list[int]
    dtype: str
    # Runtime size of each axis as a model input's dim (input -1: the constant 1).
    dims: list[DimRef]


class StagedPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[TensorSpec]  # the model's inputs: the kernel's inputs, in order
    # Stage k's op name is <op>Stage<k+1> (its kernel class and tiling struct). Stage 0 is a
    # product over every model input; stage k writes mids[k] (the last writes the output).
    stages: list[KernelPlan | MatmulPlan]
    # Per stage, what each of its inputs is: a model input index, or -(j + 1) for mids[j].
    stage_inputs: list[list[int]]
    mids: list[Mid]
    out_shape: list[int]
    out_dtype: str
    notes: list[str] = []

    @property
    def first(self) -> MatmulPlan:
        first = self.stages[0]
        assert isinstance(first, MatmulPlan)
        return first


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


def _plan_vector_stage(g: CapturedGraph, what: str) -> KernelPlan:
    """A vector stage (build_plan) that runs inside a staged kernel: row reductions on one core
    a row, no stage over every row or along it (no SyncAll inside a stage), one output."""
    try:
        plan = build_plan(g)
    except PlanError as e:
        raise PlanError(f"{what}: {e}") from None
    if any(st.scope != "domain" for st in plan.stages):
        kinds = sorted({st.scope for st in plan.stages if st.scope != "domain"})
        raise PlanError(
            f"{what}: {'/'.join(kinds)} reductions (over every row, or cumulative) after a "
            "matrix product are not generated as a stage yet"
        )
    if len(plan.outputs) != 1:
        raise PlanError(f"{what}: several outputs are not covered")
    return plan


def _split(
    g: CapturedGraph, chip: Chip | None, vector: bool = False
) -> tuple[OpNode, KernelPlan | MatmulPlan, list[OpNode], list[int]] | None:
    """The latest cut X whose prefix plans as a stage (a product; with `vector`, also a vector
    plan without a product) and whose rest reads nothing before X but X: (X, the prefix's plan,
    the rest's nodes, which of g's inputs the plan's inputs are)."""
    first = next((i for i, n in enumerate(g.nodes) if n.target in CORE_OPS), None)
    if first is None or len(g.outputs) != 1:
        return None
    lo = 0 if vector else first
    for i in range(len(g.nodes) - 1, lo - 1, -1):
        cut = g.nodes[i]
        if cut.shape is None or cut.name in g.outputs:
            continue
        before = _ancestors(g, cut.name)
        rest = [n for n in g.nodes if n.name not in before]
        if not rest or any(r in before and r != cut.name for n in rest for r in _node_refs(n)):
            continue
        prefix = _prefix(g, cut.name, before)
        which = list(range(len(g.inputs)))
        try:
            if any(n.target in CORE_OPS for n in prefix.nodes):
                plan: KernelPlan | MatmulPlan = build_matmul_plan(prefix, chip)
            elif vector:
                # The vector planner broadcasts every input it is given: only the read ones.
                names = g.input_names()
                which = sorted(
                    {names.index(r) for n in prefix.nodes for r in _node_refs(n) if r in names}
                )
                prefix = prefix.model_copy(update={"inputs": [g.inputs[i] for i in which]})
                plan = _plan_vector_stage(prefix, "a vector stage")
                _vector_result_dims(plan)
            else:
                continue
        except PlanError:
            continue
        return cut, plan, rest, which
    return None


def _prefix(g: CapturedGraph, cut: str, before: set[str]) -> CapturedGraph:
    """The graph of the nodes in `before`, with `cut` as its output: a stage."""
    return CapturedGraph(
        op_name=g.op_name,
        source=g.source,
        inputs=g.inputs,
        nodes=[n for n in g.nodes if n.name in before],
        outputs=[cut],
    )


def _vector_result_dims(plan: KernelPlan) -> list[DimRef]:
    """A vector stage's result sizes, when it is shaped like one of its inputs (softmax,
    norms, activations): that input's dims. Other results are not an intermediate yet."""
    o = plan.outputs[0]
    same = next((i for i, t in enumerate(plan.inputs) if t.shape == o.shape), None)
    if same is None:
        raise PlanError(
            f"a vector stage's result {o.shape} between matrix products is shaped like none of "
            "its inputs (reductions there are not generated yet)"
        )
    return [DimRef(input=same, dim=k) for k in range(len(o.shape))]


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


def _stage_names(g: CapturedGraph, k: int) -> dict[str, str]:
    return {"op_name": f"{g.op_name}Stage{k + 1}", "kernel_name": f"{snake(g.op_name)}_s{k + 1}"}


def build_staged_plan(g: CapturedGraph, chip: Chip | None = None) -> StagedPlan:
    products = sum(n.target in CORE_OPS for n in g.nodes)
    if products > MAX_PRODUCTS:
        raise PlanError(
            f"{products} matrix products in one graph: a staged kernel registers at most "
            f"{MAX_PRODUCTS} Matmul objects (one a product stage), so more are not generated"
        )
    split = _split(g, chip)
    if split is None:
        loose = _split(g, None)
        if loose is not None:  # the chip refuses the product itself: its reason
            cut = loose[0].name
            build_matmul_plan(_prefix(g, cut, _ancestors(g, cut)), chip)
        raise PlanError("no cut after the matrix product that the product planner accepts")
    stages: list[KernelPlan | MatmulPlan] = []
    stage_inputs: list[list[int]] = []
    mids: list[Mid] = []
    cur, cur_map = g, list(range(len(g.inputs)))

    def model_dim(d: DimRef, where: list[int]) -> DimRef:
        """A stage's (input, dim) size as a model input's dim, through earlier intermediates."""
        if d.input < 0:
            return d
        code = where[d.input]
        return DimRef(input=code, dim=d.dim) if code >= 0 else mids[-code - 1].dims[d.dim]

    while split is not None:
        cut, plan, rest, which = split
        k = len(stages)
        stages.append(plan.model_copy(update=_stage_names(g, k)))
        stage_map = [cur_map[i] for i in which]
        stage_inputs.append(stage_map)
        if isinstance(plan, MatmulPlan):
            local = [*plan.batch, plan.m, plan.n]
        else:
            local = _vector_result_dims(plan)
        dtype = cut.dtype or "float32"
        if dtype not in ("float32", "float16", "bfloat16"):
            raise PlanError(f"intermediate {cut.name} of dtype {dtype}: float types only")
        mids.append(
            Mid(
                name=cut.name,
                shape=list(cut.shape or []),
                dtype=dtype,
                dims=[model_dim(d, stage_map) for d in local],
            )
        )
        names = cur.input_names()
        used = sorted({names.index(r) for n in rest for r in _node_refs(n) if r in names})
        mid = TensorSpec(name=cut.name, shape=list(cut.shape or []), dtype=dtype)
        cur = CapturedGraph(
            op_name=g.op_name,
            source=g.source,
            inputs=[mid, *(cur.inputs[i] for i in used)],
            nodes=rest,
            outputs=g.outputs,
        )
        cur_map = [-(k + 1), *(cur_map[i] for i in used)]
        what = f"stage {k + 2} (after {cut.name}{list(cut.shape or [])})"
        if not any(n.target in CORE_OPS for n in rest):
            last: KernelPlan | MatmulPlan = _plan_vector_stage(cur, what)
            break
        try:
            last = build_matmul_plan(cur, chip)
            break
        except PlanError as e:
            split = _split(cur, chip, vector=True)
            if split is None:
                raise PlanError(f"{what}, a matrix product: {e}") from None
    stages.append(last.model_copy(update=_stage_names(g, len(stages))))
    stage_inputs.append(cur_map)
    final = g.node(g.outputs[0])
    return StagedPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=g.inputs,
        stages=stages,
        stage_inputs=stage_inputs,
        mids=mids,
        out_shape=list(final.shape or []) if final is not None else [],
        out_dtype=(final.dtype if final is not None else None) or mids[-1].dtype,
    )


def _input_text(p: StagedPlan, code: int) -> str:
    return p.inputs[code].name if code >= 0 else f"intermediate {p.mids[-code - 1].name}"


def staged_text(p: StagedPlan) -> str:
    lines = [
        f"kernel {p.kernel_name} (op {p.op_name}), mode matmul-staged: {len(p.stages)} stages "
        "in one kernel, a SyncAll on every block between two (a stage that uses fewer blocks "
        "leaves the rest idle) and the TPipe reset",
        "cost: each intermediate makes one GM round trip (written by its stage, read by the next)",
    ]
    for k, (sp, ins) in enumerate(zip(p.stages, p.stage_inputs, strict=True)):
        kind = "matrix product" if isinstance(sp, MatmulPlan) else "vector"
        dest = (
            f"intermediate {p.mids[k].name}{p.mids[k].shape} ({p.mids[k].dtype}) in the GM "
            "user workspace"
            if k < len(p.mids)
            else f"the output {p.out_dtype}{p.out_shape}"
        )
        reads = ", ".join(_input_text(p, c) for c in ins if c < 0) or "model inputs"
        lines.append(f"--- stage {k + 1} ({kind}): reads {reads} -> {dest}")
        lines += (matmul_text(sp) if isinstance(sp, MatmulPlan) else plan_text(sp)).splitlines()
    lines += [f"note: {x}" for x in p.notes]
    return "\n".join(lines)


def staged_variants(p: StagedPlan) -> list[list[list[int]]] | None:
    """Stage 1's odd-size variant (M + 3, N + 1, K + 1 where forward inputs carry them) when
    no later stage reads a forward input of its own; else the generic variants (None)."""
    later = [c for ins in p.stage_inputs[1:] for c in ins if c >= 0]
    if any(p.inputs[i].kind == "input" for i in later):
        return None
    return matmul_variants(p.first)


__all__ = [
    "MAX_PRODUCTS",
    "Mid",
    "StagedPlan",
    "build_staged_plan",
    "needs_stages",
    "staged_text",
    "staged_variants",
]
