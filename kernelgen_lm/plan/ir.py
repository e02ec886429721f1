"""The tile-level kernel plan: one fused vector kernel over an iteration domain.

Every supported op family is one instance of the same shape (breadth by composition):

- a *domain*: a list of axes with runtime sizes (symbolic in the kernel inputs' dims); each
  axis is kept or reduced. The last axis is the *vector axis*, processed in UB tiles; all the
  others are walked with scalar index arithmetic.
- *inputs*, each varying along a subset of the axes (broadcasting is a stride of 0);
- an expression DAG of vector primitives (computed in float32; half/bf16 are cast on load and
  store), with leaves: input values, constants, the count of reduced elements, and *stats*;
- *stages*: reductions (sum/max/min/prod over the reduced axes) of an expression, each a stat
  that later stages and the outputs may use (softmax: max, then sum of exp(x - max));
- *outputs*: full-domain (`full`) or over the kept axes (`reduced`).

Elementwise ops have no stages; reductions have one; softmax, norms and losses have several
plus an epilogue. The mode follows from the vector axis: `elementwise`, `row` (vector axis
reduced: stats are scalars per row) or `column` (vector axis kept: stats are vectors).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

UNARY_OPS = ("neg", "abs", "exp", "log", "sqrt", "rsqrt", "recip", "relu")
UNARY_OPS += ("floor", "ceil", "trunc", "rint")  # rounding: float -> int32 -> float Casts
BINARY_OPS = ("add", "sub", "mul", "div", "max", "min")
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")
LEAF_OPS = ("input", "const", "stat", "count", "gcount", "iota")
# Step of a stepped slice -> GatherMask's built-in src1Pattern keeping lane 0 of every `step`
# lanes (catalog: GatherMask; 1 keeps the even lanes, 3 lane 0 of every four).
GATHER_STEP_PATTERN = {2: 1, 4: 3}
ReduceOp = Literal["sum", "max", "min", "prod", "argmax", "argmin"]
Mode = Literal["elementwise", "row", "column"]


class DimExpr(BaseModel):
    """A runtime size: product of kernel-input dims (input index, dim) times mul, divided by div."""

    terms: list[tuple[int, int]] = []
    mul: int = 1
    div: int = 1

    def times(self, other: DimExpr) -> DimExpr:
        return DimExpr(
            terms=self.terms + other.terms, mul=self.mul * other.mul, div=self.div * other.div
        )

    def text(self, names: list[str]) -> str:
        parts = [f"{names[i]}.shape[{d}]" for i, d in self.terms]
        if self.mul != 1 or not parts:
            parts.append(str(self.mul))
        s = "*".join(parts)
        return f"{s}/{self.div}" if self.div != 1 else s


class Axis(BaseModel):
    size: DimExpr
    example: int
    reduced: bool = False


class PlanInput(BaseModel):
    name: str
    dtype: str
    shape: list[int]
    kind: str = "input"
    mask: list[bool]  # varies along plan axis k (else stride 0)
    used: bool = True
    # The input's own extent along plan axes where it differs from the domain (it is read
    # through slices, or is one part of a cat): its strides use these sizes, not the domain's.
    span: dict[int, DimExpr] = {}


class Read(BaseModel):
    """A view of an input at one leaf, along plan axis `axis`: domain position j reads the
    input's position j + offset (j - offset when `back`). With a `fill`, positions j < `lo` and
    j >= `hi` (domain positions; None: no bound on that side) read the fill instead: a cat of a
    constant block ahead of the tensor, then a slice (the shifted read of an exclusive cumsum:
    lo = offset), a constant block after it (hi = the tensor's end), or one part of a cat of
    several tensors (each part read over its own range, 0 elsewhere, and the parts added)."""

    axis: int
    offset: DimExpr
    back: bool = False
    fill: float | None = None
    lo: DimExpr | None = None
    hi: DimExpr | None = None
    # Plain forward offsets along other axes (x[1:, 1:]: rows and columns both from 1).
    shifts: dict[int, DimExpr] = {}
    # A stepped slice (x[:, 1::2]): position j reads offset + j * step (forward reads only).
    step: int = 1


class OutWindow(BaseModel):
    """A slice of a computed value as an output: domain positions [lo, hi) along plan axis
    `axis` are stored, at position - lo (along the vector axis the tile holding lo is gathered
    to the front of a work tile first: a store starts at an aligned UB address)."""

    axis: int
    lo: int
    hi: int


class PlanOutput(BaseModel):
    name: str
    dtype: str
    shape: list[int]
    node: int
    level: Literal["full", "reduced", "scalar"]
    # A cat of computed tensors: the parts' nodes (`node` is the first), each a tile of the
    # domain's shape stored at p * (size of `cat_axis`) along that plan axis of the output.
    parts: list[int] = []
    cat_axis: int | None = None
    window: OutWindow | None = None  # a slice of a computed value: the stored range
    # The output's runtime dims where they are not an input's (a cat: the part's size times
    # the parts along the cat dim), for the host's shape inference.
    dims: list[DimExpr] | None = None


class Node(BaseModel):
    id: int
    op: str
    args: list[int] = []
    value: float | None = None  # const
    index: int | None = None  # input index / stage index
    read: Read | None = None  # input leaves read through a slice (None: the plain layout)


class Stage(BaseModel):
    """A reduction. `domain`: over the reduced axes, per row. `global`: a per-row value reduced
    over all rows (second level: batch means of losses)."""

    name: str
    op: ReduceOp
    value: int
    scope: Literal["domain", "global", "scan"] = "domain"
    reverse: bool = False  # scans: from the last position to the first


class KernelPlan(BaseModel):
    op_name: str
    kernel_name: str
    inputs: list[PlanInput]
    outputs: list[PlanOutput]
    axes: list[Axis]
    nodes: list[Node]
    stages: list[Stage]
    notes: list[str] = []
    # Validation shape variants when inputs are read through slices (the generic ones would
    # change sliced dims the offsets do not follow); None: the generic variants.
    variants: list[list[list[int]]] | None = None

    @property
    def vector_axis(self) -> int:
        return len(self.axes) - 1

    @property
    def mode(self) -> Mode:
        if not self.stages:
            return "elementwise"
        return "row" if self.axes[-1].reduced else "column"

    @property
    def has_scan(self) -> bool:
        return any(s.scope == "scan" for s in self.stages)

    def varies(self, node_id: int) -> frozenset[int]:
        """Axes along which a node's value changes."""
        memo: dict[int, frozenset[int]] = {}

        def go(i: int) -> frozenset[int]:
            if i in memo:
                return memo[i]
            n = self.nodes[i]
            if n.op == "input":
                r = frozenset(k for k, m in enumerate(self.inputs[n.index or 0].mask) if m)
            elif n.op == "stat":
                kept = {k for k, a in enumerate(self.axes) if not a.reduced}
                st = self.stages[n.index or 0]
                if st.scope == "scan":
                    r = go(st.value)
                else:
                    r = frozenset() if st.scope == "global" else go(st.value) & frozenset(kept)
            elif n.op == "iota":
                r = frozenset([n.index or 0])
            elif n.op in ("const", "count", "gcount"):
                r = frozenset()
            else:
                r = frozenset().union(*(go(a) for a in n.args))
            memo[i] = r
            return r

        return go(node_id)

    def is_full(self, node_id: int) -> bool:
        """True when the value changes along a reduced axis (needs the whole domain)."""
        reduced = {k for k, a in enumerate(self.axes) if a.reduced}
        return bool(self.varies(node_id) & reduced)


def _expr(plan: KernelPlan, i: int, names: dict[int, str]) -> str:
    if i in names:
        return names[i]
    n = plan.nodes[i]
    if n.op == "input":
        name = plan.inputs[n.index or 0].name
        r = n.read
        if r is None:
            return name
        sign = "-" if r.back else "+"
        ins = [t.name for t in plan.inputs]
        off = r.offset.text(ins)
        fill = ""
        if r.fill is not None and r.hi is None and r.back and r.lo == r.offset:
            fill = f", {r.fill:g} before the start"
        elif r.fill is not None:
            lo = "0" if r.lo is None else r.lo.text(ins)
            hi = f"a{r.axis} end" if r.hi is None else r.hi.text(ins)
            fill = f", {r.fill:g} outside a{r.axis} in [{lo}, {hi})"
        more = "".join(f", a{k} + {e.text(ins)}" for k, e in sorted(r.shifts.items()))
        at = f"a{r.axis}" if r.step == 1 else f"{r.step}*a{r.axis}"
        return f"{name}[{at} {sign} {off}{fill}{more}]"
    if n.op == "const":
        return f"{n.value:g}"
    if n.op == "stat":
        return plan.stages[n.index or 0].name
    if n.op == "count":
        return "N_reduced"
    if n.op == "gcount":
        return "N_rows"
    if n.op == "iota":
        return f"index(a{n.index})"
    args = ", ".join(_expr(plan, a, names) for a in n.args)
    return f"{n.op}({args})"


def plan_text(plan: KernelPlan) -> str:
    """The readable form of a plan (also the LLM prompt's plan summary)."""
    in_names = [t.name for t in plan.inputs]
    lines = [f"kernel {plan.kernel_name} (op {plan.op_name}), mode {plan.mode}"]
    axes = []
    for k, a in enumerate(plan.axes):
        tag = "reduce" if a.reduced else "keep"
        vec = ", vector axis" if k == plan.vector_axis else ""
        axes.append(f"  a{k} = {a.size.text(in_names)} [{tag}{vec}] (example {a.example})")
    lines.append("domain:")
    lines += axes
    lines.append("inputs:")
    for t in plan.inputs:
        along = ",".join(f"a{k}" for k, m in enumerate(t.mask) if m) or "-"
        unused = "" if t.used else " (unused)"
        spans = "".join(f", a{k} spans {e.text(in_names)}" for k, e in sorted(t.span.items()))
        lines.append(
            f"  {t.name}: {t.dtype}{t.shape} {t.kind}, varies along {along}{spans}{unused}"
        )
    lines.append("compute: float32 (half/bfloat16 cast on load and store)")
    # Name shared sub-expressions that feed several places, so the text stays short.
    uses: dict[int, int] = {}
    for n in plan.nodes:
        for a in n.args:
            uses[a] = uses.get(a, 0) + 1
    names: dict[int, str] = {}
    lets: list[str] = []
    for n in plan.nodes:
        if n.op not in LEAF_OPS and uses.get(n.id, 0) > 1:
            text = _expr(plan, n.id, names)
            names[n.id] = f"t{n.id}"
            lets.append(f"  t{n.id} = {text}")
    if lets:
        lines.append("let:")
        lines += lets
    for s in plan.stages:
        over = {
            "domain": "over reduced axes",
            "global": "over all rows",
            "scan": "running along the scan axis" + (", reversed" if s.reverse else ""),
        }[s.scope]
        lines.append(f"stage {s.name} = reduce_{s.op}({over}) {_expr(plan, s.value, names)}")
    for o in plan.outputs:
        value = _expr(plan, o.node, names)
        if o.parts:
            each = ", ".join(_expr(plan, p, names) for p in o.parts)
            value = f"cat along a{o.cat_axis} of [{each}] (each part's tile stored in its range)"
        if o.window is not None:
            w = o.window
            value += f", stored at a{w.axis} in [{w.lo}, {w.hi}) only"
        lines.append(f"output {o.name}: {o.dtype}{o.shape} [{o.level}] = {value}")
    split = {
        "elementwise": "work units = (outer index, vector tile); units split over cores",
        "row": "work units = kept-axes rows; each row streamed in vector tiles per stage "
        "(fewer rows than cores: a row's tiles split over several cores, stage partials "
        "combined through the workspace after SyncAll)",
        "column": "work units = (kept outer index, vector tile); reduced axes summed into tiles",
    }[plan.mode]
    lines.append(f"split: {split}; big/small-core split of units; tail tile per row")
    if any(s.scope == "global" for s in plan.stages):
        lines.append("global stages: per-core partials, combined on core 0 after SyncAll")
    lines += [f"note: {x}" for x in plan.notes]
    return "\n".join(lines)
