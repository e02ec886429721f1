"""Vector computation rules: operands in UB (7.7), count vs tensor size (7.8), UB offsets (7.4),
repeat and mask ranges, Compare alignment and reduce counts (7.9)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ascend_tools.catalog.cast_table import cast_problem, through_deq_scale
from ascend_tools.catalog.dtype_tables import T_OPERAND, mode_limit, runs_as_documented_width
from ascend_tools.chips import MAX_REPEAT, REPEAT_BYTES
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext, elem_size
from ascend_tools.lint.rules.common import check_offset, count_vs_size
from ascend_tools.parse.evaluate import clean_type
from ascend_tools.parse.facts import Call


@dataclass(frozen=True)
class Form:
    """Argument layout of a vector API: which arguments are tensors, where the count sits for
    each arity of the contiguous form, and where mask and repeatTimes sit in the repeat form."""

    operands: tuple[int, ...]
    count_at: dict[int, int]
    mask_repeat_at: dict[int, tuple[int, int]]
    counted: tuple[int, ...] | None = None
    """Operands the count applies to (default: all); a reduction's dst holds one result."""


_BINARY = Form((0, 1, 2), {4: 3}, {6: (3, 4)})
_SCALAR = Form((0, 1), {4: 3}, {6: (3, 4)})
_UNARY = Form((0, 1), {3: 2}, {5: (2, 3)})
_HIGH_LEVEL = Form((0, 1), {4: 3, 3: 2}, {})
FORMS_BY_GROUP = {
    "Vector computation > binary": _BINARY,
    "Vector computation > tensor-scalar": _SCALAR,
    "Vector computation > unary": _UNARY,
    "High-level API > math": _HIGH_LEVEL,
}
FORMS_BY_NAME = {
    "Duplicate": Form((0,), {3: 2}, {6: (2, 3)}),
    "Cast": Form((0, 1), {4: 3}, {6: (3, 4)}),
    "Compare": Form((0, 1, 2), {5: 4}, {7: (4, 5)}, (1, 2)),
    "CompareScalar": Form((0, 1), {5: 4}, {}, (1,)),
    "Select": Form((0, 1, 2), {6: 5}, {}, (0, 2)),
    "ReduceSum": Form((0, 1, 2), {4: 3, 5: 3}, {}, (1,)),
    "ReduceMax": Form((0, 1, 2), {4: 3, 5: 3}, {}, (1,)),
    "ReduceMin": Form((0, 1, 2), {4: 3, 5: 3}, {}, (1,)),
    "WholeReduceSum": Form((0, 1), {}, {7: (2, 3)}),
    "WholeReduceMax": Form((0, 1), {}, {7: (2, 3), 8: (2, 3)}),
    "WholeReduceMin": Form((0, 1), {}, {7: (2, 3), 8: (2, 3)}),
    "BlockReduceSum": Form((0, 1), {}, {7: (3, 2)}),
    "BlockReduceMax": Form((0, 1), {}, {7: (3, 2)}),
    "BlockReduceMin": Form((0, 1), {}, {7: (3, 2)}),
    "PairReduceSum": Form((0, 1), {}, {7: (3, 2)}),
    "Brcb": Form((0, 1), {}, {4: (-1, 2)}),
    "Gather": Form((0, 1, 2), {5: 4}, {}, (0,)),
}
# L1 and L0 positions: never Unified Buffer on any chip (CO2 is UB on some chips only).
NOT_UB = {"A1", "A2", "B1", "B2", "C1", "C2", "CO1"}
_ALIGN_256 = {"Compare", "CompareScalar"}
_COUNT_AT_LEAST_1 = {"ReduceSum", "ReduceMax", "ReduceMin"}
# A parameter that cannot hold a count, as the catalog's signatures spell it: a flag, an array
# (`const uint32_t srcShape[]`) or a tensor.
_NOT_A_COUNT = re.compile(r"^(?:const\s+)?bool\b|\[\]|LocalTensor<")


def form_of(ctx: LintContext, name: str) -> Form | None:
    if name in FORMS_BY_NAME:
        return FORMS_BY_NAME[name]
    entry = ctx.catalog.get(name)
    if entry is None or entry.kind.value != "function":
        return None
    return FORMS_BY_GROUP.get(entry.group)


