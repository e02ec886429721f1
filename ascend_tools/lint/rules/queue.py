"""Queue protocol (docs/ASCENDC_SPEC.md 7.6): AllocTensor -> EnQue -> DeQue -> FreeTensor, depth,
and TBufs (7.7), which derive from TQueBind but whose one buffer is never enqueued."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import LintContext, repeats, shared_queue
from ascend_tools.parse.consts import parse_value_text
from ascend_tools.parse.expr import Expr
from ascend_tools.parse.facts import Call, Chunk
from ascend_tools.parse.model import QueueInfo

_QUEUE_OPS = ("AllocTensor", "EnQue", "DeQue", "FreeTensor")


def check_queue_protocol(ctx: LintContext) -> Iterator[Diagnostic]:
    ops: dict[int, tuple[QueueInfo, dict[str, list[Call]]]] = {}
    for call in ctx.calls:
        if call.name not in _QUEUE_OPS:
            continue
        q = ctx.model.queue_for(call.chunk, call.receiver_name)
        if q is None:
            continue
        if call.name == "FreeTensor":
            yield from _foreign_free(ctx, q, call)
        if q.kind == "TBuf":
            yield from _tbuf(ctx, q, call)
            continue
        ops.setdefault(id(q.decl), (q, {k: [] for k in _QUEUE_OPS}))[1][call.name].append(call)
    for q, by in ops.values():
        if shared_queue(ctx.model, q) is not None:
            continue  # other code drives this queue too: its protocol is not all in view
        yield from _protocol(ctx, q, by)
        yield from _depth(ctx, q, by)


def _tbuf(ctx: LintContext, q: QueueInfo, call: Call) -> Iterator[Diagnostic]:
    """CANN's TBuf derives from TQueBind, so every queue member compiles on it. The reference
    ("Introduction to TBuf") gives AllocTensor/FreeTensor their meaning there (its one buffer,
    whose tensors need no release: both are fine) and rules out the rest: its buffer "cannot be
    enqueued or dequeued", an error as in the emulator."""
    if call.name not in ("EnQue", "DeQue"):
        return
    yield ctx.diag(RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, call,
                   f"{q.name} is a TBuf ({ctx.model.where(q.decl)}): its buffer cannot be enqueued "
                   f"or dequeued, so {call.name} on it fails; hand the data on through a TQue, or "
                   f"use the TBuf's tensor ({q.name}.Get<T>()) where it is",
                   start=call.abs_name_start, end=call.abs_name_end)


def _name(e: Expr | None) -> str | None:
    """The variable or member an expression names (`x`, `this->x`), else None."""
    if e is not None and e[0] == "id":
        return str(e[1])
    if e is not None and e[0] == "f":
        return str(e[2])
    return None


def _queue_sources(ctx: LintContext, chunk: Chunk, var: str) -> list[QueueInfo] | None:
    """The queues whose AllocTensor/DeQue give `var` (a local of `chunk`, else a member of its
    class); None when any assignment of it is something else or names no known queue."""
    local = any(d.name == var and not d.is_member for d in chunk.decls)
    scope = [chunk] if local or not chunk.class_name else ctx.model.methods(chunk.class_name)
    values = [(c, d.init) for c in scope for d in c.decls if d.name == var and d.init is not None]
    values += [(c, a.value) for c in scope for a in c.assigns
               if _name(a.target) == var and a.op == "="]
    out: list[QueueInfo] = []
    for c, v in values:
        q = ctx.model.queue_for(c, _name(v[2])) if v[0] == "c" else None
        if q is None or v[1] not in ("AllocTensor", "DeQue"):
            return None
        if all(q.decl is not o.decl for o in out):
            out.append(q)
    return out or None


def _foreign_free(ctx: LintContext, q: QueueInfo, call: Call) -> Iterator[Diagnostic]:
    """FreeTensor of a tensor that only ever comes from another queue's AllocTensor/DeQue
    (ds_points_in_box frees its two VECIN buffers through each other's queue). FreeTensor takes
    only the tensor, which carries its block, and a queue allocates only the blocks InitBuffer
    gave it (the reference's InitStartBufHandle), so the block returns to its owner whatever the
    sizes; what the freeing queue decides is the release's synchronisation, set by its positions.
    Same positions: unobservable, a warning. Other positions, or a TBuf on either side (its
    FreeTensor releases nothing, a queue cannot take its buffer): an error, as in the emulator."""
    var = _name(call.args[0].expr) if len(call.args) == 1 else None
    sources = _queue_sources(ctx, call.chunk, var) if var else None
    if not sources or any(s.decl is q.decl for s in sources):
        return
    names = " / ".join(s.name for s in sources)
    head = (f"{q.name}.FreeTensor({var}) frees a tensor of {names} (its AllocTensor/DeQue gives "
            f"{var})")
    harmless = q.kind != "TBuf" and all(
        s.kind != "TBuf" and s.positions == q.positions for s in sources)
    if harmless:
        yield ctx.diag(RuleCode.QUEUE_PROTOCOL.value, Severity.WARNING, call,
                       f"{head}: a queue allocates only its own blocks, so the buffer returns to "
                       f"{names}, and both are {'/'.join(sorted(q.positions))} queues, so the "
                       f"release synchronises as the owner's would; harmless, but clearer as "
                       f"{sources[0].name}.FreeTensor",
                       start=call.abs_name_start, end=call.abs_name_end)
        return
    why = ("a TBuf's FreeTensor releases nothing and a queue cannot take a TBuf's buffer"
           if q.kind == "TBuf" or any(s.kind == "TBuf" for s in sources) else
           f"{q.name} ({'/'.join(sorted(q.positions))}) signals another free event than "
           f"{names} ({'/'.join(sorted(set().union(*(s.positions for s in sources))))}) waits "
           "on before it reuses the buffer")
    yield ctx.diag(RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, call,
                   f"{head}; {why}: free it with {sources[0].name}.FreeTensor",
                   start=call.abs_name_start, end=call.abs_name_end)


