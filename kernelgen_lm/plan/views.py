"""Slices of model inputs fused into compute: a slice, split/chunk or a cat with constant blocks
is not a kernel of its own but a *view* the leaf that reads the input carries (`ir.Read`).

The walk keeps such a value lazy (`Window`: the input, the window's start per dim, its shape,
the fill value of positions outside the input) until compute uses it; then it becomes an input
leaf whose read has an offset along one domain axis (glu's second half: + dim/2) and, after a
cat of a constant block ahead of the tensor, a fill for the positions before the input's start
(exclusive cumsum: x shifted by one, 0 in front).

Graphs hold static bounds (torch.export at the example shape); a bound is read back as a
runtime size when it is a fraction p/q of the sliced dim (chunk halves: dim/2), else it stays
a constant and validation keeps that dim at its captured size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ascend_tools.toolchain.dtypes import FLOAT_DTYPES
from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode
from kernelgen_lm.plan.graph import Builder, PlanError, TVal
from kernelgen_lm.plan.ir import DimExpr, Read

SLICE = "aten.slice.Tensor"
SPLITS = ("aten.split.Tensor", "aten.split_with_sizes.default")
WINDOW_OPS = (SLICE, *SPLITS)
GETITEM = "<built-in function getitem>"
# Ops a window passes through unread: float casts (compute is float32 anyway) and copies.
PASS_THROUGH = ("aten._to_copy.default", "aten.clone.default", "aten.alias.default")
# Fractions p/q of a dim a bound is recognised as (chunk(q) pieces), smallest q first.
MAX_PARTS = 8
BIG = 2**62  # slice ends at or past this are open ("to the end")
# A shifted read along the vector axis fills its first elements by DataCopyPad's left padding,
# which covers at most one 32-byte block (docs/ASCENDC_SPEC.md, DataCopyPad).
PAD_BYTES = 32


@dataclass
class Window:
    """Model input `index` (shape `full`) seen through slices: window position p along dim d
    reads the input's position p + start[d]; positions outside the input read `fill`. `axes`:
    the domain axes of the input's dims when the domain came from this input's slices."""

    index: int
    full: list[int]
    axes: list[list[int]] | None
    start: list[int]
    shape: list[int]
    fill: float | None = None


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
    st = list(w.start)
    st[dim] += start
    shape = list(w.shape)
    shape[dim] = length
    return Window(w.index, w.full, w.axes, st, shape, w.fill)


def _source(env: dict[str, Any], n: OpNode, at: int) -> tuple[Window, int]:
    """The sliced window and the (non-negative) dim, found at argument `at`."""
    a = n.args[0]
    w = window_of(env.get(a.ref)) if isinstance(a, NodeRef) else None
    if w is None:
        raise PlanError(
            "slices are fused only on model inputs (and on a cat of one with constant blocks); "
            "this one slices a computed value"
        )
    dim = int(n.args[at]) % len(w.shape) if len(n.args) > at else 0  # type: ignore[arg-type]
    return w, dim


def slice_handler(b: Builder, env: dict[str, Any], n: OpNode) -> Window:
    w, dim = _source(env, n, 1)
    args = [*n.args, None, None, None][2:5]
    step = 1 if args[2] is None else int(args[2])  # type: ignore[arg-type]
    if step != 1:
        raise PlanError("a slice with a step is fused only with step 1")
    size = w.shape[dim]
    lo = _norm(args[0], size, 0)
    hi = _norm(args[1], size, size)
    return sliced(w, dim, lo, max(0, hi - lo))


def split_handler(b: Builder, env: dict[str, Any], n: OpNode) -> tuple[Window, ...]:
    w, dim = _source(env, n, 2)
    size = w.shape[dim]
    if n.target == "aten.split.Tensor":
        step = int(n.args[1])  # type: ignore[arg-type]
        sizes = [min(step, size - s) for s in range(0, size, step)]
    else:
        sizes = [int(s) for s in n.args[1]]  # type: ignore[union-attr]
    out, at = [], 0
    for s in sizes:
        out.append(sliced(w, dim, at, s))
        at += s
    return tuple(out)


def cat_handler(b: Builder, env: dict[str, Any], n: OpNode) -> Window:
    """cat of one model input (or a window of it) with constant blocks (zeros/ones/full) along
    one dim: a window that starts before (or runs past) the input, the blocks its fill."""
    from kernelgen_lm.plan.ops import _arg

    parts = n.args[0]
    if not isinstance(parts, list):
        raise PlanError("cat of a non-list value")
    dim = int(n.args[1]) if len(n.args) > 1 else 0  # type: ignore[arg-type]
    tensor: Window | None = None
    before = after = 0
    fills: set[float] = set()
    for p in parts:
        w = window_of(env.get(p.ref)) if isinstance(p, NodeRef) else None
        if w is not None:
            if tensor is not None:
                raise PlanError("cat of two tensors inside compute is not supported")
            tensor = w
            continue
        raw = env.get(p.ref) if isinstance(p, NodeRef) else None
        if isinstance(raw, ConstBlock):
            value, shape = raw.value, raw.shape
        else:
            v = _arg(b, env, p)
            node = b.nodes[v.node] if isinstance(v, TVal) else None
            if node is None or node.op != "const":
                raise PlanError(
                    "cat inside compute is fused only with constant blocks (zeros, ones)"
                )
            value, shape = float(node.value or 0.0), v.shape
        d = dim % len(shape)
        if tensor is None:
            before += shape[d]
        else:
            after += shape[d]
        fills.add(value)
    if tensor is None:
        raise PlanError("cat of constant blocks only is not supported")
    if len(fills) > 1:
        raise PlanError("cat with constant blocks of different values is not supported")
    if tensor.fill is not None and fills and fills != {tensor.fill}:
        raise PlanError("cat with constant blocks of different values is not supported")
    d = dim % len(tensor.shape)
    grown = sliced(tensor, d, -before, tensor.shape[d] + before + after)
    grown.fill = next(iter(fills)) if fills else tensor.fill
    return grown


def materialize_window(b: Builder, w: Window) -> TVal:
    """The window as an input leaf: one viewed dim at most, which must be one domain axis."""
    axes = w.axes if w.axes is not None else b.align(w.shape)
    viewed = [d for d in range(len(w.shape)) if w.start[d] != 0 or w.shape[d] != w.full[d]]
    if not viewed:
        return b.input(w.index, axes, w.full)
    if len(viewed) > 1:
        raise PlanError("an input sliced along two dims inside compute is not supported")
    d = viewed[0]
    if len(axes[d]) != 1:
        raise PlanError("a slice along a dim that is reshaped in the domain is not supported")
    k = axes[d][0]
    extent = w.full[d]
    e = DimExpr(terms=[(w.index, d)])
    start, end = w.start[d], w.start[d] + w.shape[d]
    name = b.input_names[w.index]
    if end > extent:
        raise PlanError(
            f"{name}: a constant block after the tensor (fill past its end) is not supported yet"
        )
    if start < 0:
        if w.fill is None:
            raise PlanError(f"{name}: a slice starts before the tensor")
        offset, back, grow = DimExpr(mul=-start), True, 1
    else:
        offset, grow = as_bound(start, extent, e)
        back = False
    _, g2 = as_bound(w.shape[d], extent, e)
    if b.axes[k].example != w.shape[d]:
        raise PlanError(f"{name}: a slice of {w.shape[d]} does not match the domain")
    fill = w.fill if start < 0 else None
    read = None if start == 0 else Read(axis=k, offset=offset, back=back, fill=fill)
    span = {k: e} if extent != w.shape[d] else {}
    old = b.view_dims.get((w.index, d), 1)
    steps = [x for x in (old, grow, g2) if x]
    b.view_dims[(w.index, d)] = 0 if 0 in (old, grow, g2) else math.lcm(*steps)
    return b.input(w.index, axes, w.shape, read=read, span=span or None)


def domain_windows(g: CapturedGraph, name: str) -> list[list[int]] | None:
    """The shapes of an input's slices when every use of it is a slice or split (the input
    itself is never read whole: the domain is the slices' shape); else None."""
    seen = {name}
    uses: list[OpNode] = []
    for n in g.nodes:
        if not any(_refs(a, s) for a in [*n.args, *n.kwargs.values()] for s in seen):
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
            shapes.append(list(n.shape or []))
        else:
            shapes += [
                list(m.shape or [])
                for m in g.nodes
                if m.target == GETITEM and m.args and _refs(m.args[0], n.name)
            ]
    return shapes


def _refs(a: Any, name: str) -> bool:
    if isinstance(a, NodeRef):
        return a.ref == name
    if isinstance(a, list):
        return any(_refs(x, name) for x in a)
    return False


def vector_fill_ok(dtype_bytes: int, shift: int) -> bool:
    """A shifted read along the vector axis fits DataCopyPad's left padding."""
    return shift * dtype_bytes <= PAD_BYTES
