"""The op table: each supported core-ATen op expressed with the plan's few primitives.

Composite functions (sigmoid, tanh, erf, gelu, elu, softmax, norms ...) expand here into the
primitive vector ops, so lowering has one small instruction set to get right.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kernelgen_lm.capture import NodeRef, OpNode
from kernelgen_lm.plan.graph import Builder, PlanError, TVal
from kernelgen_lm.plan.ir import COMPARE_OPS
from kernelgen_lm.plan.views import (
    ConstBlock,
    cat_handler,
    is_view,
    slice_handler,
    split_handler,
    window_of,
)

Env = dict[str, Any]
Value = TVal | float | tuple
Handler = Callable[[Builder, Env, OpNode], Any]

VIEW_OPS = ("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")

# Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), for erf and exact gelu.
ERF_P = 0.3275911
ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
TINY = 1e-30
REDUCE_ALL = frozenset(f"aten.{op}.default" for op in ("sum", "prod", "max", "min", "mean"))


def _arg(b: Builder, env: Env, a: Any) -> Any:
    from kernelgen_lm.plan.build import materialize

    if isinstance(a, NodeRef):
        if a.ref not in env:
            raise PlanError(f"value {a.ref} is not available")
        return materialize(b, env[a.ref])
    return a


def _args(b: Builder, env: Env, n: OpNode) -> list[Any]:
    return [_arg(b, env, a) for a in n.args]


def _kw(b: Builder, env: Env, n: OpNode, name: str, pos: int, default: Any) -> Any:
    if name in n.kwargs:
        return _arg(b, env, n.kwargs[name])
    if len(n.args) > pos:
        return _arg(b, env, n.args[pos])
    return default


def _tv(v: Any) -> TVal:
    if not isinstance(v, TVal):
        raise PlanError(f"expected a tensor, got {v!r}")
    return v


# ---------------------------------------------------------------- value-level helpers
def lift(b: Builder, v: Any) -> TVal:
    if isinstance(v, TVal):
        return v
    if isinstance(v, (int, float, bool)):
        return TVal(b.const(float(v)), [], [])
    raise PlanError(f"unsupported operand {v!r}")


def ew(b: Builder, op: str, *vals: Any) -> TVal:
    """An elementwise node over broadcast operands."""
    tv = [lift(b, v) for v in vals]
    shape, axes = tv[0].shape, tv[0].axes
    acc = tv[0]
    for other in tv[1:]:
        shape, axes = b.broadcast(TVal(acc.node, shape, axes), other)
    return TVal(b.add(op, [t.node for t in tv]), shape, axes)


def u(b: Builder, op: str, x: Any) -> TVal:
    return ew(b, op, x)


def add(b, x, y):  # type: ignore[no-untyped-def]
    return ew(b, "add", x, y)


def sub(b, x, y):  # type: ignore[no-untyped-def]
    return ew(b, "sub", x, y)


def mul(b, x, y):  # type: ignore[no-untyped-def]
    return ew(b, "mul", x, y)


def div(b, x, y):  # type: ignore[no-untyped-def]
    return ew(b, "div", x, y)


def sigmoid(b: Builder, x: Any) -> TVal:
    return u(b, "recip", add(b, u(b, "exp", u(b, "neg", x)), 1.0))


def tanh(b: Builder, x: Any) -> TVal:
    # 2 / (1 + exp(-2x)) - 1: saturates correctly at both ends (exp overflow gives -1).
    return sub(b, div(b, 2.0, add(b, u(b, "exp", mul(b, x, -2.0)), 1.0)), 1.0)


def erf(b: Builder, x: Any) -> TVal:
    ax = u(b, "abs", x)
    t = u(b, "recip", add(b, mul(b, ax, ERF_P), 1.0))
    poly = lift(b, ERF_A[4])
    for a in reversed(ERF_A[:4]):
        poly = add(b, mul(b, poly, t), a)
    poly = mul(b, poly, t)
    y = sub(b, 1.0, mul(b, poly, u(b, "exp", u(b, "neg", mul(b, ax, ax)))))
    sign = div(b, x, ew(b, "max", ax, TINY))
    return mul(b, y, sign)


def gelu(b: Builder, x: Any, approximate: str) -> TVal:
    if approximate == "tanh":
        inner = mul(b, add(b, x, mul(b, mul(b, mul(b, x, x), x), 0.044715)), 0.7978845608028654)
        return mul(b, mul(b, x, 0.5), add(b, tanh(b, inner), 1.0))
    return mul(b, mul(b, x, 0.5), add(b, erf(b, mul(b, x, 0.7071067811865476)), 1.0))


def where(b: Builder, c: Any, x: Any, y: Any) -> TVal:
    return ew(b, "where", c, x, y)


def powf(b: Builder, x: Any, p: float) -> TVal:
    if float(p).is_integer() and -4 <= p <= 4:
        k = int(abs(p))
        if k == 0:
            return add(b, mul(b, x, 0.0), 1.0)
        r = lift(b, x)
        for _ in range(k - 1):
            r = mul(b, r, x)
        return u(b, "recip", r) if p < 0 else r
    if p == 0.5:
        return u(b, "sqrt", x)
    if p == -0.5:
        return u(b, "rsqrt", x)
    return u(b, "exp", mul(b, u(b, "log", x), float(p)))


# float32 values at or above 2^23 in magnitude are integers already (and inf/NaN stay
# themselves): rounding passes them through, so the int32 Cast behind it never saturates.
ROUND_EXACT = 8388608.0
INT_DTYPES = ("int8", "int16", "int32", "int64", "uint8")


def rounded(b: Builder, op: str, x: Any) -> TVal:
    """floor/ceil/trunc/rint (torch.round: half to even) through a float -> int32 -> float Cast."""
    return where(b, ew(b, "lt", u(b, "abs", x), ROUND_EXACT), u(b, op, x), x)


def truth(b: Builder, v: Any) -> TVal:
    """A 0/1 mask of v's truth: a comparison already is one; anything else is v != 0."""
    t = lift(b, v)
    return t if b.nodes[t.node].op in COMPARE_OPS else ew(b, "ne", t, 0.0)