def _lines(ctx: LintContext, calls: list[Call]) -> str:
    return ", ".join(ctx.model.where(c) for c in calls[:3])


def _protocol(ctx: LintContext, q: QueueInfo, by: dict[str, list[Call]]) -> Iterator[Diagnostic]:
    """Whole-class counts of each operation on one queue (methods split the protocol: CopyIn
    allocates and enqueues, Compute dequeues and frees). A missing operation is proved only
    when the queue is not shared; a leak is only a fault when allocation repeats."""
    alloc, enq, deq, free = (by[k] for k in _QUEUE_OPS)
    if alloc and not enq and not free:
        loop = next((r for r in (repeats(ctx.model, a) for a in alloc) if r is not None), None)
        if loop is not None:
            yield ctx.diag(
                RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, alloc[0],
                f"tensor allocated from {q.name} is never enqueued nor freed (no EnQue or "
                f"FreeTensor on {q.name} in its class), yet AllocTensor repeats (loop at "
                f"{ctx.model.where(loop)}): once its buffers are used up AllocTensor waits forever")
    if enq and not deq:
        yield ctx.diag(RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, enq[0],
                       f"{q.name} is enqueued ({_lines(ctx, enq)}) but never dequeued anywhere in "
                       "its class; the consumer never sees the data")
    if deq and not enq:
        yield ctx.diag(RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, deq[0],
                       f"DeQue on {q.name} ({_lines(ctx, deq)}), which is never enqueued anywhere "
                       "in its class: it waits on an empty queue")
    if (deq or alloc) and enq and not free:
        loop = next((r for r in (repeats(ctx.model, a) for a in alloc) if r is not None), None)
        if loop is None:
            return  # each buffer is taken once: nothing runs out
        anchor = deq[0] if deq else alloc[0]
        yield ctx.diag(
            RuleCode.QUEUE_PROTOCOL.value, Severity.ERROR, anchor,
            f"tensors of {q.name} are never released with FreeTensor (no FreeTensor on {q.name} "
            f"in its class) while AllocTensor repeats (run in a loop at "
            f"{ctx.model.where(loop)}); each iteration leaks a buffer and AllocTensor hangs "
            f"once the {q.name} blocks run out",
            _free_fix(ctx, q, anchor), start=anchor.abs_name_start, end=anchor.abs_name_end)


def _free_fix(ctx: LintContext, q: QueueInfo, deq: Call) -> Fix | None:
    """Insert `q.FreeTensor(var);` before the end of the function that dequeued `var`."""
    chunk = deq.chunk
    var = None
    for d in chunk.decls:
        if d.init is not None and d.init[0] == "c" and d.init[1] == deq.name and (
            d.rel_start <= deq.rel_start <= d.rel_end
        ):
            var = d.name
    if var is None or chunk.function is None:
        return None
    doc = ctx.model.documents[chunk.file]
    close = chunk.base + chunk.function.body_end
    line, _ = doc.lines.position(close)
    line_start = doc.lines.starts[line - 1]
    decl_line, _ = doc.lines.position(deq.start)
    decl_text = doc.lines.line_text(decl_line)
    indent = decl_text[: len(decl_text) - len(decl_text.lstrip())]
    recv = deq.receiver_text or q.name
    if doc.data[line_start:close].strip():  # closing brace shares its line with code
        text, at = f"\n{indent}{recv}.FreeTensor({var});\n", close
    else:
        text, at = f"{indent}{recv}.FreeTensor({var});\n", line_start
    return Fix(title=f"Free {var} with {recv}.FreeTensor",
               edits=[ctx.edit(chunk.file, at, at, text)])


def _depth(ctx: LintContext, q: QueueInfo, by: dict[str, list[Call]]) -> Iterator[Diagnostic]:
    depth_v = ctx.ev.eval(parse_value_text(q.depth_text), q.decl.chunk) if q.depth_text else None
    if depth_v is None or not depth_v.exact or depth_v.lo < 1:
        return
    depth = depth_v.lo
    per_fn: dict[int, list[Call]] = {}
    for c in by["EnQue"] + by["DeQue"]:
        per_fn.setdefault(id(c.chunk), []).append(c)
    for calls in per_fn.values():
        in_flight = 0
        for c in sorted(calls, key=lambda c: c.order):
            if c.loop_depth or c.in_branch:
                break
            in_flight += 1 if c.name == "EnQue" else -1
            if in_flight > depth:
                yield ctx.diag(RuleCode.QUEUE_DEPTH.value, Severity.ERROR, c,
                               f"{in_flight} tensors enqueued on {q.name} without a DeQue, but "
                               f"its depth is {depth:g} ({q.depth_text})")
                break
