"""Captured core-ATen graph -> KernelPlan.

Picks the domain (the shape of the largest input, or of an input's reshape), walks the graph
through the op table in `ops.py`, checks every reduction reduces the same domain axes, merges
adjacent axes that behave alike, and drops axes of size 1.
"""

from __future__ import annotations

import math
import re

from ascend_tools.toolchain.dtypes import FLOAT_DTYPES
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode
from kernelgen_lm.plan.graph import Builder, PlanError, TVal, split_axis
from kernelgen_lm.plan.ir import (
    COMPARE_OPS,
    GATHER_STEP_PATTERN,
    Axis,
    DimExpr,
    KernelPlan,
    OutWindow,
    PlanInput,
    PlanOutput,
    Read,
)
from kernelgen_lm.plan.ops import OPS, VIEW_OPS, Env
from kernelgen_lm.plan.slicedown import push_slices
from kernelgen_lm.plan.views import (
    Cat,
    ComputedCat,
    ConstBlock,
    SlicedOut,
    Window,
    as_bound,
    cat_domain,
    domain_windows,
    materialize_cat,
    materialize_const,
    materialize_window,
)

INDEX_DTYPES = ("int32", "int64")


def snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _factor(in_shape: list[int], out_shape: list[int], index: int) -> list[Axis]:
    """Domain axes for `input.view(out_shape)`: each out dim as a product of input dims."""
    axes: list[Axis] = []
    i = 0
    j = 0
    while j < len(out_shape):
        if out_shape[j] == 1:
            axes.append(Axis(size=DimExpr(), example=1))
            j += 1
            continue
        gi, gj = [], []
        pi = pj = 1
        while True:
            if pj <= pi and j < len(out_shape):
                pj *= out_shape[j]
                gj.append(j)
                j += 1
            elif i < len(in_shape):
                pi *= in_shape[i]
                gi.append(i)
                i += 1
            else:
                break
            if pi == pj and gi and gj:
                break
        if pi != pj:
            raise PlanError(f"view {in_shape} -> {out_shape} is not a contiguous reshape")
        terms = [(index, d) for d in gi if in_shape[d] != 1]
        if len(gj) == 1:
            axes.append(Axis(size=DimExpr(terms=terms), example=out_shape[gj[0]]))
            continue
        var = max(gj, key=lambda k: out_shape[k])
        rest = math.prod(out_shape[k] for k in gj if k != var)
        for k in gj:
            size = DimExpr(terms=terms, div=rest) if k == var else DimExpr(mul=out_shape[k])
            axes.append(Axis(size=size, example=out_shape[k]))
    return axes


def _domain(g: CapturedGraph) -> tuple[list[Axis], int, OpNode | None]:
    """The domain axes, the input they come from, and the view node that shaped it (if any).
    An input read only through slices (glu, chunk) offers its slices' shape, not its own."""
    names = g.input_names()
    cands: list[tuple[int, int, int, OpNode | None, list[int] | None]] = []
    for i, t in enumerate(g.inputs):
        windows = domain_windows(g, t.name)
        if windows is None:
            cands.append((math.prod(t.shape), len(t.shape), i, None, None))
            continue
        for w in windows:
            if len(w) == len(t.shape):
                cands.append((math.prod(w), len(w), i, None, w))
    for n in g.nodes:
        if n.target in VIEW_OPS and n.args and isinstance(n.args[0], NodeRef):
            ref = n.args[0].ref
            if ref in names and n.shape is not None:
                cands.append((math.prod(n.shape), len(n.shape), names.index(ref), n, None))
    if not cands:
        raise PlanError("the model has no tensor inputs")
    _, _, idx, view, window = max(cands, key=lambda c: (c[0], c[3] is not None, c[1]))
    # A cat of inputs that compute reads whole is the domain when it is larger (cat([a, b]))
    cat = max(cat_domain(g), key=lambda c: math.prod(a.example for a in c), default=None)
    if cat is not None and math.prod(a.example for a in cat) > max(c[0] for c in cands):
        return cat, -1, None
    shape = g.inputs[idx].shape
    if window is not None:
        axes = []
        for d, (s, w) in enumerate(zip(shape, window, strict=True)):
            size, _ = as_bound(w, s, DimExpr(terms=[(idx, d)]))
            axes.append(Axis(size=size, example=w))
    elif view is None:
        axes = [Axis(size=DimExpr(terms=[(idx, d)]), example=s) for d, s in enumerate(shape)]
    else:
        axes = _factor(shape, view.shape or [], idx)
    return axes, idx, view