def check_vector_calls(ctx: LintContext) -> Iterator[Diagnostic]:
    for call in ctx.calls:
        if call.receiver is not None:
            continue
        form = form_of(ctx, call.name)
        if form is None:
            continue
        n = len(call.args)
        tensors = []
        for i in form.operands:
            if i < n:
                t = ctx.tensor(call.args[i].expr, call.chunk, call.order)
                tensors.append((t, call.args[i], i))
        for t, arg, _ in tensors:
            if t.kind == "global":
                yield ctx.diag(RuleCode.TENSOR_POSITION.value, Severity.ERROR, arg,
                               f"{call.name} operand {arg.text} is a GlobalTensor; vector "
                               "operands must be LocalTensors in the Unified Buffer")
            elif t.kind == "local" and t.queue is not None and t.queue.positions and (
                    t.queue.positions <= NOT_UB):
                yield ctx.diag(RuleCode.TENSOR_POSITION.value, Severity.ERROR, arg,
                               f"{call.name} operand {arg.text} lives at {t.queue.position} "
                               f"(queue {t.queue.name}, {ctx.model.where(t.queue.decl)}), not in "
                               "the Unified Buffer, where vector instructions read and write")
            yield from check_offset(ctx, call, t, arg)
        yield from _count(ctx, call, form, tensors)
        yield from _mask_repeat(ctx, call, form, tensors)


def _may_be_count(ctx: LintContext, call: Call, idx: int) -> bool:
    """Whether argument `idx` can be the count: not when every catalog overload the call fits
    (by arity and explicit template arguments) takes a flag, an array or a tensor there, as
    `ReduceSum<T, Pattern::Reduce::RA>(dst, src, srcShape, srcInnerPad)` does where the count
    form has its count."""
    entry = ctx.catalog.get(call.name)
    fits = entry.overloads(len(call.args), len(call.template_args)) if entry else []
    return not fits or any(idx < len(p) and not _NOT_A_COUNT.search(p[idx]) for p in fits)


def _count(ctx: LintContext, call: Call, form: Form, tensors) -> Iterator[Diagnostic]:
    idx = form.count_at.get(len(call.args))
    if idx is None or not _may_be_count(ctx, call, idx):
        return
    arg = call.args[idx]
    count = ctx.ev.eval(arg.expr, call.chunk, call.order)
    if count is None:
        return
    if call.name in _COUNT_AT_LEAST_1 and count.hi < 1:
        yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, arg,
                       f"{call.name} count is {count.fmt()}; a reduction needs at least 1 element")
    if call.name in _ALIGN_256 and len(tensors) > 1 and count.exact:
        size = elem_size(ctx, tensors[1][0], call.chunk)
        if size is not None and (count.lo * size.hi) % REPEAT_BYTES:
            # A warning: the NPU runs the last repeat whole (the emulator's compare_lanes_of)
            yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.WARNING, arg,
                           f"{call.name} count {count.fmt()} x {size.hi:g} B = "
                           f"{count.lo * size.hi:g} B is not a multiple of 256 B: the reference "
                           "asks for whole repeats, and the last one runs whole, reading and "
                           "writing past the count")
    counted = form.counted if form.counted is not None else form.operands
    operands = [(t, a, i == 0) for t, a, i in tensors if i in counted]  # 0: dst, written
    yield from count_vs_size(ctx, call, count, arg, operands)


# GatherMask's built-in src1Pattern codes by chip (API reference, GatherMask: 1..7, the Atlas
# inference AI Core 1..6); the emulator's kGatherMaskChips (emu/include/kernelgen/misc.h) agrees.
_GATHER_MASK_TOP_PATTERN = {200: 6}


