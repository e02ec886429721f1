"""Slices of model inputs fused into compute: a slice, split/chunk or a cat is not a kernel of
its own but a *view* the leaf that reads the input carries (`ir.Read`).

The walk keeps such a value lazy (`Window`: the input, the window's start per dim, its shape,
the input range it may read, the fill value of positions outside that range) until compute
uses it; then it becomes an input leaf whose read has an offset along one domain axis (glu's
second half: + dim/2) and, after a cat with constant blocks, a fill for the positions before
or after the input (exclusive cumsum: x shifted by one, 0 in front). A cat of several tensors
(`Cat`) is the sum of its parts, each read over its own range with 0 elsewhere (x + 0 == x for
every float, so the sum is each part's value exactly); a roll is such a cat of two slices.

Graphs hold static bounds (torch.export at the example shape); a bound is read back as a
runtime size when it is a fraction p/q of the sliced dim (chunk halves: dim/2), else it stays
a constant and validation keeps that dim at its captured size. A shift that comes from a
constant block (the cumsum's one zero) is a constant at every size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ascend_tools.toolchain.dtypes import FLOAT_DTYPES
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode
from kernelgen_lm.plan.graph import Builder, PlanError, TVal
from kernelgen_lm.plan.ir import Axis, DimExpr, Read

SLICE = "aten.slice.Tensor"
SPLITS = ("aten.split.Tensor", "aten.split_with_sizes.default")
WINDOW_OPS = (SLICE, *SPLITS)
GETITEM = "<built-in function getitem>"
# Ops a window passes through unread: float casts (compute is float32 anyway) and copies.
PASS_THROUGH = ("aten._to_copy.default", "aten.clone.default", "aten.alias.default")
# Fractions p/q of a dim a bound is recognised as (chunk(q) pieces), smallest q first.
MAX_PARTS = 8
BIG = 2**62  # slice ends at or past this are open ("to the end")


@dataclass
class Window:
    """Model input `index` (shape `full`) seen through slices: window position p along dim d
    reads the input's position p + start[d]; positions outside the input read `fill`. `axes`:
    the domain axes of the input's dims when the domain came from this input's slices.
    `valid`: per dim the input range [lo, hi) the window reads (None: the whole input); a cat
    grows the window past it, those positions read `fill`. `part`: one tensor of a cat of
    several: "same" when every tensor is a view of this input (its shifts are fractions of
    its dim or pinned), "mixed" when they are different inputs (every bound pinned: the
    others' sizes are no function of this input's)."""

    index: int
    full: list[int]
    axes: list[list[int]] | None
    start: list[int]
    shape: list[int]
    fill: float | None = None
    valid: list[tuple[int, int]] | None = None
    part: str = ""
    # dims sliced relative to the end (x[:, 1:], x[:, :-1]): a bound other than the whole dim
    # is dim - c, no runtime size the plan expresses, so validation keeps the dim
    affine: frozenset[int] = frozenset()
    # dim -> step of a stepped slice along it (window position p reads start + p * step)
    steps: dict[int, int] | None = None

    def step(self, d: int) -> int:
        return self.steps.get(d, 1) if self.steps else 1

    def range(self, d: int) -> tuple[int, int]:
        return self.valid[d] if self.valid is not None else (0, self.full[d])


@dataclass
class Cat:
    """A cat of several tensors (windows of inputs) along one dim, not laid out yet: each part
    is a window grown to the cat's extent, 0 outside its own range; compute reads their sum."""

    parts: list[Window]

    @property
    def shape(self) -> list[int]:
        return self.parts[0].shape


@dataclass
class ComputedCat:
    """A cat of computed tensors (`cat([x.relu(), y * 2], -1)`), each of the domain's shape:
    not a value compute can read (no part is 0 outside its range) but an output, each part's
    tile stored into its range of the cat dim."""

    parts: list[TVal]
    dim: int

    @property
    def shape(self) -> list[int]:
        s = list(self.parts[0].shape)
        s[self.dim] *= len(self.parts)
        return s