def logical(b: Builder, op: str, x: Any, y: Any = None) -> TVal:
    """Boolean ops on 0/1 masks. Each result is a comparison node, so it is itself a mask (no
    re-test when chained) and may be written as a bool output."""
    if op == "not":
        return ew(b, "eq", lift(b, x), 0.0)
    tx, ty = truth(b, x), truth(b, y)
    if op == "xor":
        return ew(b, "ne", tx, ty)
    both = {"and": "mul", "or": "max"}[op]
    return ew(b, "gt", ew(b, both, tx, ty), 0.0)


def modulo(b: Builder, x: Any, y: Any, rounding: str) -> TVal:
    """fmod (quotient truncated: sign of x) and remainder (quotient floored: sign of y);
    a zero divisor gives NaN as in torch (inf * 0)."""
    return sub(b, x, mul(b, rounded(b, rounding, div(b, x, y)), y))


LN2 = 0.6931471805599453
FLT_MAX = 3.4028234663852886e38


def sinh(b: Builder, x: Any) -> TVal:
    # exp(x - ln 2) = e^x / 2 stays finite up to the float32 range of sinh itself.
    return sub(b, u(b, "exp", sub(b, x, LN2)), u(b, "exp", sub(b, -LN2, x)))


def cosh(b: Builder, x: Any) -> TVal:
    return add(b, u(b, "exp", sub(b, x, LN2)), u(b, "exp", sub(b, -LN2, x)))


def asinh(b: Builder, x: Any) -> TVal:
    ax = u(b, "abs", x)
    mag = u(b, "log", add(b, ax, u(b, "sqrt", add(b, mul(b, ax, ax), 1.0))))
    return mul(b, mag, sign(b, x))


def sign(b: Builder, x: Any) -> TVal:
    """-1, 0 or 1 (NaN stays NaN)."""
    return div(b, x, ew(b, "max", u(b, "abs", x), TINY))


def isnan(b: Builder, x: Any) -> TVal:
    return ew(b, "ne", x, x)


def isinf(b: Builder, x: Any) -> TVal:
    # Constants cannot spell inf in the kernel (flit writes FLT_MAX): |x| > FLT_MAX is inf only.
    return ew(b, "gt", u(b, "abs", x), FLT_MAX)


def pow_tensor(b: Builder, x: Any, y: Any) -> TVal:
    """x ** y for tensor y: exp(y log|x|), negative bases only with integral exponents (sign
    from the exponent's parity; NaN otherwise), and x ** 0 = 1 as in torch."""
    r = u(b, "exp", mul(b, y, u(b, "log", u(b, "abs", x))))
    integral = ew(b, "eq", y, rounded(b, "trunc", y))
    odd = ew(b, "ne", modulo(b, y, 2.0, "trunc"), 0.0)
    negative = where(b, integral, where(b, odd, u(b, "neg", r), r), float("nan"))
    r = where(b, ew(b, "lt", x, 0.0), negative, r)
    return where(b, ew(b, "eq", y, 0.0), 1.0, r)


def shaped(v: TVal, like: TVal) -> TVal:
    """v (a constant or 0-d value) broadcast to the shape and layout of `like`."""
    if like.flat is not None:
        raise PlanError("a *_like / fill of a reshaped intermediate value is not supported")
    if any(s != 1 for s in v.shape):
        raise PlanError(f"fill value of shape {v.shape} is not a scalar")
    return TVal(v.node, list(like.shape), [list(a) for a in like.axes])


def mean_of(b: Builder, stat: TVal) -> TVal:
    return div(b, stat, TVal(b.count_for(stat), [], []))


# ---------------------------------------------------------------- handlers
def _binary(op: str, swap: bool = False) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        a = _args(b, env, n)
        x, y = (a[1], a[0]) if swap else (a[0], a[1])
        alpha = _kw(b, env, n, "alpha", 2, 1)
        if alpha != 1:
            y = mul(b, y, float(alpha))
        return ew(b, op, x, y)

    return h