def check_gather_mask(ctx: LintContext) -> Iterator[Diagnostic]:
    """GatherMask's argument ranges as its API reference states them: a built-in src1Pattern in
    [1, 7] ([1, 6] on the 310P), and in Counter mode (reduceMode true) a mask in [1, 2^32 - 1].
    A Counter-mode mask above one repeat's lanes is legal (A2/A3: mask lanes a repeat; 310P: mask
    lanes in all), so no mask above zero is flagged; Normal mode ignores mask."""
    for call in ctx.calls:
        if call.receiver is not None or call.name != "GatherMask" or len(call.args) < 7:
            continue
        pattern, reduce_mode, mask = call.args[2], call.args[3], call.args[4]
        if ctx.tensor(pattern.expr, call.chunk, call.order).kind != "local":
            code = ctx.ev.eval(pattern.expr, call.chunk, call.order)
            top = _GATHER_MASK_TOP_PATTERN.get(ctx.chip.cce_aicore, 7)
            if code is not None and (code.hi < 1 or code.lo > top):
                yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, pattern,
                               f"GatherMask built-in src1Pattern {code.fmt()} is outside "
                               f"[1, {top}] on {ctx.chip.name} (API reference, GatherMask)")
        counter = ctx.ev.eval(reduce_mode.expr, call.chunk, call.order)
        lanes = ctx.ev.eval(mask.expr, call.chunk, call.order)
        if counter is not None and counter.exact and counter.lo != 0 and lanes is not None \
                and lanes.hi < 1:
            yield ctx.diag(RuleCode.MASK_RANGE.value, Severity.ERROR, mask,
                           f"GatherMask in Counter mode (reduceMode true) takes a mask in "
                           f"[1, 2^32 - 1]; this one is {lanes.fmt()}")


def _mask_repeat(ctx: LintContext, call: Call, form: Form, tensors) -> Iterator[Diagnostic]:
    at = form.mask_repeat_at.get(len(call.args))
    if at is None:
        return
    mask_i, rep_i = at
    rep = ctx.ev.eval(call.args[rep_i].expr, call.chunk, call.order)
    if rep is not None and rep.lo > MAX_REPEAT:
        yield ctx.diag(RuleCode.REPEAT_RANGE.value, Severity.ERROR, call.args[rep_i],
                       f"{call.name} repeatTimes {rep.fmt()} exceeds {MAX_REPEAT} (it is a uint8_t "
                       "and wraps); split the work into several calls")
    if mask_i < 0 or not tensors or "SetMaskCount" in ctx.model.calls_by_name:
        return  # in counter mode (SetMaskCount) the mask is an element count
    mask = ctx.ev.eval(call.args[mask_i].expr, call.chunk, call.order)
    size = elem_size(ctx, tensors[0][0], call.chunk)
    if mask is not None and size is not None and size.lo > 0:
        limit = REPEAT_BYTES // size.hi
        if mask.lo > limit or mask.hi < 0:
            yield ctx.diag(RuleCode.MASK_RANGE.value, Severity.ERROR, call.args[mask_i],
                           f"{call.name} mask {mask.fmt()} exceeds {limit:g} lanes, the number of "
                           f"{size.hi:g}-byte elements in one 256-byte repeat")


# Spellings of the catalog's element types that kernels also use.
_TYPE_ALIASES = {"float16_t": "half", "float32_t": "float", "__bf16": "bfloat16_t"}


def check_dtype_support(ctx: LintContext) -> Iterator[Diagnostic]:
    """An operand the signature types `LocalTensor<T>` whose element type is known here (not a
    template parameter) and not among the catalog's dtypes for the API on this chip: the same
    table the emulator enforces (catalog/dtype_tables.py)."""
    for call in ctx.calls:
        if call.receiver is not None:
            continue
        entry = ctx.catalog.get(call.name)
        if entry is None or entry.kind.value != "function" or not entry.signatures:
            continue
        allowed = entry.dtypes_for(ctx.chip.arch)
        if not allowed:
            continue
        params = [p.strip() for p in entry.signatures[0].split("(", 1)[-1].split(",")]
        for i, param in enumerate(params):
            if i >= len(call.args) or not T_OPERAND.search(param + " "):
                continue
            t = ctx.tensor(call.args[i].expr, call.chunk, call.order)
            if t.kind != "local" or not t.elem_type:
                continue
            elem = clean_type(t.elem_type)
            elem = _TYPE_ALIASES.get(elem, elem)
            if elem in allowed:
                # once per call, on the first operand typed T
                if i == next(j for j, q in enumerate(params) if T_OPERAND.search(q + " ")):
                    yield from _mode_limited(ctx, call, params, elem)
                continue
            if elem not in KNOWN_ELEMENT_TYPES:
                continue
            alike = runs_as_documented_width(call.name, elem, allowed)
            if alike is not None:
                yield ctx.diag(RuleCode.DTYPE_SUPPORT.value, Severity.WARNING, call.args[i],
                               f"{call.name} on {elem} is not among the documented element types "
                               f"on {ctx.chip.name} ({', '.join(allowed)}); its result depends "
                               f"only on the bits, so it computes as on {alike}: "
                               f"ReinterpretCast<{alike}>() (the count in {alike} elements) "
                               "states that")
                break
            yield ctx.diag(RuleCode.DTYPE_SUPPORT.value, Severity.ERROR, call.args[i],
                           f"{call.name} has no {elem} form on {ctx.chip.name}: the documented "
                           f"element types are {', '.join(allowed)} (Cast to one of them first)")
            break


