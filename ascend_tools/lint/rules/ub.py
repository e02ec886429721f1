"""Unified Buffer capacity (docs/ASCENDC_SPEC.md 7.1) and buffer counts (7.2)."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.chips import MAX_BUFFERS_PER_PIPE
from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import InitBuf, LintContext, align32
from ascend_tools.parse.evaluate import Evaluator, Value
from ascend_tools.parse.facts import Decl, Define

_MAX_NOTES = 12


def _kb(n: float) -> str:
    return f"{n / 1024:g} KB"


def buffers_total(ev: Evaluator, bufs: list[InitBuf]) -> tuple[Value | None, list[str], list[str]]:
    """(total bytes, `queue: num x len B` parts, provenance notes) under one evaluator."""
    parts: list[str] = []
    notes: list[str] = []
    lo = 0.0
    sums = _Sums()
    for ib in bufs:
        c = ib.call
        num = ev.eval(ib.num_expr, c.chunk, c.order) if ib.num_expr is not None else Value(1, 1)
        length = ev.eval(ib.len_expr, c.chunk, c.order)
        if num is None or length is None:
            return None, [], []
        if not _conditional(ib):  # a buffer set up on one branch only may not coexist
            lo += num.lo * align32(length.lo)
        sums.add(ib, num.hi * align32(length.hi))
        qname = ib.queue.name if ib.queue else c.args[0].text
        parts.append(f"{qname}: {num.fmt()} x {length.fmt()} B"
                     + (f" (on one branch, {ev.model.where(c)})" if _conditional(ib) else ""))
        notes += [n for n in reversed(length.notes) if n not in notes]
    return Value(lo, sums.hi), parts, notes


def _conditional(ib: InitBuf) -> bool:
    """An InitBuffer under an if/switch: one of several layouts, maybe never with the rest."""
    return ib.call.in_branch


class _Sums:
    """An upper bound of a quantity summed over InitBuffer calls: every unconditional call,
    plus the largest of the branch blocks (`if (wide) {...} else {...}` sets up one layout)."""

    def __init__(self) -> None:
        self.always = 0.0
        self.blocks: dict[tuple[int, tuple[int, int]], float] = {}

    def add(self, ib: InitBuf, amount: float) -> None:
        if _conditional(ib):
            key = (id(ib.call.chunk), ib.call.block)
            self.blocks[key] = self.blocks.get(key, 0.0) + amount
        else:
            self.always += amount

    @property
    def hi(self) -> float:
        return self.always + max(self.blocks.values(), default=0.0)


def _ub_buffers(ctx: LintContext) -> list[InitBuf]:
    return [ib for ib in ctx.init_buffers if ib.queue is None or ib.queue.in_ub]


def by_unit(ctx: LintContext, bufs: list[InitBuf]) -> list[list[InitBuf]]:
    """InitBuffer calls grouped by kernel class (each class is one kernel with one TPipe)."""
    groups: dict[str, list[InitBuf]] = {}
    for ib in bufs:
        groups.setdefault(ctx.model.unit_of(ib.call.chunk), []).append(ib)
    return list(groups.values())


def check_ub_capacity(ctx: LintContext) -> Iterator[Diagnostic]:
    for bufs in by_unit(ctx, [ib for ib in _ub_buffers(ctx) if ib.queue is not None]):
        yield from _ub_unit(ctx, bufs)


def _ub_unit(ctx: LintContext, bufs: list[InitBuf]) -> Iterator[Diagnostic]:
    """The UB total for each OpDef dtype combination; the worst one is reported. A range that
    only may exceed the budget (values known as bounds) is a warning, not an error."""
    worst = None
    for combo in ctx.ev.combos():
        ev = ctx.ev.with_combo(combo)
        total, parts, notes = buffers_total(ev, bufs)
        if total is not None and (worst is None or total.hi > worst[1].hi):
            worst = (combo, total, parts, notes)
    if worst is None:
        return
    combo, total, parts, notes = worst
    chip = ctx.chip
    detail = f"{'; '.join(parts)}" + (f" ({'; '.join(notes[:_MAX_NOTES])})" if notes else "")
    anchor = max(bufs, key=lambda ib: ib.bytes.hi if ib.bytes else 0).call
    amount = f"{total.fmt()} B" if total.exact else f"up to {total.hi:g} B"
    fix_ev = ctx.ev.with_combo(combo)
    if total.hi > chip.ub_bytes:
        own = _self_addressed(ctx, bufs)
        physical = chip.ub_physical_bytes or chip.ub_bytes
        aliases = wrapped_aliases(ctx, bufs, chip.ub_bytes)
        sure = total.lo > physical and not own and not aliases
        yield ctx.diag(
            RuleCode.UB_OVERFLOW.value, Severity.ERROR if sure else Severity.WARNING, anchor,
            f"Unified Buffer {'overflow' if sure else 'may overflow'} on {chip.name}: "
            f"InitBuffer total {amount} ({_kb(total.hi)}) exceeds the UB size {chip.ub_bytes} B "
            f"({_kb(chip.ub_bytes)}): {detail}"
            + (f"; the kernel places its own tensors in {', '.join(own)} with GetWithOffset, so "
               "what it really uses there is not known" if own else "")
            + (f"; the whole UB is {physical} B, of which {chip.ub_bytes} B are documented for "
               "vector data" if physical > chip.ub_bytes and total.lo <= physical else "")
            + (wrap_note(ctx, aliases, "UB") if aliases else ""),
            _shrink_fix(ctx, bufs, chip.ub_safe_bytes, fix_ev),
        )
    elif total.hi > chip.ub_safe_bytes:
        yield ctx.diag(
            RuleCode.UB_NEAR_LIMIT.value, Severity.WARNING, anchor,
            f"Unified Buffer use {amount} on {chip.name} is above {chip.ub_safe_bytes} B "
            f"({_kb(chip.ub_safe_bytes)}), where some basic APIs keep scratch data; user "
            f"buffers there risk silent corruption: {detail}",
            _shrink_fix(ctx, bufs, chip.ub_safe_bytes, fix_ev),
        )


def wrapped_aliases(ctx: LintContext, bufs: list[InitBuf], size: int) -> list[str] | None:
    """On a chip whose on-chip addresses wrap at a memory's size (chips.json
    `local_address_wrap`, 310P): the TBufs that start past the memory's end at a whole multiple
    of its size and fit in it, so the NPU addresses them from 0 (the whole memory under another
    position: generated 310P kernels give every position one), when every buffer past the end
    is one; else None (a real overflow). Needs every length known exactly and no branch."""
    if not ctx.chip.local_address_wrap or size <= 0:
        return None
    used = 0
    aliases: list[str] = []
    for ib in sorted(bufs, key=lambda b: (b.call.chunk.file, b.call.abs_name_start)):
        b = ib.bytes
        if b is None or not b.exact or _conditional(ib):
            return None
        need = int(b.hi)
        if used + need > size:
            tbuf = ib.queue is not None and ib.queue.kind == "TBuf"
            if not (tbuf and used % size == 0 and need <= size):
                return None
            aliases.append(ib.queue.name)
        used += need
    return aliases


def wrap_note(ctx: LintContext, aliases: list[str], memory: str) -> str:
    """What a layout of wrapped_aliases is told."""
    return (f"; on {ctx.chip.name} addresses wrap at the memory's size: each of "
            f"{', '.join(aliases)} starts past the end of {memory} at a whole multiple of its "
            f"size, so it is {memory} from address 0 again and shares its bytes with the "
            "buffers before it")


def _self_addressed(ctx: LintContext, bufs: list[InitBuf]) -> list[str]:
    """TBufs read only through GetWithOffset: the kernel lays out their tensors itself, and
    their InitBuffer length (often the whole UB) says little about the bytes it touches."""
    out = []
    for ib in bufs:
        q = ib.queue
        if q is None or q.kind != "TBuf":
            continue
        uses = {c.name for c in ctx.calls if c.receiver_name == q.name
                and ctx.model.queue_for(c.chunk, q.name) is q and c.name != "InitBuffer"}
        if uses == {"GetWithOffset"}:
            out.append(q.name)
    return out


def _constants_of(ctx: LintContext) -> list[Define | Decl]:
    """The constants a fix may edit: one definition each, the one this build compiles (a name
    whose `#ifdef` alternatives the macros do not decide is left alone)."""
    out = []
    for name, first in ctx.model.constants.items():
        defs = ctx.ev.constant_definitions(name, first.chunk.file)
        if len(defs) == 1:
            out.append(defs[0])
    return out


def _shrink_fix(ctx: LintContext, bufs: list[InitBuf], budget: int,
                ev: Evaluator) -> Fix | None:
    """A smaller tile: the constant the buffer sizes scale with, halved (or a divisor doubled)
    until the total fits the budget. The constant may live in the kernel or in op_host."""
    base = _total_with(ev, bufs, {})
    if base is None:
        return None
    candidates = []
    for const in _constants_of(ctx):
        cur = ctx.ev.eval(const.value if isinstance(const, Define) else const.init, const.chunk)
        if cur is None or not cur.exact or cur.lo <= 0 or not float(cur.lo).is_integer():
            continue
        bigger = _total_with(ev, bufs, {const.name: cur.lo * 2})
        if bigger is None or bigger == base:
            continue
        grow = bigger > base  # the total grows with this constant: shrink it, else raise it
        value = int(cur.lo)
        for _ in range(16):
            value = value // 2 if grow else value * 2
            if value <= 0:
                break
            total = _total_with(ev, bufs, {const.name: value})
            if total is not None and total <= budget:
                # prefer a tile constant over one that also changes blockDim, kernel over host
                moves_block_dim = _block_dim_with(ctx, {const.name: value}) != _block_dim_with(
                    ctx, {})
                key = (moves_block_dim, const.chunk.file not in ctx.model.kernel_files)
                candidates.append((key, const, value, total))
                break
    if not candidates:
        return None
    best = min(candidates, key=lambda c: c[0])[1:]
    const, value, total = best
    if isinstance(const, Define):
        start, end = const.chunk.base + const.value_start, const.chunk.base + const.value_end
    elif const.init_start >= 0:
        start, end = const.chunk.base + const.init_start, const.chunk.base + const.init_end
    else:
        return None
    old = ctx.source(const.chunk.file, start, end)
    if old.startswith("{") or old.startswith("("):
        new_text = f"{old[0]}{value}{')' if old[0] == '(' else '}'}"
    else:
        new_text = str(value)
    return Fix(title=f"Set {const.name} to {value} (UB total {total:g} B fits {budget} B)",
               edits=[ctx.edit(const.chunk.file, start, end, new_text)])


def _total_with(base: Evaluator, bufs: list[InitBuf],
                overrides: dict[str, float]) -> float | None:
    ev = base if not overrides else Evaluator(base.model, base.chip, base.shapes, overrides,
                                              base.combo)
    total = 0.0
    for ib in bufs:
        c = ib.call
        n = ev.eval(ib.num_expr, c.chunk, c.order) if ib.num_expr is not None else Value(1, 1)
        length = ev.eval(ib.len_expr, c.chunk, c.order)
        if n is None or length is None:
            return None
        total += n.hi * align32(length.hi)
    return total


def _block_dim_with(ctx: LintContext, overrides: dict[str, float]) -> float | None:
    ev = Evaluator(ctx.model, ctx.chip, ctx.ev.shapes, overrides) if overrides else ctx.ev
    bd = ev.block_dim()
    return bd.hi if bd is not None else None


def check_buffer_count(ctx: LintContext) -> Iterator[Diagnostic]:
    for bufs in by_unit(ctx, ctx.init_buffers):
        yield from _count_unit(ctx, bufs)


def _count_unit(ctx: LintContext, bufs: list[InitBuf]) -> Iterator[Diagnostic]:
    """Buffers the unit's InitBuffer calls take: those on every path count towards an error,
    those under a branch only towards a warning."""
    sure = 0.0
    sums = _Sums()
    for ib in bufs:
        if ib.num is None:
            return
        sums.add(ib, ib.num.hi)
        if not _conditional(ib):
            sure += ib.num.lo
    maybe = sums.hi
    if maybe > MAX_BUFFERS_PER_PIPE and bufs:
        last = bufs[-1].call
        parts = ", ".join(f"{ib.queue.name if ib.queue else ib.call.args[0].text}: "
                          f"{ib.num.fmt() if ib.num else '?'}" for ib in bufs[:8])
        more = f", and {len(bufs) - 8} more" if len(bufs) > 8 else ""
        error = sure > MAX_BUFFERS_PER_PIPE
        yield ctx.diag(RuleCode.BUFFER_COUNT.value, Severity.ERROR if error else Severity.WARNING,
                       last, f"TPipe {'holds' if error else 'may hold'} "
                       f"{(sure if error else maybe):g} buffers ({parts}{more}); at most "
                       f"{MAX_BUFFERS_PER_PIPE} are allowed per TPipe")


def check_tensors_per_position(ctx: LintContext) -> Iterator[Diagnostic]:
    """Tensors allocated and not yet freed at one position, counted along each function's
    straight-line code (7.2: at most 8 per position, 4 on Ascend 910)."""
    limit = ctx.chip.max_tensors_per_position
    by_chunk: dict[int, list] = {}
    for call in ctx.calls:
        # an AllocTensor under a branch may not run (a FreeTensor there only lowers the count)
        counted = call.name == "FreeTensor" or (call.name == "AllocTensor" and not call.in_branch)
        if counted and not call.loop_depth:
            by_chunk.setdefault(id(call.chunk), []).append(call)
    for calls in by_chunk.values():
        yield from _over_limit(ctx, calls, limit, Severity.ERROR, "")
    # AllocTensor calls in one branch body run together whenever that body runs (DrivingSDK's
    # roi_align_rotated_v2 allocates 21 VECCALC tensors under `if (rois_num_per_core > 0)`): the
    # same count, as a warning, since lint cannot tell whether the branch is taken.
    by_block: dict[tuple[int, tuple[int, int]], list] = {}
    for call in ctx.calls:
        if call.in_branch and not call.loop_depth and call.name in ("AllocTensor", "FreeTensor"):
            by_block.setdefault((id(call.chunk), call.block), []).append(call)
    for calls in by_block.values():
        yield from _over_limit(ctx, calls, limit, Severity.WARNING, " whenever this branch runs")


def _over_limit(
    ctx: LintContext, calls: list, limit: int, severity: Severity, when: str
) -> Iterator[Diagnostic]:
    """The first AllocTensor along `calls` (in source order) that holds more than `limit`
    tensors of one position at once."""
    live: dict[str, list] = {}
    for call in sorted(calls, key=lambda c: c.order):
        q = ctx.model.queue_for(call.chunk, call.receiver_name)
        if q is None or q.kind == "TBuf":
            continue
        held = live.setdefault(q.position, [])
        if call.name == "AllocTensor":
            held.append(call)
        elif held:
            held.pop(0)
        if len(held) > limit:
            # the limit is the pool of events queue buffers hold between pipes (FreeAllEvent's
            # reference); a VECCALC queue stays on the vector pipe, so it is not a proved fault
            veccalc = q.position == "VECCALC"
            yield ctx.diag(
                RuleCode.BUFFER_COUNT.value, Severity.WARNING if veccalc else severity, call,
                f"{len(held)} tensors of position {q.position} are allocated at once here{when} "
                f"(AllocTensor at {', '.join(ctx.model.where(c) for c in held)} with no "
                f"FreeTensor between); {ctx.chip.name} allows {limit} per position"
                + ("; a VECCALC queue crosses no pipe, so the NPU may not hit the limit"
                   if veccalc else ""),
                start=call.abs_name_start, end=call.abs_name_end)
            return
