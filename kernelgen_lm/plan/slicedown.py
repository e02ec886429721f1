"""Slices of computed values, moved below the elementwise ops that computed them.

`y = x * 2; y[:, 1:] + y[:, :-1]` slices a computed value; element i of an elementwise result
depends on element i of its (broadcast) operands only, so `(x * 2)[:, 1:] == x[:, 1:] * 2`.
The rewrite runs on the captured graph before planning: each slice of an elementwise result
becomes the op applied to slices of its operands, down to the model inputs, where the slices
are the views `views.py` fuses (an offset read of the input). The elementwise work is repeated
per slice (vector work on the tile, not a second GM pass). A slice of anything else (a
reduction, a scan) is left in place and refused by the planner.
"""

from __future__ import annotations

from typing import Any

from kernelgen_lm.capture import CapturedGraph, NodeRef, OpNode
from kernelgen_lm.plan.views import SLICE, refs

# ATen ops whose output element depends on the same (broadcast) element of each tensor operand
# and on nothing else: every tensor argument is sliced like the result (ops.py's table).
ELEMENTWISE = frozenset(
    f"aten.{name}"
    for name in (
        *("add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "div.Tensor_mode"),
        *("add.Scalar", "sub.Scalar", "mul.Scalar", "div.Scalar", "rsub.Scalar"),
        *("maximum.default", "minimum.default", "abs.default", "neg.default", "exp.default"),
        *("log.default", "sqrt.default", "rsqrt.default", "reciprocal.default"),
        *("relu.default", "sigmoid.default", "tanh.default", "erf.default", "square.default"),
        *("gelu.default", "elu.default", "leaky_relu.default", "hardtanh.default"),
        *("clamp.default", "clamp.Tensor", "pow.Tensor_Scalar", "pow.Tensor_Tensor"),
        *("where.self", "_to_copy.default", "clone.default"),
    )
)


def _shape(g: CapturedGraph, name: str) -> list[int] | None:
    spec = next((t for t in g.inputs if t.name == name), None)
    if spec is not None:
        return list(spec.shape)
    n = g.node(name)
    return list(n.shape) if n is not None and n.shape is not None else None


def push_slices(g: CapturedGraph) -> CapturedGraph:
    """The graph with slices of elementwise results moved onto the operands (and dead nodes
    dropped); the same graph object when there is nothing to move."""
    by_name = {n.name: n for n in g.nodes}
    if not any(
        n.target == SLICE
        and isinstance(n.args[0], NodeRef)
        and by_name.get(n.args[0].ref, OpNode(name="", target="", args=[])).target in ELEMENTWISE
        for n in g.nodes
    ):
        return g
    out: list[OpNode] = []
    shapes: dict[str, list[int] | None] = {}

    def shape_of(name: str) -> list[int] | None:
        return shapes[name] if name in shapes else _shape(g, name)

    def slice_of(ref: NodeRef, dim: int, bounds: list[Any], shape: list[int], name: str) -> Any:
        """`ref` sliced along `dim` (of a result of rank len(shape)), as a new node's ref."""
        src = shape_of(ref.ref)
        if src is None:
            return ref
        d = dim - (len(shape) - len(src))
        if d < 0 or src[d] == 1:
            return ref  # broadcast along the sliced dim: the operand is the same everywhere
        sub = list(src)
        sub[d] = shape[dim]
        node = g.node(ref.ref)
        spec = next((t for t in g.inputs if t.name == ref.ref), None)
        dtype = node.dtype if node is not None else spec.dtype if spec is not None else None
        new = OpNode(name=name, target=SLICE, args=[ref, d, *bounds], shape=sub, dtype=dtype)
        return NodeRef(ref=emit(new))

    def emit(n: OpNode) -> str:
        src = by_name.get(n.args[0].ref) if isinstance(n.args[0], NodeRef) else None
        if n.target != SLICE or src is None or src.target not in ELEMENTWISE:
            shapes[n.name] = n.shape
            out.append(n)
            return n.name
        dim = int(n.args[1]) % len(src.shape or [1])  # type: ignore[arg-type]
        shape = list(n.shape or [])
        if not shape:
            shape = list(src.shape or [])
            shape[dim] = _sliced_len(shape[dim], n.args[2:])
        bounds = list(n.args[2:])
        args = [
            slice_of(a, dim, bounds, shape, f"{n.name}_s{k}") if isinstance(a, NodeRef) else a
            for k, a in enumerate(src.args)
        ]
        update = {"name": n.name, "args": args, "shape": shape, "line": n.line}
        moved = src.model_copy(update=update)
        shapes[n.name] = shape
        out.append(moved)
        return n.name

    for n in g.nodes:
        emit(n.model_copy())
    live = _live(out, g.outputs)
    return g.model_copy(update={"nodes": [n for n in out if n.name in live]})


def _sliced_len(size: int, bounds: list[Any]) -> int:
    start, end, step = [*bounds, None, None, None][:3]
    s, e, st = slice(start, end, step).indices(size)
    return len(range(s, e, st))


def _live(nodes: list[OpNode], outputs: list[str]) -> set[str]:
    """Names the outputs depend on."""
    by_name = {n.name: n for n in nodes}
    live: set[str] = set()
    stack = list(outputs)
    while stack:
        name = stack.pop()
        if name in live or name not in by_name:
            continue
        live.add(name)
        n = by_name[name]
        for a in [*n.args, *n.kwargs.values()]:
            stack += [m for m in by_name if refs(a, m)]
    return live