def _mode_limited(
    ctx: LintContext, call: Call, params: list[str], elem: str
) -> Iterator[Diagnostic]:
    """An element type the API documents for some modes only (catalog/tables/mode_limited.json,
    the table the emulator enforces too): an error when the mode argument names another mode; a
    mode held in a variable is not proved."""
    limit = mode_limit(call.name, elem, ctx.chip.arch)
    if limit is None:
        return
    at = next((i for i, p in enumerate(params) if p.split()[-1:] == [limit.argument]), None)
    if at is None or at >= len(call.args):
        return
    mode = call.args[at].text.replace(" ", "").rsplit("::", 1)[-1]
    if not mode.isupper() or mode in limit.modes:
        return
    yield ctx.diag(RuleCode.DTYPE_SUPPORT.value, Severity.ERROR, call.args[at],
                   f"{call.name} on {elem} has a form on {ctx.chip.name} only for "
                   f"{limit.argument} {', '.join(limit.modes)} (API reference); {mode} is not one: "
                   "Cast to a type every mode takes first")


def _local_elem(ctx: LintContext, call: Call, i: int) -> str | None:
    """The concrete element type of argument `i` when it is a LocalTensor of a known type."""
    t = ctx.tensor(call.args[i].expr, call.chunk, call.order)
    if t.kind != "local" or not t.elem_type:
        return None
    elem = clean_type(t.elem_type)
    elem = _TYPE_ALIASES.get(elem, elem)
    return elem if elem in KNOWN_ELEMENT_TYPES else None


def check_cast_support(ctx: LintContext) -> Iterator[Diagnostic]:
    """`Cast(dst, src, RoundMode::X, ...)` with concrete element types whose pair, or whose
    RoundMode, the chip's documented Cast table lacks (catalog/tables/cast_modes.json, the
    table the emulator enforces); a warning for a pair the chip converts through SetDeqScale's
    register in a file that never calls SetDeqScale (it may be set elsewhere)."""
    sets_deq_scale = any(c.name == "SetDeqScale" for c in ctx.calls)
    for call in ctx.calls:
        if call.name != "Cast" or call.receiver is not None or len(call.args) < 4:
            continue
        dst, src = _local_elem(ctx, call, 0), _local_elem(ctx, call, 1)
        if dst is None or src is None:
            continue
        mode = call.args[2].text.replace(" ", "").rsplit("::", 1)[-1]
        mode = mode if mode.startswith("CAST_") else None
        problem = cast_problem(ctx.chip.arch, src, dst, mode, ctx.chip.name)
        if problem is None:
            if through_deq_scale(ctx.chip.arch, src, dst) and not sets_deq_scale:
                yield ctx.diag(RuleCode.DTYPE_SUPPORT.value, Severity.WARNING, call.args[1],
                               f"Cast {src} -> {dst} on {ctx.chip.name} multiplies by the scale "
                               "SetDeqScale(half) sets (roundMode has no effect), and this file "
                               "never calls SetDeqScale")
            continue
        pair_ok = cast_problem(ctx.chip.arch, src, dst, None) is None
        yield ctx.diag(RuleCode.DTYPE_SUPPORT.value, Severity.ERROR,
                       call.args[2] if pair_ok else call.args[1],
                       f"{problem}: the NPU rejects it")


KNOWN_ELEMENT_TYPES = {"half", "float", "bfloat16_t", "int8_t", "uint8_t", "int16_t", "uint16_t",
                       "int32_t", "uint32_t", "int64_t", "uint64_t"}
