"""Pipe hazards in straight-line code (the static side of the emulator's pipe model): a TBuf
tensor written on one pipe and read on another inside one function, or read on one pipe and
then overwritten on another, with no SetFlag/WaitFlag pair for those pipes,
PipeBarrier<PIPE_ALL>, SyncAll or queue EnQue/DeQue between. An error
when both calls run unconditionally at the same loop depth; a warning when a branch or a loop
boundary separates them (the order may still hold at run time).

The BiSheng compiler's automatic synchronization (`--cce-auto-sync`, on by default in
kernel-launch and custom operator projects) inserts the flags between S and MTE2/MTE3/V itself,
so those pairs are hazards only in a project built without it (`auto_sync = false`). It needs
every function the kernel calls to be inline: a non-inline `__aicore__` function with vector or
scalar LocalTensor work and no flag or barrier of its own is `auto-sync-inline` (a warning).
Source: https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/compiler/BishengCompiler/atlas_bisheng_10_0008.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext
from ascend_tools.lint.rules.vector import form_of
from ascend_tools.parse.facts import Call, Chunk, Located

_COPIES = {"DataCopy", "DataCopyPad"}
_TBUF_MAKERS = {"Get", "GetWithOffset"}
# Calls after which every earlier instruction is ordered before every later one (as the
# emulator's model treats them).
_FULL_ORDER = {"SyncAll", "EnQue", "DeQue"}
# LocalTensor scalar accesses (PIPE_S) -> whether they write.
_SCALAR = {"GetValue": False, "SetValue": True}
# Pipe pairs --cce-auto-sync synchronises, both directions (BiSheng compiler guide, "Automatic
# Synchronization": MTE2 and S, MTE3 and S, V and S, V and V; same-pipe pairs are not hazards).
AUTO_SYNCED = frozenset({frozenset({"S", "MTE2"}), frozenset({"S", "MTE3"}), frozenset({"S", "V"})})
_INLINE = re.compile(r"\b(?:inline|__inline__|__forceinline__)\b")


def _orders(call: Call, src: str, dst: str) -> bool:
    """Whether `call` orders pipe `src` before pipe `dst` for what follows it."""
    text = " ".join(call.template_args) + " " + " ".join(a.text for a in call.args)
    if call.name in _FULL_ORDER:
        return True
    if call.name in ("PipeBarrier", "pipe_barrier"):
        return "PIPE_ALL" in text
    if call.name in ("WaitFlag", "wait_flag"):
        # A wait on S orders every pipe after it: the scalar unit stops issuing.
        return call.receiver is not None or f"{src}_{dst}" in text or bool(
            re.search(rf"\b{src}_S\b", text)) or (
            f"PIPE_{src}" in text and (f"PIPE_{dst}" in text or "PIPE_S" in text))
    return False


def _accesses(ctx: LintContext, call: Call) -> list[tuple[str, str, bool, Located]]:
    """(variable, pipe, is_write, where) for each TBuf tensor the call touches."""
    out: list[tuple[str, str, bool, Located]] = []

    def tbuf_name(expr) -> str | None:
        t = ctx.tensor(expr, call.chunk, call.order)
        if t.kind != "local" or t.maker not in _TBUF_MAKERS:
            return None
        if expr[0] == "ix":
            expr = expr[1]
        return str(expr[1]) if expr[0] == "id" else None

    def tbuf_var(i: int) -> str | None:
        return tbuf_name(call.args[i].expr) if i < len(call.args) else None

    if call.name in _SCALAR and call.receiver is not None:
        if (v := tbuf_name(call.receiver)) is not None:
            out.append((v, "S", _SCALAR[call.name], call))
        return out

    if call.name in _COPIES and len(call.args) >= 2:
        first = ctx.tensor(call.args[0].expr, call.chunk, call.order)
        second = ctx.tensor(call.args[1].expr, call.chunk, call.order)
        if first.kind == "local" and second.kind == "global" and (v := tbuf_var(0)):
            out.append((v, "MTE2", True, call.args[0]))
        elif first.kind == "global" and second.kind == "local" and (v := tbuf_var(1)):
            out.append((v, "MTE3", False, call.args[1]))
        return out
    form = form_of(ctx, call.name)
    if form is None:
        return out
    for i in form.operands:
        if (v := tbuf_var(i)) is not None:
            out.append((v, "V", i == 0, call.args[i]))
    return out


def check_pipe_hazards(ctx: LintContext) -> Iterator[Diagnostic]:
    for chunk in ctx.chunks():
        if chunk.kind != "function":
            continue
        last: dict[str, tuple[str, Call]] = {}  # variable -> (pipe, writing call)
        reads: dict[str, tuple[str, Call]] = {}  # variable -> (pipe, last reading call)
        # (pipe, order): a wait on S there orders that pipe's earlier work before everything
        # after (the scalar unit stops issuing): the compiler's, for an auto-synced scalar access.
        stalls: list[tuple[str, int]] = []
        calls = sorted(chunk.calls, key=lambda c: c.order)
        for call in calls:
            accesses = _accesses(ctx, call)
            for var, pipe, write, where in accesses:
                # A read after another pipe's write (stale data), a write after another pipe's
                # read (the read may see the new data).
                prior = reads.get(var) if write else last.get(var)
                if prior is None or prior[0] == pipe:
                    continue
                ppipe, p = prior
                if ctx.auto_sync and frozenset({ppipe, pipe}) in AUTO_SYNCED:
                    if pipe == "S":  # the compiler's WaitFlag<ppipe_S> before this call
                        stalls.append((ppipe, call.order))
                    continue
                if any(_orders(c, ppipe, pipe) for c in calls if p.order < c.order < call.order):
                    continue
                if any(sp == ppipe and p.order < o < call.order for sp, o in stalls):
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
                    where,
                    what + ("" if straight else " (a branch or loop lies between; check the "
                                                "order holds on every path)"))
            for var, pipe, write, _ in accesses:
                if write:
                    last[var] = (pipe, call)
                elif pipe != "S":  # a scalar read completes before the next issue (no WAR)
                    reads[var] = (pipe, call)


def _declared_inline(ctx: LintContext, chunk: Chunk) -> bool | None:
    """Whether a function chunk is declared inline; None when it is not `__aicore__` (host
    code, or qualifiers the linter cannot see). A method defined outside its class counts as
    inline when its declaration in the class says so."""
    fn = chunk.function
    if fn is None:
        return None
    data = ctx.model.documents[chunk.file].data
    head_start = max(max(data.rfind(ch, 0, chunk.base) for ch in (b";", b"}", b"{")), 0)
    head_end = chunk.base + (fn.params_start if fn.params_start >= 0 else 0)
    head = ctx.source(chunk.file, head_start, head_end)
    if "__aicore__" not in head:
        return None
    if _INLINE.search(head):
        return True
    if not chunk.class_name:
        return False
    declared = re.compile(rf"{_INLINE.pattern}[^;{{}}]*\b{re.escape(chunk.name)}\s*\(")
    return any(
        declared.search(ctx.source(c.file, c.base, c.base + c.length))
        for c in ctx.model.chunks
        if c.class_name == chunk.class_name and c.kind != "function"
    )


def _auto_synced_work(ctx: LintContext, call: Call) -> bool:
    """Whether a call is work --cce-auto-sync orders: a vector op (V <-> V, V <-> S) or a
    scalar access of a LocalTensor (S <-> V/MTE2/MTE3)."""
    if call.name in _SCALAR and call.receiver is not None:
        return ctx.tensor(call.receiver, call.chunk, call.order).kind == "local"
    return form_of(ctx, call.name) is not None


# Calls by which a function orders its pipes itself (it does not rely on the compiler's flags).
_MANUAL_SYNC = {"SetFlag", "WaitFlag", "set_flag", "wait_flag", "PipeBarrier", "pipe_barrier"}


def check_auto_sync_inline(ctx: LintContext) -> Iterator[Diagnostic]:
    """A non-inline `__aicore__` function (other than the kernel entry) doing vector or scalar
    LocalTensor work with no flag or barrier of its own, in a project built with
    --cce-auto-sync: the compiler's automatic synchronization requires every function the
    kernel calls to be inline. Functions that synchronise by hand are left alone."""
    if not ctx.auto_sync:
        return
    for chunk in ctx.chunks():
        fn = chunk.function
        if chunk.kind != "function" or fn is None or fn.is_entry:
            continue
        if any(c.name in _MANUAL_SYNC for c in chunk.calls):
            continue
        work = next((c for c in sorted(chunk.calls, key=lambda c: c.order)
                     if _auto_synced_work(ctx, c)), None)
        if work is None or _declared_inline(ctx, chunk) is not False:
            continue
        name_end = chunk.base + (fn.params_start if fn.params_start >= 0 else 0)
        line = ctx.range_of(chunk.file, work.start, work.end).line
        yield ctx.diag(
            RuleCode.AUTO_SYNC_INLINE.value, Severity.WARNING, fn,
            f"{chunk.qualified} is a __aicore__ function declared without inline, and its "
            f"{work.name} (line {line}) relies on the compiler's automatic synchronization "
            "(--cce-auto-sync), which requires every function the kernel calls to be inline: "
            "declare it `__aicore__ inline`, or order its pipes with SetFlag/WaitFlag yourself",
            start=chunk.base, end=name_end)
