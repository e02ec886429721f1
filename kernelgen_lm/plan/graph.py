"""Plan-building state: the domain axes, tensor values mapped onto them, and the node table.

A tensor value (`TVal`) maps each of its torch dims to the domain axes it spans (`[]` for a
size-1, broadcast dim). Broadcasting follows torch's right alignment; two operands that put
different axes at the same position are an unsupported layout, reported, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from kernelgen_lm.plan.ir import Axis, DimExpr, Node, Read, ReduceOp, Stage


class PlanError(ValueError):
    """The graph is outside what the rule-based planner covers; the message says what and where."""


@dataclass
class TVal:
    node: int
    shape: list[int]
    axes: list[list[int]]  # per torch dim
    flat: list[int] | None = None  # set for reshaped values: only usable as outputs
    flipped: int | None = None  # torch dim flipped (only around a cumulative op)

    def all_axes(self) -> list[int]:
        if self.flat is not None:
            return self.flat
        return [a for dim in self.axes for a in dim]


@dataclass
class Builder:
    axes: list[Axis]
    input_names: list[str]
    nodes: list[Node] = field(default_factory=list)
    stages: list[Stage] = field(default_factory=list)
    masks: dict[int, list[bool]] = field(default_factory=dict)
    reduced: frozenset[int] | None = None
    # Inputs read as class indices (gather): integers, exact in float32 below 2^24, so they may
    # vary along the vector axis (K-dim cross entropy targets).
    index_inputs: set[int] = field(default_factory=set)
    # Per input read through slices: its extent along those domain axes (see PlanInput.span).
    spans: dict[int, dict[int, DimExpr]] = field(default_factory=dict)
    # (input, dim) -> how validation variants may grow that dim: 0 pinned (a constant slice
    # bound), else in steps of this many (a bound that is a fraction p/q of the dim: q).
    view_dims: dict[tuple[int, int], int] = field(default_factory=dict)
    _memo: dict[tuple, int] = field(default_factory=dict)

    # ---------------------------------------------------------------- nodes (hash-consed)
    def add(
        self,
        op: str,
        args: list[int] | None = None,
        value: float | None = None,
        index: int | None = None,
        read: Read | None = None,
    ) -> int:
        key = (op, tuple(args or ()), value, index, read.model_dump_json() if read else None)
        if key in self._memo:
            return self._memo[key]
        nid = len(self.nodes)
        self.nodes.append(
            Node(id=nid, op=op, args=list(args or []), value=value, index=index, read=read)
        )
        self._memo[key] = nid
        return nid

    def const(self, v: float) -> int:
        return self.add("const", value=float(v))

    def un(self, op: str, a: int) -> int:
        return self.add(op, [a])

    def bin(self, op: str, a: int, b: int) -> int:
        return self.add(op, [a, b])

    def input(
        self,
        index: int,
        axes: list[list[int]],
        shape: list[int],
        read: Read | None = None,
        span: dict[int, DimExpr] | None = None,
    ) -> TVal:
        """An input leaf laid over `axes`; `read`/`span`: seen through a slice (Window)."""
        mask = [False] * len(self.axes)
        for dim in axes:
            for a in dim:
                mask[a] = True
        numel = math.prod(shape)
        spanned = math.prod(self.axes[k].example for k, m in enumerate(mask) if m)
        if numel != spanned:
            raise PlanError(f"input {self.input_names[index]} {shape} does not tile the domain")
        old = self.masks.get(index)
        if old is not None and old != mask:
            raise PlanError(f"input {self.input_names[index]} is used with two different layouts")
        self.masks[index] = mask
        if span:
            known = self.spans.setdefault(index, {})
            for k, e in span.items():
                if known.setdefault(k, e) != e:
                    raise PlanError(f"input {self.input_names[index]} is sliced inconsistently")
        return TVal(self.add("input", index=index, read=read), shape, axes)

    # ---------------------------------------------------------------- shapes
    def align(self, shape: list[int]) -> list[list[int]]:
        """Maps a shape onto the domain: right-aligned (torch broadcasting), else left-aligned
        (per-row inputs such as class targets, which the graph unsqueezes before use), else
        embedded (K-dim class targets (N, d1, d2) in logits (N, C, d1, d2))."""
        rank = len(self.axes)
        if len(shape) > rank:
            embedded = self.embed(shape)  # size-1 dims beyond the domain's rank
            if embedded is None:
                raise PlanError(f"shape {shape} has more dims than the domain {self.example()}")
            return embedded
        for start in (rank - len(shape), 0):
            out: list[list[int]] = []
            for j, s in enumerate(shape):
                k = start + j
                if s == 1:
                    out.append([])
                elif s == self.axes[k].example:
                    out.append([k])
                else:
                    break
            else:
                return out
        embedded = self.embed(shape)
        if embedded is None:
            raise PlanError(f"shape {shape} does not broadcast against {self.example()}")
        return embedded

    def embed(self, shape: list[int]) -> list[list[int]] | None:
        """Each dim (in order) onto the first run of consecutive domain axes whose sizes
        multiply to it, skipping axes between runs (the shape is broadcast along those)."""
        sizes = self.example()
        out: list[list[int]] = []
        k = 0
        for s in shape:
            if s == 1:
                out.append([])
                continue
            run = None
            for start in range(k, len(sizes)):
                prod = 1
                for j in range(start, len(sizes)):
                    prod *= sizes[j]
                    if prod >= s:
                        break
                if prod == s:
                    run = list(range(start, j + 1))
                    break
            if run is None:
                return None
            out.append(run)
            k = run[-1] + 1
        return out

    def example(self) -> list[int]:
        return [a.example for a in self.axes]

    def broadcast(self, a: TVal, b: TVal) -> tuple[list[int], list[list[int]]]:
        for v in (a, b):
            if v.flipped is not None:
                raise PlanError("flip is supported only around a cumulative op")
            if v.flat is not None:
                raise PlanError(
                    "a reshaped intermediate value is used in compute; only "
                    "reshapes of inputs and of final outputs are supported"
                )
        rank = max(len(a.shape), len(b.shape))
        sa = [1] * (rank - len(a.shape)) + a.shape
        sb = [1] * (rank - len(b.shape)) + b.shape
        xa = [[]] * (rank - len(a.axes)) + a.axes
        xb = [[]] * (rank - len(b.axes)) + b.axes
        shape, axes = [], []
        for i in range(rank):
            if sa[i] != 1 and sb[i] != 1 and (sa[i] != sb[i] or xa[i] != xb[i]):
                raise PlanError(f"unsupported broadcast of shapes {a.shape} and {b.shape}")
            shape.append(max(sa[i], sb[i]))
            axes.append(xa[i] if sa[i] != 1 else xb[i])
        return shape, axes

    # ---------------------------------------------------------------- reductions
    def reduce_axes(self, v: TVal, dims: list[int] | None) -> tuple[list[int], bool]:
        """Normalized dims, and whether this is a global (second-level) reduction."""
        rank = len(v.shape)
        dims = list(range(rank)) if dims is None or dims == [] else [d % rank for d in dims]
        found = sorted({a for d in dims for a in v.axes[d] if self.axes[a].example != 1})
        target = frozenset(found)
        if not target and self.reduced is None:
            raise PlanError("reduction over broadcast (size-1) dims only")
        if any(s.scope == "scan" for s in self.stages):
            raise PlanError("a cumulative op is supported alone (with elementwise ops around it)")
        if self.reduced is None:
            self.reduced = target
            return dims, False
        if self.reduced == target:
            return dims, False
        spanned = frozenset(a for a in v.all_axes() if self.axes[a].example != 1)
        if not (spanned & self.reduced) and target == spanned:
            # A per-row value reduced over all rows: a second-level (global) stage.
            return dims, True
        raise PlanError(
            "reductions over different dims in one graph are covered only when the second "
            "reduces per-row results over all remaining dims"
        )

    def reduce(self, op: ReduceOp, v: TVal, dims: list[int] | None, keepdim: bool) -> TVal:
        dims, is_global = self.reduce_axes(v, dims)
        sid = len(self.stages)
        scope = "global" if is_global else "domain"
        self.stages.append(Stage(name=f"s{sid}_{op}", op=op, value=v.node, scope=scope))
        node = self.add("stat", index=sid)
        shape, axes = [], []
        for d, (s, ax) in enumerate(zip(v.shape, v.axes, strict=True)):
            if d in dims:
                if keepdim:
                    shape.append(1)
                    axes.append([])
            else:
                shape.append(s)
                axes.append(ax)
        return TVal(node, shape, axes)

    def scan(self, op: ReduceOp, v: TVal, dim: int, reverse: bool) -> TVal:
        """A cumulative op along one dim: a running stage, full-shaped result."""
        dim %= len(v.shape)
        axes = [a for a in v.axes[dim] if self.axes[a].example != 1]
        if len(axes) != 1:
            raise PlanError("cumulative ops need their dim to map to one axis")
        target = frozenset(axes)
        if self.stages or (self.reduced is not None and self.reduced != target):
            raise PlanError("a cumulative op is supported alone (with elementwise ops around it)")
        self.reduced = target
        sid = len(self.stages)
        self.stages.append(
            Stage(name=f"s{sid}_cum{op}", op=op, value=v.node, scope="scan", reverse=reverse)
        )
        return TVal(self.add("stat", index=sid), v.shape, v.axes)

    def count_for(self, stat: TVal) -> int:
        """The element count a mean over this stat divides by (rows for a global stage)."""
        n = self.nodes[stat.node]
        if n.op == "stat" and self.stages[n.index or 0].scope == "global":
            return self.add("gcount")
        return self.add("count")

    def count(self) -> int:
        return self.add("count")

    def to_dimexpr(self, k: int) -> DimExpr:
        return self.axes[k].size


def split_axis(axes: list[Axis], k: int, parts: int) -> list[Axis]:
    """Splits domain axis k into (parts, size/parts): group norm's channel -> (group, channel)."""
    a = axes[k]
    if a.example % parts:
        raise PlanError(f"axis of size {a.example} is not divisible into {parts} groups")
    first = Axis(size=DimExpr(mul=parts), example=parts)
    second = Axis(
        size=DimExpr(terms=a.size.terms, mul=a.size.mul, div=a.size.div * parts),
        example=a.example // parts,
    )
    return [*axes[:k], first, second, *axes[k + 1 :]]
