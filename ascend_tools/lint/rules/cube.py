"""L1 and L0 capacity of the cube path (docs/ASCENDC_SPEC.md sections 3 and 6): InitBuffer on
A1/B1/C1/TSCM adds up in L1, on A2 in L0A, B2 in L0B, CO1 in L0C, each against the chip's size
(`ascend_tools/data/chips.json`), summed the way the UB rule sums UB positions."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.chips import CUBE_POSITION_MEMORY
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import InitBuf, LintContext
from ascend_tools.lint.rules.ub import buffers_total, by_unit

_MAX_NOTES = 12
# Chip field -> (the memory's name in messages, the rule code of its overflow).
_MEMORIES: dict[str, tuple[str, RuleCode]] = {
    "l1_bytes": ("L1", RuleCode.L1_OVERFLOW),
    "l0a_bytes": ("L0A", RuleCode.L0_OVERFLOW),
    "l0b_bytes": ("L0B", RuleCode.L0_OVERFLOW),
    "l0c_bytes": ("L0C", RuleCode.L0_OVERFLOW),
}


def _memory_of(ib: InitBuf) -> str | None:
    q = ib.queue
    return CUBE_POSITION_MEMORY.get(q.position) if q is not None else None


def check_cube_capacity(ctx: LintContext) -> Iterator[Diagnostic]:
    cube = [ib for ib in ctx.init_buffers if _memory_of(ib) is not None]
    for bufs in by_unit(ctx, cube):
        for field in _MEMORIES:
            mine = [ib for ib in bufs if _memory_of(ib) == field]
            if mine:
                yield from _memory_unit(ctx, field, mine)


def _memory_unit(ctx: LintContext, field: str, bufs: list[InitBuf]) -> Iterator[Diagnostic]:
    """The total for each OpDef dtype combination; the worst one is reported. An error only
    when the buffers on every path (not under a branch) already exceed the memory."""
    worst = None
    for combo in ctx.ev.combos():
        total, parts, notes = buffers_total(ctx.ev.with_combo(combo), bufs)
        if total is not None and (worst is None or total.hi > worst[0].hi):
            worst = (total, parts, notes)
    if worst is None:
        return
    total, parts, notes = worst
    size = int(getattr(ctx.chip, field))
    if total.hi <= size:
        return
    name, code = _MEMORIES[field]
    sure = total.lo > size
    positions = sorted({ib.queue.position for ib in bufs if ib.queue is not None})
    detail = "; ".join(parts) + (f" ({'; '.join(notes[:_MAX_NOTES])})" if notes else "")
    amount = f"{total.fmt()} B" if total.exact else f"up to {total.hi:g} B"
    anchor = max(bufs, key=lambda ib: ib.bytes.hi if ib.bytes else 0).call
    yield ctx.diag(
        code.value, Severity.ERROR if sure else Severity.WARNING, anchor,
        f"{name} {'overflow' if sure else 'may overflow'} on {ctx.chip.name}: InitBuffer on "
        f"{'/'.join(positions)} totals {amount} ({total.hi / 1024:g} KB), more than the "
        f"{size} B ({size / 1024:g} KB) of {name}: {detail}")