def build_plan(g: CapturedGraph) -> KernelPlan:
    g = push_slices(g)  # slices of elementwise results read the inputs at an offset
    axes, base, base_view = _domain(g)
    names = g.input_names()
    # Group norm splits the channel axis into (group, channel-in-group) before the walk.
    split: int | None = None
    for n in g.nodes:
        if n.target == "aten.native_group_norm.default":
            x = n.args[0]
            if base < 0 or not (isinstance(x, NodeRef) and x.ref == names[base] and not base_view):
                raise PlanError("group norm is supported on the model's main input only")
            groups = int(n.args[6])  # type: ignore[arg-type]
            if split is not None and split != groups:
                raise PlanError("two group norms with different group counts")
            if groups > 1 and split is None:
                axes = split_axis(axes, 1, groups)
                split = groups
    b = Builder(axes=axes, input_names=names)
    env: Env = {}
    for i, t in enumerate(g.inputs):
        if i == base and base_view is None:
            if split:
                ax = [[0], [1, 2]] + [[k + 1] for k in range(2, len(t.shape))]
            else:
                ax = [[k] for k in range(len(t.shape))]
            env[t.name] = LazyInput(i, t.shape, ax)
        else:
            env[t.name] = LazyInput(i, t.shape, None)
    if base_view is not None:
        env[base_view.name] = LazyInput(
            base, base_view.shape or [], [[k] for k in range(len(axes))]
        )
    for n in g.nodes:
        if base_view is not None and n.name == base_view.name:
            continue
        handler = OPS.get(n.target)
        if handler is None:
            where = f" (line {n.line})" if n.line else ""
            raise PlanError(
                f"op {n.target}{where} is not supported by the rule-based generator; "
                "configure an LLM backend (--backend llm) for it"
            )
        try:
            env[n.name] = handler(b, env, n)
        except PlanError as e:
            where = f" at line {n.line}" if n.line else ""
            raise PlanError(f"{n.target}{where}: {e}") from None
    outputs: list[tuple[TVal, OpNode]] = []
    cats: dict[int, tuple[list[TVal], int]] = {}  # output -> (parts, pre-merge cat axis)
    windows: dict[int, OutWindow] = {}  # output -> the stored range (pre-merge axis)
    for name in g.outputs:
        v = env.get(name)
        if isinstance(v, ComputedCat):
            cats[len(outputs)] = (v.parts, _cat_axis(v, name))
            v = v.parts[0]
        if isinstance(v, SlicedOut):
            windows[len(outputs)] = _out_window(b, v, name)
            v = v.val
        v = materialize(b, v)
        node = g.node(name)
        if not isinstance(v, TVal) or node is None or node.shape is None:
            raise PlanError(f"output {name} is not a tensor computed by the graph")
        if v.flipped is not None:
            raise PlanError(
                f"output {name} is flipped; flip is supported only around a cumulative op"
            )
        outputs.append((v, node))
    return _finish(g, b, outputs, cats, windows)


