"""Pipe hazards in straight-line code (the static side of the emulator's pipe model): a TBuf
tensor written on one pipe and read on another inside one function, or read on one pipe and
then overwritten on another, with no SetFlag/WaitFlag pair for those pipes,
PipeBarrier<PIPE_ALL>, SyncAll or queue EnQue/DeQue between. An error
when both calls run unconditionally at the same loop depth; a warning when a branch or a loop
boundary separates them (the order may still hold at run time)."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.lint.rules.vector import form_of
from ascend_tools.parse.facts import Call

_COPIES = {"DataCopy", "DataCopyPad"}
_TBUF_MAKERS = {"Get", "GetWithOffset"}
# Calls after which every earlier instruction is ordered before every later one (as the
# emulator's model treats them).
_FULL_ORDER = {"SyncAll", "EnQue", "DeQue"}


def _orders(call: Call, src: str, dst: str) -> bool:
    """Whether `call` orders pipe `src` before pipe `dst` for what follows it."""
    text = " ".join(call.template_args) + " " + " ".join(a.text for a in call.args)
    if call.name in _FULL_ORDER:
        return True
    if call.name in ("PipeBarrier", "pipe_barrier"):
        return "PIPE_ALL" in text
    if call.name in ("WaitFlag", "wait_flag"):
        return call.receiver is not None or f"{src}_{dst}" in text or (
            f"PIPE_{src}" in text and f"PIPE_{dst}" in text)
    return False


def _accesses(ctx: LintContext, call: Call) -> list[tuple[str, str, bool, int]]:
    """(variable, pipe, is_write, argument index) for each TBuf tensor the call touches."""
    out = []

    def tbuf_var(i: int) -> str | None:
        if i >= len(call.args):
            return None
        t = ctx.tensor(call.args[i].expr, call.chunk, call.order)
        if t.kind != "local" or t.maker not in _TBUF_MAKERS:
            return None
        expr = call.args[i].expr
        if expr[0] == "ix":
            expr = expr[1]
        return str(expr[1]) if expr[0] == "id" else None

    if call.name in _COPIES and len(call.args) >= 2:
        first = ctx.tensor(call.args[0].expr, call.chunk, call.order)
        second = ctx.tensor(call.args[1].expr, call.chunk, call.order)
        if first.kind == "local" and second.kind == "global" and (v := tbuf_var(0)):
            out.append((v, "MTE2", True, 0))
        elif first.kind == "global" and second.kind == "local" and (v := tbuf_var(1)):
            out.append((v, "MTE3", False, 1))
        return out
    form = form_of(ctx, call.name)
    if form is None:
        return out
    for i in form.operands:
        if (v := tbuf_var(i)) is not None:
            out.append((v, "V", i == 0, i))
    return out


def check_pipe_hazards(ctx: LintContext) -> Iterator[Diagnostic]:
    for chunk in ctx.chunks():
        if chunk.kind != "function":
            continue
        last: dict[str, tuple[str, Call]] = {}  # variable -> (pipe, writing call)
        reads: dict[str, tuple[str, Call]] = {}  # variable -> (pipe, last reading call)
        calls = sorted(chunk.calls, key=lambda c: c.order)
        for call in calls:
            accesses = _accesses(ctx, call)
            for var, pipe, write, i in accesses:
                # A read after another pipe's write (stale data), a write after another pipe's
                # read (the read may see the new data).
                prior = reads.get(var) if write else last.get(var)
                if prior is None or prior[0] == pipe:
                    continue
                ppipe, p = prior
                if any(_orders(c, ppipe, pipe) for c in calls if p.order < c.order < call.order):
                    continue
                straight = not (p.in_branch or call.in_branch) and p.loop_depth == call.loop_depth
                pline = ctx.range_of(chunk.file, p.start, p.end).line
                event = f"SetFlag/WaitFlag<HardEvent::{ppipe}_{pipe}>"
                what = (
                    f"{call.name} overwrites {var} on PIPE_{pipe} while {p.name} (line {pline}) "
                    f"may still read it on PIPE_{ppipe}, with no {event} between: on the NPU the "
                    "pipes run concurrently and the read can see the new data"
                    if write else
                    f"{call.name} reads {var} on PIPE_{pipe}, which {p.name} (line {pline}) "
                    f"wrote on PIPE_{ppipe}, with no {event} between: on the NPU the pipes run "
                    "concurrently, so this can read stale data")
                yield ctx.diag(
                    RuleCode.PIPE_HAZARD.value, Severity.ERROR if straight else Severity.WARNING,
                    call.args[i],
                    what + ("" if straight else " (a branch or loop lies between; check the "
                                                "order holds on every path)"))
            for var, pipe, write, _ in accesses:
                if write:
                    last[var] = (pipe, call)
                else:
                    reads[var] = (pipe, call)