@dataclass
class SlicedOut:
    """A step-1 slice of a computed value (a reduction's row, a softmax's epilogue tile, a
    scan): not a value compute can read but an output, of which only positions [lo, hi)
    along torch dim `dim` are stored."""

    val: TVal
    dim: int
    lo: int
    hi: int

    @property
    def shape(self) -> list[int]:
        s = list(self.val.shape)
        s[self.dim] = self.hi - self.lo
        return s


@dataclass
class ConstBlock:
    """A constant of a static shape (zeros, full, zeros_like of a slice) not laid over the
    domain yet: a cat may take it as a block of any size along its dim."""

    value: float
    shape: list[int]


def materialize_const(b: Builder, c: ConstBlock) -> TVal:
    return TVal(b.const(c.value), list(c.shape), b.align(c.shape))


def as_bound(v: int, extent: int, e: DimExpr) -> tuple[DimExpr, int]:
    """A static slice bound as a runtime size, and how validation may grow the dim (0: it may
    not, the bound is a constant; q: in steps of q, the bound is p/q of the dim)."""
    if v == 0:
        return DimExpr(mul=0), 1
    for q in range(1, MAX_PARTS + 1):
        if (v * q) % extent == 0:
            p = v * q // extent
            g = math.gcd(p, q)
            return DimExpr(terms=list(e.terms), mul=p // g, div=q // g), q // g
    return DimExpr(mul=v), 0


def window_of(v: Any) -> Window | None:
    """The value as a window (a plain, not yet laid out input is the whole window)."""
    from kernelgen_lm.plan.build import LazyInput

    if isinstance(v, Window):
        return v
    if isinstance(v, LazyInput):
        return Window(v.index, list(v.shape), v.axes, [0] * len(v.shape), list(v.shape))
    return None


def _norm(v: Any, size: int, default: int) -> int:
    if v is None:
        return default
    i = int(v)
    if i < 0:
        i += size
    return max(0, min(i, size))


def sliced(w: Window, dim: int, start: int, length: int) -> Window:
    """Window positions [start, start + length) along `dim`; the readable input range narrows
    to them (a slice) or stays (a cat growing the window past the input)."""
    st = list(w.start)
    st[dim] += start
    shape = list(w.shape)
    shape[dim] = length
    valid = [w.range(d) for d in range(len(w.full))]
    lo, hi = valid[dim]
    valid[dim] = (max(lo, st[dim]), min(hi, st[dim] + length))
    if w.step(dim) != 1:
        raise PlanError("a slice of a stepped slice along the same dim is not supported")
    return Window(w.index, w.full, w.axes, st, shape, w.fill, valid, w.part, w.affine, w.steps)


def is_view(v: Any) -> bool:
    """A lazy view (a window of an input or a cat of several) that casts and copies keep."""
    return isinstance(v, Cat) or window_of(v) is not None


def _source(env: dict[str, Any], n: OpNode, at: int) -> tuple[list[Window], bool, int]:
    """The sliced windows (the parts of a cat, else one), whether they are a cat's, and the
    (non-negative) dim, found at argument `at`."""
    a = n.args[0]
    v = env.get(a.ref) if isinstance(a, NodeRef) else None
    w = window_of(v)
    if isinstance(v, Cat):
        ws, cat = list(v.parts), True
    elif w is not None:
        ws, cat = [w], False
    else:
        raise PlanError(
            "slices are fused on model inputs, on cats of them (with each other or with "
            "constant blocks) and on elementwise results (moved onto the operands), and a "
            "step-1 slice of another computed value as an output; this one splits or slices "
            "another computed value (a reduction, a scan, a reshape)"
        )
    dim = int(n.args[at]) % len(ws[0].shape) if len(n.args) > at else 0  # type: ignore[arg-type]
    return ws, cat, dim


def _pack(ws: list[Window], cat: bool) -> Window | Cat:
    return Cat(ws) if cat else ws[0]


def slice_handler(b: Builder, env: dict[str, Any], n: OpNode) -> Window | Cat | SlicedOut:
    src = env.get(n.args[0].ref) if isinstance(n.args[0], NodeRef) else None
    if isinstance(src, (TVal, SlicedOut)):
        return _slice_computed(src, n)
    ws, cat, dim = _source(env, n, 1)
    args = [*n.args, None, None, None][2:5]
    step = 1 if args[2] is None else int(args[2])  # type: ignore[arg-type]
    size = ws[0].shape[dim]
    lo = _norm(args[0], size, 0)
    hi = _norm(args[1], size, size)
    if step != 1:
        return _stepped(ws, cat, dim, lo, hi, step)
    neg = any(a is not None and int(a) < 0 for a in args[:2])  # type: ignore[arg-type]
    open_end = args[1] is None or int(args[1]) >= BIG  # type: ignore[arg-type]
    out = [sliced(w, dim, lo, max(0, hi - lo)) for w in ws]
    if neg or (open_end and lo > 0):
        for w in out:
            w.affine = w.affine | {dim}
    return _pack(out, cat)


def _slice_computed(v: TVal | SlicedOut, n: OpNode) -> SlicedOut:
    """A slice of a computed value: which of its positions the output stores (a second slice
    along the same dim narrows the first)."""
    shape = v.shape
    dim = int(n.args[1]) % len(shape) if len(n.args) > 1 else 0  # type: ignore[arg-type]
    args = [*n.args, None, None, None][2:5]
    if args[2] is not None and int(args[2]) != 1:  # type: ignore[arg-type]
        raise PlanError(
            f"a slice with step {args[2]} of a computed value (a reduction, a scan, a "
            "softmax) is not supported; step-1 slices of one are"
        )
    lo = _norm(args[0], shape[dim], 0)
    hi = max(lo, _norm(args[1], shape[dim], shape[dim]))
    if isinstance(v, SlicedOut):
        if v.dim != dim:
            raise PlanError(
                "slices of a computed value (a reduction, a scan, a softmax) along two dims "
                "are not supported; a slice along one dim is"
            )
        return SlicedOut(v.val, dim, v.lo + lo, v.lo + hi)
    return SlicedOut(v, dim, lo, hi)


def _stepped(ws: list[Window], cat: bool, dim: int, lo: int, hi: int, step: int) -> Window:
    """x[..., lo:hi:step] of a plain window: read later with a gather of every step-th element
    (along the vector axis only; build checks that)."""
    w = ws[0]
    if cat or w.fill is not None or w.part or w.steps:
        raise PlanError(
            f"a slice with step {step} is fused only on a model input (or a step-1 slice of "
            "one), not on a cat or another stepped slice"
        )
    n = max(0, -(-(hi - lo) // step))
    st = list(w.start)
    st[dim] += lo
    shape = list(w.shape)
    shape[dim] = n
    valid = [w.range(d) for d in range(len(w.full))]
    valid[dim] = (st[dim], st[dim] + max(0, (n - 1) * step + 1))
    return Window(w.index, w.full, w.axes, st, shape, None, valid, "", w.affine, {dim: step})


def split_handler(b: Builder, env: dict[str, Any], n: OpNode) -> tuple[Window | Cat, ...]:
    ws, cat, dim = _source(env, n, 2)
    size = ws[0].shape[dim]
    if n.target == "aten.split.Tensor":
        step = int(n.args[1])  # type: ignore[arg-type]
        sizes = [min(step, size - s) for s in range(0, size, step)]
    else:
        sizes = [int(s) for s in n.args[1]]  # type: ignore[union-attr]
    out, at = [], 0
    for s in sizes:
        out.append(_pack([sliced(w, dim, at, s) for w in ws], cat))
        at += s
    return tuple(out)


def cat_handler(b: Builder, env: dict[str, Any], n: OpNode) -> Window | Cat:
    """cat along one dim of model inputs (or windows of them, or cats of them) and constant
    blocks (zeros/ones/full). One tensor: a window that starts before (or runs past) the
    input, the blocks its fill. Several: a `Cat` of the tensors, each grown to the cat's
    extent with 0 outside its own range (constant blocks among them must be zeros)."""
    from kernelgen_lm.plan.ops import _arg

    parts = n.args[0]
    if not isinstance(parts, list):
        raise PlanError("cat of a non-list value")
    dim = int(n.args[1]) if len(n.args) > 1 else 0  # type: ignore[arg-type]
    if any(_computed(b, env, p) for p in parts):
        return _computed_cat(b, env, parts, dim)
    # (window or None for a constant block, its position along the cat dim, its length)
    items: list[tuple[Window | None, int, int]] = []
    fills: set[float] = set()
    at = 0
    for p in parts:
        v = env.get(p.ref) if isinstance(p, NodeRef) else None
        w = window_of(v)
        if isinstance(v, Cat) or w is not None:
            ws = v.parts if isinstance(v, Cat) else [w]
            d = dim % len(ws[0].shape)
            for x in ws:  # a cat of a cat: its parts, shifted to where it starts
                items.append((x, at, x.shape[d]))
            at += ws[0].shape[d]
            continue
        if isinstance(v, ConstBlock):
            value, shape = v.value, v.shape
        else:
            c = _arg(b, env, p)
            node = b.nodes[c.node] if isinstance(c, TVal) else None
            if node is None or node.op != "const":
                raise PlanError(
                    "cat inside compute is fused only of model inputs, slices of them and "
                    "constant blocks (zeros, ones, full); this one has a computed tensor"
                )
            value, shape = float(node.value or 0.0), c.shape
        d = dim % len(shape)
        items.append((None, at, shape[d]))
        at += shape[d]
        fills.add(value)
    tensors = [(w, pos, size) for w, pos, size in items if w is not None]
    if not tensors:
        raise PlanError("cat of constant blocks only is not supported")
    if len(fills) > 1:
        raise PlanError("cat with constant blocks of different values is not supported")
    d = dim % len(tensors[0][0].shape)
    if len(tensors) == 1 and not tensors[0][0].part:
        ((tensor, pos, _),) = tensors
        if tensor.fill is not None and fills and fills != {tensor.fill}:
            raise PlanError("cat with constant blocks of different values is not supported")
        grown = sliced(tensor, d, -pos, at)
        grown.fill = next(iter(fills)) if fills else tensor.fill
        return grown
    if fills - {0.0} or any(w.fill not in (None, 0.0) for w, _, _ in tensors):
        raise PlanError(
            "a cat of several tensors is fused with zero blocks only (each tensor is read over "
            "its range with 0 elsewhere and the parts added); this one has a non-zero block"
        )
    kind = "same" if len({w.index for w, _, _ in tensors}) == 1 else "mixed"
    out = []
    for w, pos, _ in tensors:
        g = sliced(w, d, -pos, at)
        g.fill, g.part = 0.0, kind
        out.append(g)
    return Cat(out)


def _computed(b: Builder, env: dict[str, Any], p: Any) -> bool:
    """A cat part that is neither a view of inputs nor a constant block: a computed tensor."""
    v = env.get(p.ref) if isinstance(p, NodeRef) else None
    if v is None or isinstance(v, (Cat, ConstBlock)) or window_of(v) is not None:
        return False
    if isinstance(v, ComputedCat):
        return True
    return not (isinstance(v, TVal) and b.nodes[v.node].op == "const")


def _computed_cat(b: Builder, env: dict[str, Any], parts: list[Any], dim: int) -> ComputedCat:
    """A cat with a computed part: every part laid over the domain (views of inputs read as
    leaves), each of the same shape, so part p is stored at p times that size along `dim`."""
    from kernelgen_lm.plan.build import materialize

    vals = [materialize(b, env.get(p.ref) if isinstance(p, NodeRef) else p) for p in parts]
    if not all(isinstance(v, TVal) for v in vals):
        raise PlanError("a cat of computed tensors with a part that is not a tensor")
    tvs: list[TVal] = vals  # type: ignore[assignment]
    shapes = {tuple(v.shape) for v in tvs}
    if len(shapes) != 1:
        raise PlanError(
            "a cat of computed tensors is fused when every part has one shape (each part's "
            f"tile stored into its range); these parts differ: {sorted(shapes)}"
        )
    rank = len(tvs[0].shape)
    if not rank:
        raise PlanError("a cat of computed scalars is not supported")
    return ComputedCat(tvs, dim % rank)


def materialize_window(b: Builder, w: Window) -> TVal:
    """The window as an input leaf. Along one dim at most it is read over a bounded range (a
    cat, a constant block); along others at a plain offset (x[1:, 1:]) or only narrower than
    the input (x[1:, :-1]: rows from 1, the last column dropped). Each such dim must be one
    domain axis."""
    axes = w.axes if w.axes is not None else b.align(w.shape)
    name = b.input_names[w.index]
    if any(w.range(d)[0] >= w.range(d)[1] for d in range(len(w.shape))):
        return TVal(b.const(w.fill or 0.0), list(w.shape), axes)  # reads none of the input
    read: Read | None = None
    span: dict[int, DimExpr] = {}
    for d in range(len(w.shape)):
        start, size, extent = w.start[d], w.shape[d], w.full[d]
        v_lo, v_hi = w.range(d)
        lo, hi = v_lo - start, v_hi - start  # window positions where the input's range is
        step = w.step(d)
        if step != 1:
            lo, hi = 0, size  # a stepped slice reads inside the input only
        bounded = lo > 0 or hi < size
        if start == 0 and not bounded and size == extent:
            continue
        if len(axes[d]) != 1:
            raise PlanError(f"{name}: a slice along a dim that is reshaped in the domain")
        k = axes[d][0]
        if b.axes[k].example != size:
            raise PlanError(f"{name}: a slice of {size} does not match the domain")
        e = DimExpr(terms=[(w.index, d)])
        if extent != size:
            span[k] = e

        pin = w.part == "mixed" or d in w.affine

        def bound(
            v: int, e: DimExpr = e, extent: int = extent, pin: bool = pin
        ) -> tuple[DimExpr, int]:
            if pin and v != extent:
                return DimExpr(mul=v), 0
            return as_bound(v, extent, e)

        steps = [bound(size)[1]]
        plain = start > 0 and not bounded and step == 1  # a forward offset, nothing else
        if plain and read is not None:
            offset, g_off = bound(start)
            read.shifts[k] = offset  # a second plain offset: x[1:, 1:]
            steps.append(g_off)
        elif start != 0 or bounded or step != 1:
            if read is not None and not (read.fill is None and not read.back and read.step == 1):
                raise PlanError(
                    f"{name}: read at an offset along two dims with a fill on one of them "
                    "is not supported; offsets along several dims (x[1:, 1:]) are, and one "
                    "bounded read (a cat or a constant block) with the others only narrowed"
                )
            moved = {read.axis: read.offset, **read.shifts} if read is not None else {}
            if bounded and w.fill is None:
                raise PlanError(f"{name}: a slice reaches outside the tensor")
            # a shift made by constant blocks is a constant at any size; a cat part's shift
            # is the other tensors' sizes (a fraction of this dim, or pinned)
            const = not w.part
            if start < 0 and const:
                offset, g_off = DimExpr(mul=-start), 1
            elif 0 <= start < step:  # x[:, 1::2]: a constant start within one step
                offset, g_off = DimExpr(mul=start), 1
            else:
                offset, g_off = bound(abs(start))
            lo_e = hi_e = None
            if lo > 0:
                lo_e, g_lo = (DimExpr(mul=lo), 1) if const else bound(lo)
                steps.append(g_lo)
            if hi < size:
                hi_e, g_hi = bound(hi)
                steps.append(g_hi)
            steps.append(g_off)
            fill = w.fill if bounded else None
            read = Read(
                axis=k,
                offset=offset,
                back=start < 0,
                fill=fill,
                lo=lo_e,
                hi=hi_e,
                shifts=moved,
                step=step,
            )
        old = b.view_dims.get((w.index, d), 1)
        steps.append(old)
        nz = [x for x in steps if x]
        b.view_dims[(w.index, d)] = 0 if 0 in steps else math.lcm(*nz)
    return b.input(w.index, axes, w.shape, read=read, span=span or None)


def materialize_cat(b: Builder, c: Cat) -> TVal:
    """A cat of several tensors: the sum of its parts, each 0 outside its own range."""
    vals = [materialize_window(b, w) for w in c.parts]
    node = vals[0].node
    for v in vals[1:]:
        node = b.bin("add", node, v.node)
    return TVal(node, list(vals[0].shape), vals[0].axes)


CAT = "aten.cat.default"
# Ops that make a constant block (zeros/ones/full and their _like forms decompose to these).
CONST_OPS = ("aten.full.default", "aten.full_like.default", "aten.empty_permuted.default")


COMPUTED = -1


def _traced_input(g: CapturedGraph, a: Any) -> int | None:
    """The model input a cat part is a view of (through slices, splits, float copies and
    inner cats); None for a constant block; COMPUTED for anything else."""
    names = g.input_names()
    while isinstance(a, NodeRef):
        if a.ref in names:
            return names.index(a.ref)
        n = g.node(a.ref)
        if n is None:
            return COMPUTED
        if n.target in CONST_OPS:
            return None
        if n.target == CAT:
            found = [_traced_input(g, p) for p in n.args[0]]  # type: ignore[union-attr]
            ins = [f for f in found if f is not None]
            return COMPUTED if COMPUTED in ins else (ins[0] if ins else None)
        if n.target not in (*WINDOW_OPS, *PASS_THROUGH, GETITEM):
            return COMPUTED
        a = n.args[0]
    return COMPUTED


def cat_domain(g: CapturedGraph) -> list[list[Axis]]:
    """Domain candidates from cats of inputs that compute reads whole (not only through a
    slice, as the exclusive cumsum does, or as part of an outer cat): the cat's shape, each
    dim a runtime size where it is a fraction of the first tensor's input dim, else its
    captured size."""
    out: list[list[Axis]] = []
    for n in g.nodes:
        if n.target != CAT or not n.shape or not isinstance(n.args[0], list):
            continue
        users = [m for m in g.nodes if any(refs(a, n.name) for a in m.args)]
        outputs = n.name in g.outputs
        if users and all(m.target in (*WINDOW_OPS, CAT) for m in users) and not outputs:
            continue
        found = [_traced_input(g, p) for p in n.args[0]]
        ins = [f for f in found if f is not None]
        if not ins or COMPUTED in ins:
            continue
        i = ins[0]
        full = g.inputs[i].shape
        if len(full) != len(n.shape):
            continue
        mixed = len(set(ins)) > 1  # the cat dim is a sum of sizes of several inputs
        axes = []
        for d, size in enumerate(n.shape):
            e, _ = as_bound(size, full[d], DimExpr(terms=[(i, d)]))
            if mixed and size != full[d]:
                e = DimExpr(mul=size)
            axes.append(Axis(size=e, example=size))
        out.append(axes)
    return out


def domain_windows(g: CapturedGraph, name: str) -> list[list[int]] | None:
    """The shapes of an input's slices when every use of it is a slice or split (the input
    itself is never read whole: the domain is the slices' shape); else None."""
    seen = {name}
    uses: list[OpNode] = []
    for n in g.nodes:
        if not any(refs(a, s) for a in [*n.args, *n.kwargs.values()] for s in seen):
            continue
        if n.target in PASS_THROUGH and n.dtype in FLOAT_DTYPES:
            seen.add(n.name)  # fp16 glu upcasts before slicing: the cast is no read
        else:
            uses.append(n)
    if not uses or not all(n.target in WINDOW_OPS for n in uses):
        return None
    shapes: list[list[int]] = []
    for n in uses:
        if n.target == SLICE:
            # a chain of slices (x[1:, :-1]) offers the last one's shape
            while True:
                nxt = [m for m in g.nodes if any(refs(a, n.name) for a in m.args)]
                if len(nxt) != 1 or nxt[0].target != SLICE:
                    break
                n = nxt[0]
            shapes.append(list(n.shape or []))
        else:
            shapes += [
                list(m.shape or [])
                for m in g.nodes
                if m.target == GETITEM and m.args and refs(m.args[0], n.name)
            ]
    return shapes


def refs(a: Any, name: str) -> bool:
    if isinstance(a, NodeRef):
        return a.ref == name
    if isinstance(a, list):
        return any(refs(x, name) for x in a)
    return False