def _out_window(b: Builder, v: SlicedOut, name: str) -> OutWindow:
    """The stored range of a slice of a computed value, along its one domain axis. The bounds
    are the captured constants, so validation keeps that dim at its captured size."""
    if v.val.flat is not None or v.val.flipped is not None:
        raise PlanError(f"output {name}: a slice of a reshaped or flipped computed value")
    along = v.val.axes[v.dim]
    if len(along) != 1:
        raise PlanError(
            f"output {name}: a slice of a computed value along a dim that is "
            + ("broadcast" if not along else "reshaped")
            + " in the domain is not supported"
        )
    k = along[0]
    for term in b.axes[k].size.terms:
        b.view_dims[term] = 0  # a constant bound: the dim stays at its captured size
    return OutWindow(axis=k, lo=v.lo, hi=v.hi)


def _cat_axis(c: ComputedCat, name: str) -> int:
    """The one domain axis a cat of computed tensors runs along; every part spans the same
    axes (so each is a tile of one layout, stored at its own offset along that axis)."""
    first = c.parts[0]
    if any(p.flat is not None or p.flipped is not None for p in c.parts):
        raise PlanError(f"output {name}: a cat of reshaped or flipped computed tensors")
    if any(p.axes != first.axes for p in c.parts):
        raise PlanError(
            f"output {name}: a cat of computed tensors laid over different domain axes "
            "(one part broadcast where another varies) is not supported"
        )
    along = first.axes[c.dim]
    if len(along) != 1:
        raise PlanError(
            f"output {name}: a cat of computed tensors along a dim that is "
            + ("broadcast" if not along else "reshaped")
            + " in the domain is not supported"
        )
    return along[0]


class LazyInput:
    """A graph input, turned into a plan leaf on first use (so unused inputs cost nothing)."""

    def __init__(self, index: int, shape: list[int], axes: list[list[int]] | None) -> None:
        self.index = index
        self.shape = shape
        self.axes = axes


def materialize(b: Builder, v: object) -> object:
    if isinstance(v, Window):
        return materialize_window(b, v)
    if isinstance(v, Cat):
        return materialize_cat(b, v)
    if isinstance(v, SlicedOut):
        raise PlanError(
            "a slice of a computed value (a reduction, a scan, a softmax) is fused only as "
            "an output (the stored range of its tiles); computing on it is not supported"
        )
    if isinstance(v, ComputedCat):
        raise PlanError(
            "a cat of computed tensors is fused only as an output (each part's tile stored "
            "into its range); computing on it (a cat of computed tensors read again) is not "
            "supported"
        )
    if isinstance(v, ConstBlock):
        return materialize_const(b, v)
    if isinstance(v, LazyInput):
        axes = v.axes if v.axes is not None else b.align(v.shape)
        return b.input(v.index, axes, v.shape)
    return v


