"""The cube path's memories (docs/ASCENDC_SPEC.md sections 3, 5 and 6).

Capacity: InitBuffer on A1/B1/C1/TSCM adds up in L1, on A2 in L0A, B2 in L0B, CO1 in L0C, each
against the chip's size (`ascend_tools/data/chips.json`), summed the way the UB rule sums UB
positions. Layout: LoadData/Mmad/Fixpipe operands start on their memory's alignment
(`CUBE_START_ALIGN`), and MmadParams m/n/k stay in their 12-bit fields; only constants that
prove the fault are reported (the emulator checks the rest at run time)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.chips import CUBE_POSITION_MEMORY, CUBE_START_ALIGN, MMAD_MAX_MNK
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import InitBuf, LintContext, elem_size
from ascend_tools.lint.rules.ub import buffers_total, by_unit
from ascend_tools.parse.consts import parse_value_text
from ascend_tools.parse.evaluate import Value
from ascend_tools.parse.facts import Arg, Call

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


# Cube-path APIs -> how many leading arguments are on-chip operands (the rest are params).
_CUBE_OPERANDS: dict[str, int] = {
    "LoadData": 2, "LoadDataWithTranspose": 2, "Mmad": 3, "Fixpipe": 2,
}
_MMAD_FIELDS = ("m", "n", "k")


def check_cube_operands(ctx: LintContext) -> Iterator[Diagnostic]:
    for call in ctx.calls:
        n = _CUBE_OPERANDS.get(call.name)
        if n is None or len(call.args) <= n:
            continue
        for arg in call.args[:n + (call.name == "Mmad" and len(call.args) == 5)]:
            yield from _start_align(ctx, call, arg)
        if call.name == "Mmad":
            yield from _mmad_range(ctx, call)


def _start_align(ctx: LintContext, call: Call, arg: Arg) -> Iterator[Diagnostic]:
    """`local[off]` on a cube position whose constant byte offset breaks the memory's alignment."""
    t = ctx.tensor(arg.expr, call.chunk, call.order)
    if t.kind != "local" or t.offset is None or t.queue is None:
        return
    rule = CUBE_START_ALIGN.get(t.queue.position)
    off = ctx.ev.eval(t.offset, call.chunk, call.order)
    size = elem_size(ctx, t, call.chunk)
    if rule is None or off is None or size is None or not off.exact or not size.exact:
        return
    memory, align = rule
    start = off.lo * size.lo
    if start % align:
        yield ctx.diag(
            RuleCode.FRACTAL_ALIGN.value, Severity.ERROR, arg,
            f"{call.name} operand {arg.text} starts {off.fmt()} elements x {size.lo:g} B = "
            f"{start:g} B into {t.queue.name} ({t.queue.position}, {memory}); {memory} operands "
            f"start on {align}-byte boundaries"
            + (" (L0A/L0B are addressed in whole 512-byte fractals)" if align == 512 else ""))


def _mmad_range(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """MmadParams m, n, k past 4095, given inline or as constants assigned to its fields."""
    arg = call.args[-1]
    for name, v in _mmad_fields(ctx, call, arg).items():
        if v.lo > MMAD_MAX_MNK:
            yield ctx.diag(
                RuleCode.PARAM_RANGE.value, Severity.ERROR, call,
                f"Mmad {name} = {v.fmt()} exceeds {MMAD_MAX_MNK}: MmadParams m, n and k are "
                "12-bit fields (AscendC Mmad); split the product into several Mmad calls")


def _mmad_fields(ctx: LintContext, call: Call, arg: Arg) -> dict[str, Value]:
    """m, n, k of the call's MmadParams where they are known: `MmadParams(m, n, k, ...)` or
    `{m, n, k, ...}` inline or in the declaration of a local, then constants assigned to its
    fields before the call outside any branch (one in a branch leaves the field unknown)."""
    texts = {name: field for name, field in zip(_MMAD_FIELDS, _ctor_args(arg.text), strict=False)}
    var = arg.expr[1] if arg.expr[0] == "id" else None
    if var is not None:
        d = ctx.model.variable_decl(call.chunk, var, call.order)
        if d is not None and d.type_base == "MmadParams":
            decl = ctx.source(d.chunk.file, d.start, d.end)
            texts = dict(zip(_MMAD_FIELDS, _ctor_args(decl.split(var, 1)[-1]), strict=False))
    out: dict[str, Value] = {}
    for name, field in texts.items():
        v = ctx.ev.eval(parse_value_text(field), call.chunk, call.order) if field else None
        if v is not None:
            out[name] = v
    if var is None:
        return out
    for a in sorted(call.chunk.assigns, key=lambda a: a.order):
        if a.order >= call.order or a.target[0] != "f" or a.target[1] != ("id", var) \
                or a.target[2] not in _MMAD_FIELDS:
            continue
        v = ctx.ev.eval(a.value, call.chunk, a.order) if a.op == "=" and not a.in_branch else None
        if v is None:
            out.pop(a.target[2], None)
        else:
            out[a.target[2]] = v
    return out


def _ctor_args(text: str) -> list[str]:
    """The arguments of `MmadParams(a, b, c)`, `(a, b, c)` or `{a, b, c}` (nothing otherwise)."""
    m = re.fullmatch(r"\s*(?:MmadParams\s*)?[({](.*)[)}]\s*;?\s*", text, re.S)
    return [x.strip() for x in m.group(1).split(",")] if m else []