def _binary_fn(fn: Callable[[Builder, Any, Any], TVal]) -> Handler:
    return lambda b, env, n: fn(b, *_args(b, env, n)[:2])


def _unary(fn: Callable[[Builder, Any], TVal]) -> Handler:
    return lambda b, env, n: fn(b, _args(b, env, n)[0])


def _identity(b: Builder, env: Env, n: OpNode) -> Any:
    lazy = _raw(env, n.args[0])
    if is_view(lazy):
        return lazy  # a copy of a (sliced) input stays a view until compute reads it
    return _args(b, env, n)[0]


def _clamp(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _args(b, env, n)[0]
    lo = _kw(b, env, n, "min", 1, None)
    hi = _kw(b, env, n, "max", 2, None)
    r = lift(b, x)
    if lo is not None:
        r = ew(b, "max", r, lo)
    if hi is not None:
        r = ew(b, "min", r, hi)
    return r


def _elu(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _args(b, env, n)[0]
    alpha = float(_kw(b, env, n, "alpha", 1, 1.0))
    scale = float(_kw(b, env, n, "scale", 2, 1.0))
    iscale = float(_kw(b, env, n, "input_scale", 3, 1.0))
    neg = mul(b, sub(b, u(b, "exp", mul(b, ew(b, "min", x, 0.0), iscale)), 1.0), alpha)
    r = add(b, u(b, "relu", x), neg)
    return mul(b, r, scale) if scale != 1.0 else r


def _leaky(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _args(b, env, n)[0]
    slope = float(_kw(b, env, n, "negative_slope", 1, 0.01))
    return add(b, u(b, "relu", x), mul(b, ew(b, "min", x, 0.0), slope))


def _hardtanh(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _args(b, env, n)[0]
    lo = float(_kw(b, env, n, "min_val", 1, -1.0))
    hi = float(_kw(b, env, n, "max_val", 2, 1.0))
    return ew(b, "min", ew(b, "max", x, lo), hi)


def _gelu(b: Builder, env: Env, n: OpNode) -> TVal:
    return gelu(b, _args(b, env, n)[0], str(_kw(b, env, n, "approximate", 1, "none")))


def _pow(b: Builder, env: Env, n: OpNode) -> TVal:
    x, p = _args(b, env, n)[:2]
    if isinstance(p, TVal):
        raise PlanError("pow with a tensor exponent is not supported")
    return powf(b, x, float(p))


def _where(b: Builder, env: Env, n: OpNode) -> TVal:
    c, x, y = _args(b, env, n)[:3]
    return where(b, c, x, y)


def _dims(v: Any) -> list[int] | None:
    if v is None:
        return None
    return [int(v)] if isinstance(v, int) else [int(d) for d in v]


def _reduction(op: str, average: bool = False) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        x = _tv(_args(b, env, n)[0])
        dims = _dims(_kw(b, env, n, "dim", 1, None))
        keep = bool(_kw(b, env, n, "keepdim", 2, False))
        if n.target in REDUCE_ALL:
            dims, keep = None, False
        r = b.reduce(op, x, dims, keep)  # type: ignore[arg-type]
        return mean_of(b, r) if average else r

    return h


def _minmax_dim(op: str) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> tuple:
        x = _tv(_args(b, env, n)[0])
        dim = int(_kw(b, env, n, "dim", 1, 0))
        keep = bool(_kw(b, env, n, "keepdim", 2, False))
        return (b.reduce(op, x, [dim], keep), b.reduce(f"arg{op}", x, [dim], keep))  # type: ignore[arg-type]

    return h


def _arg_extreme(op: str) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        x = _tv(_args(b, env, n)[0])
        dim = _kw(b, env, n, "dim", 1, None)
        keep = bool(_kw(b, env, n, "keepdim", 2, False))
        return b.reduce(op, x, None if dim is None else [int(dim)], keep)  # type: ignore[arg-type]

    return h


def _var(b: Builder, env: Env, n: OpNode) -> TVal:
    return _var_mean(b, env, n)[0]


def _var_mean(b: Builder, env: Env, n: OpNode) -> tuple[TVal, TVal]:
    x = _tv(_args(b, env, n)[0])
    dims = _dims(_kw(b, env, n, "dim", 1, None))
    corr = _kw(b, env, n, "correction", 2, None)
    corr = 1.0 if corr is None else float(corr)
    keep = bool(_kw(b, env, n, "keepdim", 3, False))
    mean = mean_of(b, b.reduce("sum", x, dims, True))
    d = sub(b, x, mean)
    ss = b.reduce("sum", mul(b, d, d), dims, keep)
    var = div(b, ss, sub(b, TVal(b.count(), [], []), corr))
    if keep:
        return var, mean
    drop = set(range(len(x.shape))) if not dims else {d % len(x.shape) for d in dims}
    kept = [d for d in range(len(x.shape)) if d not in drop]
    return var, TVal(mean.node, [mean.shape[d] for d in kept], [mean.axes[d] for d in kept])


def _any(b: Builder, env: Env, n: OpNode) -> TVal:
    """any = max of the truth masks > 0, a bool result (all decomposes to not any not)."""
    x = _tv(_args(b, env, n)[0])
    dims = _dims(_kw(b, env, n, "dim", 1, None))
    keep = bool(_kw(b, env, n, "keepdim", 2, False))
    if n.target.endswith(".default"):
        dims, keep = None, False
    return ew(b, "gt", b.reduce("max", truth(b, x), dims, keep), 0.0)


def _vector_norm(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _tv(_args(b, env, n)[0])
    p = float(_kw(b, env, n, "ord", 1, 2))
    dims = _dims(_kw(b, env, n, "dim", 2, None))
    keep = bool(_kw(b, env, n, "keepdim", 3, False))
    ax = u(b, "abs", x)
    if p == float("inf"):
        return b.reduce("max", ax, dims, keep)
    if p == float("-inf"):
        return b.reduce("min", ax, dims, keep)
    if p == 0:  # the count of nonzero elements
        return b.reduce("sum", truth(b, x), dims, keep)
    if p == 1:
        return b.reduce("sum", ax, dims, keep)
    if p == 2:
        return u(b, "sqrt", b.reduce("sum", mul(b, x, x), dims, keep))
    return powf(b, b.reduce("sum", powf(b, ax, p), dims, keep), 1.0 / p)


def _softmax(log: bool) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        x = _tv(_args(b, env, n)[0])
        dim = int(_kw(b, env, n, "dim", 1, -1))
        m = b.reduce("max", x, [dim], True)
        shifted = sub(b, x, m)
        s = b.reduce("sum", u(b, "exp", shifted), [dim], True)
        if log:
            return sub(b, shifted, u(b, "log", s))
        return mul(b, u(b, "exp", shifted), u(b, "recip", s))

    return h


def _affine(
    b: Builder,
    y: TVal,
    w: Any,
    bias: Any,
    axes: list[list[int]] | None = None,
    shape: list[int] | None = None,
) -> TVal:
    from kernelgen_lm.plan.build import materialize

    for p, op in ((w, "mul"), (bias, "add")):
        if p is None:
            continue
        if axes is not None:
            p = _relayout(b, p, axes, shape or [])
        y = ew(b, op, y, materialize(b, p))
    return y


def _relayout(b: Builder, p: Any, axes: list[list[int]], shape: list[int]) -> TVal:
    """A parameter leaf given an explicit layout over the domain (per-channel vectors)."""
    from kernelgen_lm.plan.build import LazyInput

    if not isinstance(p, LazyInput):
        raise PlanError("normalization parameters must be module parameters or inputs")
    return b.input(p.index, axes, shape)


def _raw(env: Env, a: Any) -> Any:
    """An argument without turning graph inputs into leaves (their layout is set by the op)."""
    if isinstance(a, NodeRef):
        return env.get(a.ref)
    return a


def _layer_norm(b: Builder, env: Env, n: OpNode) -> tuple:
    a = _args(b, env, n)
    x = _tv(a[0])
    k = len(a[1])
    w, bias, eps = a[2], a[3], float(a[4])
    dims = list(range(len(x.shape) - k, len(x.shape)))
    mean = mean_of(b, b.reduce("sum", x, dims, True))
    d = sub(b, x, mean)
    var = mean_of(b, b.reduce("sum", mul(b, d, d), dims, True))
    y = mul(b, d, u(b, "rsqrt", add(b, var, eps)))
    return (_affine(b, y, w, bias), None, None)


def _group_norm(b: Builder, env: Env, n: OpNode) -> tuple:
    x = _tv(_arg(b, env, n.args[0]))
    a = n.args
    w, bias, groups, eps = _raw(env, a[1]), _raw(env, a[2]), int(a[6]), float(a[7])
    if groups == 1:
        dims = list(range(1, len(x.shape)))
        mean = mean_of(b, b.reduce("sum", x, dims, True))
        d = sub(b, x, mean)
        var = mean_of(b, b.reduce("sum", mul(b, d, d), dims, True))
    else:
        # The channel dim spans axes (group, channel-in-group); reduce all but batch and group.
        inner = [a for dim in x.axes[1:] for a in dim][1:]
        target = frozenset(inner)
        if b.reduced is None:
            b.reduced = target
        elif b.reduced != target:
            raise PlanError("group norm mixed with reductions over other dims")
        mean, var = _stats_over(b, x)
    y = mul(b, sub(b, x, mean), u(b, "rsqrt", add(b, var, eps)))
    ch, c = _channel(x)
    return (_affine(b, y, w, bias, ch, c), None, None)


def _stats_over(b: Builder, x: TVal) -> tuple[TVal, TVal]:
    from kernelgen_lm.plan.ir import Stage

    def stage(op: str, v: TVal) -> TVal:
        sid = len(b.stages)
        b.stages.append(Stage(name=f"s{sid}_{op}", op=op, value=v.node))  # type: ignore[arg-type]
        return TVal(b.add("stat", index=sid), [], [])

    mean = mean_of(b, stage("sum", x))
    d = sub(b, x, mean)
    var = mean_of(b, stage("sum", mul(b, d, d)))
    return mean, var


def _channel(x: TVal) -> tuple[list[list[int]], list[int]]:
    """Layout of a per-channel (dim 1) vector broadcast against x."""
    axes = [x.axes[1] if d == 1 else [] for d in range(len(x.shape))]
    shape = [x.shape[1] if d == 1 else 1 for d in range(len(x.shape))]
    return axes, shape


def _batch_norm_eval(b: Builder, env: Env, n: OpNode) -> tuple:
    x = _tv(_arg(b, env, n.args[0]))
    w, bias, rm, rv = (_raw(env, a) for a in n.args[1:5])
    eps = float(n.args[6])  # type: ignore[arg-type]
    ch, c = _channel(x)
    mean = _relayout(b, rm, ch, c)
    var = _relayout(b, rv, ch, c)
    y = mul(b, sub(b, x, mean), u(b, "rsqrt", add(b, var, eps)))
    return (_affine(b, y, w, bias, ch, c), None, None)


def _batch_norm_stats(b: Builder, env: Env, n: OpNode) -> tuple:
    """Batch statistics (training-mode batch norm; instance norm after its reshape)."""
    x = _tv(_arg(b, env, n.args[0]))
    w, bias = _raw(env, n.args[1]), _raw(env, n.args[2])
    eps = float(n.args[5])  # type: ignore[arg-type]
    dims = [d for d in range(len(x.shape)) if d != 1]
    mean = mean_of(b, b.reduce("sum", x, dims, True))
    d = sub(b, x, mean)
    var = mean_of(b, b.reduce("sum", mul(b, d, d), dims, True))
    y = mul(b, d, u(b, "rsqrt", add(b, var, eps)))
    ch, c = _channel(x)
    return (_affine(b, y, w, bias, ch, c), None, None)


def _ignore(b: Builder, env: Env, n: OpNode) -> None:
    return None


def _scalar_tensor(b: Builder, env: Env, n: OpNode) -> TVal:
    return lift(b, float(n.args[0]))  # type: ignore[arg-type]


def _full(b: Builder, env: Env, n: OpNode) -> ConstBlock:
    """full of a static shape (zeros/ones decompose to it; empty_like's fresh tensor is read as
    zeros): a constant laid over the domain axes the shape matches."""
    shape = list(n.shape or [])
    value = float(n.args[1]) if n.target == "aten.full.default" else 0.0  # type: ignore[arg-type]
    return ConstBlock(value, shape)


def _full_like(b: Builder, env: Env, n: OpNode) -> TVal | ConstBlock:
    """full_like (ones_like, zeros_like, fill_ with a number decompose to it). Of a slice of an
    input only its shape counts (the slice is never read: cat's constant block)."""
    value = float(n.args[1])  # type: ignore[arg-type]
    w = window_of(_raw(env, n.args[0]))
    if w is not None:
        return ConstBlock(value, list(w.shape))
    return shaped(lift(b, value), _tv(_arg(b, env, n.args[0])))


def _arange(b: Builder, env: Env, n: OpNode) -> TVal:
    """arange inside tensor math: start + step * (position along the domain axis its length
    lines up with), an index-generated operand (no tensor read)."""
    a = [float(v) for v in n.args]  # type: ignore[arg-type]
    start, step = (0.0, 1.0) if n.target == "aten.arange.default" else (a[0], 1.0)
    if n.target == "aten.arange.start_step" and len(a) > 2:
        step = a[2]
    shape = list(n.shape or [])
    axes = b.align(shape)
    if len(axes) != 1 or len(axes[0]) > 1:
        raise PlanError(f"arange of length {shape} does not line up with one domain axis")
    if not axes[0]:  # length 1: the start alone
        return TVal(b.const(start), shape, axes)
    iota = TVal(b.add("iota", index=axes[0][0]), shape, axes)
    return add(b, mul(b, iota, step), start) if (step, start) != (1.0, 0.0) else iota


def _copy(b: Builder, env: Env, n: OpNode) -> TVal:
    """copy(dst, src): src broadcast to dst's shape (fill_ with a 0-d tensor decomposes to it)."""
    dst, src = (lift(b, v) for v in _args(b, env, n)[:2])
    shape, axes = b.broadcast(dst, src)
    return TVal(src.node, shape, axes)


def _logical(op: str) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        if n.target.startswith("aten.bitwise") and n.dtype != "bool":
            raise PlanError(
                f"{n.target} on {n.dtype} tensors is not supported (only on bool masks)"
            )
        a = _args(b, env, n)
        return logical(b, op, *a[: 1 if op == "not" else 2])

    return h


def _rounding(op: str) -> Handler:
    return _unary(lambda b, x: rounded(b, op, x))


def _round_decimals(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _args(b, env, n)[0]
    d = int(_kw(b, env, n, "decimals", 1, 0))
    if d >= 0:
        return div(b, rounded(b, "rint", mul(b, x, 10.0**d)), 10.0**d)
    return mul(b, rounded(b, "rint", div(b, x, 10.0**-d)), 10.0**-d)


def _modulo(rounding: str) -> Handler:
    return lambda b, env, n: modulo(b, *_args(b, env, n)[:2], rounding)


def _to_copy(b: Builder, env: Env, n: OpNode) -> Any:
    """Casts: float -> integer truncates toward zero, -> bool tests != 0; float -> float is the
    float32 compute value (half/bfloat16 round on store)."""
    dtype = n.kwargs.get("dtype")
    lazy = _raw(env, n.args[0])
    if dtype in (None, "float32", "float16", "bfloat16") and is_view(lazy):
        return lazy  # a float cast of a (sliced) input: read as float32 in any case
    x = _args(b, env, n)[0]
    if dtype == "bool":
        return truth(b, x)
    if dtype in INT_DTYPES and isinstance(x, TVal) and b.nodes[x.node].op not in COMPARE_OPS:
        return rounded(b, "trunc", x)
    return x


def _gather(b: Builder, env: Env, n: OpNode) -> TVal:
    """gather along a dim = sum over that dim of x * (index == position): a reduction."""
    x = _tv(_arg(b, env, n.args[0]))
    dim = int(n.args[1]) % len(x.shape)  # type: ignore[arg-type]
    idx = _tv(_arg(b, env, n.args[2]))
    if len(x.axes[dim]) != 1 or idx.shape[dim] != 1:
        raise PlanError("gather is supported along one dim with one index per row")
    shape = [x.shape[d] if d == dim else 1 for d in range(len(x.shape))]
    axes = [x.axes[dim] if d == dim else [] for d in range(len(x.shape))]
    iota = TVal(b.add("iota", index=x.axes[dim][0]), shape, axes)
    b.index_inputs |= _input_leaves(b, idx.node)
    return b.reduce("sum", mul(b, x, ew(b, "eq", iota, idx)), [dim], True)


def _input_leaves(b: Builder, node: int) -> set[int]:
    """The graph inputs a node's value is computed from."""
    seen: set[int] = set()
    stack = [node]
    found: set[int] = set()
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        n = b.nodes[i]
        if n.op == "input":
            found.add(n.index or 0)
        stack.extend(n.args)
    return found


def _cumulative(op: str) -> Handler:
    def h(b: Builder, env: Env, n: OpNode) -> TVal:
        x = _tv(_arg(b, env, n.args[0]))
        dim = int(n.args[1]) % len(x.shape)  # type: ignore[arg-type]
        reverse = x.flipped == dim
        if x.flipped is not None and not reverse:
            raise PlanError("flip along another dim than the cumulative op's")
        base = TVal(x.node, x.shape, x.axes)
        r = b.scan(op, base, dim, reverse)  # type: ignore[arg-type]
        r.flipped = dim if reverse else None
        return r

    return h


def _flip(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _tv(_arg(b, env, n.args[0]))
    dims = [int(d) % len(x.shape) for d in n.args[1]]  # type: ignore[union-attr]
    if len(dims) != 1:
        raise PlanError("flip of several dims is not supported")
    d = dims[0]
    if x.flipped == d:
        return TVal(x.node, x.shape, x.axes)
    if x.flipped is not None:
        raise PlanError("flip of several dims is not supported")
    return TVal(x.node, x.shape, x.axes, flipped=d)


def _getitem(b: Builder, env: Env, n: OpNode) -> Any:
    t, i = n.args[0], n.args[1]
    val = env[t.ref] if isinstance(t, NodeRef) else None
    if not isinstance(val, tuple):
        raise PlanError("indexing a non-tuple value")
    r = val[int(i)]  # type: ignore[arg-type]
    if r is None:
        raise PlanError("this output of the op (indices or saved statistics) is not supported")
    return r


def _view(b: Builder, env: Env, n: OpNode) -> TVal:
    shape = n.shape or []
    raw = _raw(env, n.args[0])
    if _fresh_input(b, raw) and math.prod(shape) == math.prod(raw.shape):
        # An input first used through a view (K-dim class targets (N, d) viewed as (N, 1, d)):
        # the view's shape says where it sits in the domain, its own shape may not.
        try:
            return b.input(raw.index, b.align(shape), shape)
        except PlanError:
            pass
    x = _tv(_args(b, env, n)[0])
    merged = None if x.flat is not None else _merge_dims(x, shape)
    if merged is not None:
        return TVal(x.node, shape, merged)
    return TVal(x.node, shape, [], flat=x.all_axes())


def _merge_dims(x: TVal, shape: list[int]) -> list[list[int]] | None:
    """Axes per dim of `x.view(shape)` when the view keeps or merges whole dims of x (each new
    dim spans the axes of consecutive old dims); None when it splits a dim."""
    src = [(s, ax) for s, ax in zip(x.shape, x.axes, strict=True) if s != 1]
    out: list[list[int]] = []
    i = 0
    for s in shape:
        if s == 1:
            out.append([])
            continue
        prod, axes = 1, []
        while prod < s and i < len(src):
            prod *= src[i][0]
            axes += src[i][1]
            i += 1
        if prod != s:
            return None
        out.append(axes)
    return out if i == len(src) else None


def _fresh_input(b: Builder, v: Any) -> bool:
    """A graph input not laid out yet (no use so far fixed its domain axes)."""
    from kernelgen_lm.plan.build import LazyInput

    return isinstance(v, LazyInput) and v.axes is None and v.index not in b.masks


def _unsqueeze(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _tv(_args(b, env, n)[0])
    d = int(n.args[1])  # type: ignore[arg-type]
    d = d % (len(x.shape) + 1)
    return TVal(x.node, [*x.shape[:d], 1, *x.shape[d:]], [*x.axes[:d], [], *x.axes[d:]])


def _squeeze(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _tv(_args(b, env, n)[0])
    dims = _dims(n.args[1]) if len(n.args) > 1 else None
    rank = len(x.shape)
    drop = {d % rank for d in dims} if dims is not None else set(range(rank))
    keep = [i for i in range(rank) if not (i in drop and x.shape[i] == 1)]
    return TVal(x.node, [x.shape[i] for i in keep], [x.axes[i] for i in keep])


def _expand(b: Builder, env: Env, n: OpNode) -> TVal:
    x = _tv(_args(b, env, n)[0])
    shape = n.shape or []
    target = b.align(shape)
    pad = len(shape) - len(x.shape)
    axes = [
        target[i] if i < pad or x.shape[i - pad] == 1 else x.axes[i - pad]
        for i in range(len(shape))
    ]
    return TVal(x.node, shape, axes)


SWAPPED = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le", "eq": "eq", "ne": "ne"}


def compare(b: Builder, op: str, x: Any, y: Any) -> TVal:
    """A comparison; against an infinite constant it is rewritten with FLT_MAX, since kernel
    constants cannot spell inf (x == inf is x > FLT_MAX; NaN stays unequal to everything)."""
    if isinstance(x, (int, float)) and not isinstance(y, (int, float)):
        x, y, op = y, x, SWAPPED[op]
    if not (isinstance(y, float) and math.isinf(y)):
        return ew(b, op, x, y)
    if y < 0:  # x op -inf is -x op' inf
        return compare(b, SWAPPED[op], u(b, "neg", x), -y)
    beyond = ew(b, "gt", x, FLT_MAX)  # x == inf
    if op in ("eq", "ge"):
        return beyond
    if op == "ne":
        return ew(b, "eq", beyond, 0.0)
    if op == "lt":
        return ew(b, "le", x, FLT_MAX)
    if op == "le":
        return ew(b, "eq", x, x)
    return ew(b, "lt", x, x)  # x > inf: never (a mask of zeros)


def _cmp(op: str) -> Handler:
    return lambda b, env, n: compare(b, op, *_args(b, env, n)[:2])


# Ops whose Tensor and Scalar overloads lower alike.
_OVERLOADS = ("Tensor", "Scalar")

OPS: dict[str, Handler] = {
    **{f"aten.{op}.{k}": _binary(op) for op in ("add", "sub", "mul", "div") for k in _OVERLOADS},
    **{f"aten.rsub.{k}": _binary("sub", swap=True) for k in _OVERLOADS},
    "aten.maximum.default": _binary("max"),
    "aten.minimum.default": _binary("min"),
    "aten.abs.default": _unary(lambda b, x: u(b, "abs", x)),
    "aten.neg.default": _unary(lambda b, x: u(b, "neg", x)),
    "aten.exp.default": _unary(lambda b, x: u(b, "exp", x)),
    "aten.log.default": _unary(lambda b, x: u(b, "log", x)),
    "aten.log2.default": _unary(lambda b, x: mul(b, u(b, "log", x), 1.4426950408889634)),
    "aten.log10.default": _unary(lambda b, x: mul(b, u(b, "log", x), 0.4342944819032518)),
    "aten.sqrt.default": _unary(lambda b, x: u(b, "sqrt", x)),
    "aten.rsqrt.default": _unary(lambda b, x: u(b, "rsqrt", x)),
    "aten.reciprocal.default": _unary(lambda b, x: u(b, "recip", x)),
    "aten.relu.default": _unary(lambda b, x: u(b, "relu", x)),
    "aten.sigmoid.default": _unary(sigmoid),
    "aten.tanh.default": _unary(tanh),
    "aten.erf.default": _unary(erf),
    "aten.log1p.default": _unary(lambda b, x: u(b, "log", add(b, x, 1.0))),
    "aten.expm1.default": _unary(lambda b, x: sub(b, u(b, "exp", x), 1.0)),
    "aten.sign.default": _unary(sign),
    "aten.sinh.default": _unary(sinh),
    "aten.cosh.default": _unary(cosh),
    "aten.asinh.default": _unary(asinh),
    "aten.acosh.default": _unary(
        lambda b, x: u(b, "log", add(b, x, u(b, "sqrt", sub(b, mul(b, x, x), 1.0))))
    ),
    "aten.atanh.default": _unary(
        lambda b, x: mul(b, u(b, "log", div(b, add(b, x, 1.0), sub(b, 1.0, x))), 0.5)
    ),
    "aten.exp2.default": _unary(lambda b, x: u(b, "exp", mul(b, x, LN2))),
    "aten.erfc.default": _unary(lambda b, x: sub(b, 1.0, erf(b, x))),
    "aten.isnan.default": _unary(isnan),
    "aten.isinf.default": _unary(isinf),
    "aten.hypot.default": _binary_fn(
        lambda b, x, y: u(b, "sqrt", add(b, mul(b, x, x), mul(b, y, y)))
    ),
    # copysign: the sign of y as a comparison (a -0.0 or NaN sign bit of y is not seen).
    "aten.copysign.Tensor": _binary_fn(
        lambda b, x, y: mul(b, u(b, "abs", x), where(b, ew(b, "lt", y, 0.0), -1.0, 1.0))
    ),
    "aten.pow.Tensor_Tensor": _binary_fn(pow_tensor),
    "aten.pow.Scalar": _binary_fn(pow_tensor),
    "aten.square.default": _unary(lambda b, x: mul(b, x, x)),
    "aten.gelu.default": _gelu,
    "aten.elu.default": _elu,
    "aten.leaky_relu.default": _leaky,
    "aten.hardtanh.default": _hardtanh,
    "aten.clamp.default": _clamp,
    "aten.clamp.Tensor": _clamp,
    "aten.pow.Tensor_Scalar": _pow,
    "aten.where.self": _where,
    **{
        f"aten.{op}.{k}": _cmp(op)
        for op in ("gt", "ge", "lt", "le", "eq", "ne")
        for k in _OVERLOADS
    },
    "aten._to_copy.default": _to_copy,
    "aten.clone.default": _identity,
    "aten.alias.default": _identity,
    "aten.lift_fresh_copy.default": _identity,
    "aten.sum.dim_IntList": _reduction("sum"),
    "aten.sum.default": _reduction("sum"),
    "aten.mean.dim": _reduction("sum", average=True),
    "aten.mean.default": _reduction("sum", average=True),
    "aten.amax.default": _reduction("max"),
    "aten.amin.default": _reduction("min"),
    "aten.max.default": _reduction("max"),
    "aten.min.default": _reduction("min"),
    "aten.prod.default": _reduction("prod"),
    "aten.prod.dim_int": _reduction("prod"),
    "aten.max.dim": _minmax_dim("max"),
    "aten.min.dim": _minmax_dim("min"),
    "aten.var.correction": _var,
    "aten.var_mean.correction": _var_mean,
    **{f"aten.any.{k}": _any for k in ("default", "dim", "dims")},
    "aten.linalg_vector_norm.default": _vector_norm,
    "aten._softmax.default": _softmax(log=False),
    "aten._log_softmax.default": _softmax(log=True),
    "aten.native_layer_norm.default": _layer_norm,
    "aten.native_group_norm.default": _group_norm,
    "aten._native_batch_norm_legit_no_training.default": _batch_norm_eval,
    "aten._native_batch_norm_legit.no_stats": _batch_norm_stats,
    "aten._native_batch_norm_legit_functional.default": _batch_norm_stats,
    "aten._assert_tensor_metadata.default": _ignore,
    "aten.scalar_tensor.default": _scalar_tensor,
    "aten.full.default": _full,
    "aten.empty_permuted.default": _full,
    "aten.full_like.default": _full_like,
    "aten.copy.default": _copy,
    **{f"aten.logical_{op}.default": _logical(op) for op in ("and", "or", "xor", "not")},
    **{f"aten.bitwise_{op}.{k}": _logical(op) for op in ("and", "or", "xor") for k in _OVERLOADS},
    "aten.bitwise_not.default": _logical("not"),
    **{f"aten.{op}.default": _rounding(op) for op in ("floor", "ceil", "trunc")},
    "aten.round.default": _rounding("rint"),
    "aten.round.decimals": _round_decimals,
    "aten.frac.default": _unary(lambda b, x: sub(b, x, rounded(b, "trunc", x))),
    **{f"aten.fmod.{k}": _modulo("trunc") for k in _OVERLOADS},
    **{f"aten.remainder.{k}": _modulo("floor") for k in _OVERLOADS},
    "aten.gather.default": _gather,
    "aten.argmax.default": _arg_extreme("argmax"),
    "aten.argmin.default": _arg_extreme("argmin"),
    "aten.cumsum.default": _cumulative("sum"),
    "aten.cumprod.default": _cumulative("prod"),
    "aten.flip.default": _flip,
    "<built-in function getitem>": _getitem,
    "aten.view.default": _view,
    "aten._unsafe_view.default": _view,
    "aten.reshape.default": _view,
    "aten.unsqueeze.default": _unsqueeze,
    "aten.squeeze.dim": _squeeze,
    "aten.squeeze.dims": _squeeze,
    "aten.squeeze.default": _squeeze,
    "aten.expand.default": _expand,
    "aten.slice.Tensor": slice_handler,
    "aten.split.Tensor": split_handler,
    "aten.split_with_sizes.default": split_handler,
    "aten.cat.default": cat_handler,
    **{f"aten.arange.{k}": _arange for k in ("default", "start", "start_step")},
}