def _finish(
    g: CapturedGraph,
    b: Builder,
    outs: list[tuple[TVal, OpNode]],
    cats: dict[int, tuple[list[TVal], int]] | None = None,
    windows: dict[int, OutWindow] | None = None,
) -> KernelPlan:
    cats = cats or {}
    windows = windows or {}
    rank = len(b.axes)
    reduced = b.reduced or frozenset()
    for k in reduced:
        b.axes[k].reduced = True
    kept = [k for k in range(rank) if k not in reduced]
    out_masks: list[list[bool]] = []
    levels: list[str] = []
    for v, node in outs:
        spanned = v.all_axes()
        if spanned != sorted(spanned):
            raise PlanError(f"output {node.name}: transposed layouts are not supported")
        real = [k for k in spanned if b.axes[k].example != 1]
        full = [k for k in range(rank) if b.axes[k].example != 1]
        kept_real = [k for k in kept if b.axes[k].example != 1]
        if real == full:
            levels.append("full")
            out_masks.append([True] * rank)
        elif real == kept_real and reduced:
            levels.append("reduced")
            out_masks.append([k not in reduced for k in range(rank)])
        elif not real and any(st.scope == "global" for st in b.stages):
            levels.append("scalar")
            out_masks.append([False] * rank)
        else:
            raise PlanError(
                f"output {node.name} {node.shape} covers neither the whole domain nor the kept axes"
            )
    # Merge adjacent axes that every input and output treats alike; drop size-1 axes.
    in_masks = {i: m for i, m in b.masks.items()}
    # An index leaf (gather) needs its axis on its own: never merged with a neighbour.
    iotas = [n for n in b.nodes if n.op == "iota"]
    pins = [[k == n.index for k in range(rank)] for n in iotas]
    # So does an axis an input is read along at an offset, or is longer than the domain on.
    reads = [n for n in b.nodes if n.read is not None]
    pins += [[k == n.read.axis for k in range(rank)] for n in reads if n.read is not None]
    pins += [[k == a for k in range(rank)] for n in reads if n.read for a in n.read.shifts]
    pins += [[k in sp for k in range(rank)] for sp in b.spans.values()]
    # and the axis a cat of computed tensors is stored along (its parts' offsets)
    pins += [[k == a for k in range(rank)] for _, a in cats.values()]
    pins += [[k == w.axis for k in range(rank)] for w in windows.values()]  # a stored range
    keep_axes = [k for k in range(rank) if b.axes[k].example != 1]
    if not keep_axes:
        keep_axes = [rank - 1]
    groups: list[list[int]] = []
    for k in keep_axes:
        if groups:
            p = groups[-1][-1]
            same = b.axes[p].reduced == b.axes[k].reduced and all(
                m[p] == m[k] for m in [*in_masks.values(), *out_masks, *pins]
            )
            if same:
                groups[-1].append(k)
                continue
        groups.append([k])
    new_axes: list[Axis] = []
    for grp in groups:
        size = b.axes[grp[0]].size
        for k in grp[1:]:
            size = size.times(b.axes[k].size)
        new_axes.append(
            Axis(
                size=size,
                example=math.prod(b.axes[k].example for k in grp),
                reduced=b.axes[grp[0]].reduced,
            )
        )

    def group_of(k: int) -> int:
        return next(gi for gi, grp in enumerate(groups) if k in grp)

    for n in iotas:
        n.index = group_of(n.index or 0)
    for n in reads:
        if n.read is not None:
            n.read.axis = group_of(n.read.axis)
            n.read.shifts = {group_of(k): e for k, e in n.read.shifts.items()}
            _check_step(n.read, len(groups) - 1, b.input_names[n.index or 0])
    inputs = []
    for i, t in enumerate(g.inputs):
        m = in_masks.get(i)
        mask = [bool(m[grp[0]]) for grp in groups] if m is not None else [False] * len(groups)
        inputs.append(
            PlanInput(
                name=t.name,
                dtype=t.dtype,
                shape=t.shape,
                kind=t.kind,
                mask=mask,
                used=m is not None,
                span={group_of(k): e for k, e in b.spans.get(i, {}).items()},
            )
        )
        if (
            m is not None
            and t.dtype not in (*FLOAT_DTYPES, "bool")
            and (t.dtype not in INDEX_DTYPES or (mask[-1] and i not in b.index_inputs))
        ):
            raise PlanError(
                f"input {t.name} has dtype {t.dtype}; the rule-based generator computes on "
                "float32/float16/bfloat16 inputs (integer inputs only as per-row values such "
                "as class targets)"
            )
    outputs = []
    for j, ((v, node), level) in enumerate(zip(outs, levels, strict=True)):
        dtype = node.dtype or "float32"
        n = b.nodes[v.node]
        is_index = n.op == "stat" and b.stages[n.index or 0].op in ("argmax", "argmin")
        is_mask = n.op in COMPARE_OPS and dtype == "bool"
        if dtype not in FLOAT_DTYPES and not (is_index and dtype in INDEX_DTYPES) and not is_mask:
            raise PlanError(
                f"output {node.name} has dtype {dtype}; the rule-based generator "
                "writes float32/float16/bfloat16 outputs"
            )
        out = PlanOutput(
            name=f"y{len(outputs)}" if len(outs) > 1 else "y",
            dtype=dtype,
            shape=node.shape or [],
            node=v.node,
            level=level,  # type: ignore[arg-type]
        )
        if j in cats:
            parts, axis = cats[j]
            out.parts = [p.node for p in parts]
            out.cat_axis = group_of(axis)
            out.dims = _cat_dims(b, parts[0], axis, len(parts))
        if j in windows:
            w = windows[j]
            out.window = OutWindow(axis=group_of(w.axis), lo=w.lo, hi=w.hi)
            out.dims = _window_dims(b, v, w)
        outputs.append(out)
    plan = KernelPlan(
        op_name=g.op_name,
        kernel_name=snake(g.op_name),
        inputs=inputs,
        outputs=outputs,
        axes=new_axes,
        nodes=b.nodes,
        stages=b.stages,
    )
    if b.view_dims:
        plan.variants = _view_variants(g, b.view_dims)
    for o in plan.outputs:
        if o.level != "scalar" and _uses_global(plan, o.node):
            raise PlanError(
                f"output {o.name} needs a global reduction inside a per-row "
                "result; that needs two passes (not covered)"
            )
    return plan


def _cat_dims(b: Builder, part: TVal, axis: int, count: int) -> list[DimExpr]:
    """Runtime dims of a cat of `count` computed parts: each dim the product of its domain
    axes' sizes, the cat axis's times `count`."""
    dims = []
    for ax in part.axes:
        size = DimExpr()
        for k in ax:
            size = size.times(b.axes[k].size)
        if ax == [axis]:
            size = size.times(DimExpr(mul=count))
        dims.append(size)
    return dims


def _window_dims(b: Builder, v: TVal, w: OutWindow) -> list[DimExpr]:
    """Runtime dims of a slice of a computed value: the domain's, the sliced one its length
    (of the output's dims, those the value spans: a keepdim reduction's 1s stay 1)."""
    dims = []
    for ax in v.axes:
        size = DimExpr()
        for k in ax:
            size = size.times(b.axes[k].size)
        dims.append(DimExpr(mul=w.hi - w.lo) if ax == [w.axis] else size)
    return dims


def _check_step(r: Read, vector_axis: int, name: str) -> None:
    """A stepped slice is a gather of every step-th element of a loaded tile: along the vector
    axis, with a step GatherMask has a built-in pattern for."""
    if r.step == 1:
        return
    if r.axis != vector_axis:
        raise PlanError(f"{name}: a stepped slice is fused along the last axis only")
    if r.step not in GATHER_STEP_PATTERN:
        steps = ", ".join(str(s) for s in sorted(GATHER_STEP_PATTERN))
        raise PlanError(
            f"{name}: a slice with step {r.step} along the last axis is not supported (steps "
            f"{steps} are: GatherMask's built-in patterns)"
        )


def _view_variants(g: CapturedGraph, dims: dict[tuple[int, int], int]) -> list[list[list[int]]]:
    """The generic shape variants with sliced dims kept consistent: a dim whose slice bounds are
    fractions p/q grows in steps of q, one with constant bounds keeps its captured size."""
    from kernelgen_lm.generate import shape_variants

    out: list[list[list[int]]] = []
    for variant in shape_variants(g):
        shapes = [list(s) for s in variant]
        for (i, d), step in dims.items():
            old = g.inputs[i].shape[d]
            grow = shapes[i][d] - old
            if grow:
                shapes[i][d] = old + grow * step
        if shapes not in out and shapes != [t.shape for t in g.inputs]:
            out.append(shapes)
    return out


def _uses_global(plan: KernelPlan, node: int) -> bool:
    seen: set[int] = set()
    stack = [node]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        n = plan.nodes[i]
        if n.op == "gcount":
            return True
        if n.op == "stat":
            st = plan.stages[n.index or 0]
            if st.scope == "global":
                return True
            stack.append(st.value)
        stack.extend(n.args)
    return False


__all__ = ["PlanError", "build_plan", "materialize"]
