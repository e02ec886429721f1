"""Checks shared by the copy and vector rules."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.chips import BLOCK_BYTES
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import LintContext, TensorRef, elem_size
from ascend_tools.parse.evaluate import Value
from ascend_tools.parse.facts import Arg, Call


def check_offset(ctx: LintContext, call: Call, t: TensorRef, arg: Arg) -> Iterator[Diagnostic]:
    """`local[off]` as an operand needs off * sizeof(T) to be a multiple of 32 bytes."""
    if t.kind != "local" or t.offset is None:
        return
    off = ctx.ev.eval(t.offset, call.chunk, call.order)
    size = elem_size(ctx, t, call.chunk)
    if off is None or size is None or not off.exact:
        return
    for s in sorted({size.lo, size.hi}):
        if (off.lo * s) % BLOCK_BYTES:
            yield ctx.diag(
                RuleCode.UB_OFFSET_ALIGN.value, Severity.ERROR, arg,
                f"UB operand {arg.text} starts {off.fmt()} elements x {s:g} B = "
                f"{off.lo * s:g} B into the buffer; UB addresses must be 32-byte aligned")
            return


def count_vs_size(ctx: LintContext, call: Call, count: Value, count_arg: Arg,
                  operands: list[tuple[TensorRef, Arg, bool]]) -> Iterator[Diagnostic]:
    """A count past an operand's elements. Writing past it overwrites bytes another buffer owns:
    an error. Reading past it reads the UB bytes that follow, as the NPU does (it checks no
    LocalTensor length) and the emulator does too: a warning, since the kernel may drop those
    lanes (the emulator's `past_tensor`). Operands are (tensor, argument, written)."""
    for t, arg, written in operands:
        size = ctx.tensor_size(t, call.chunk, call.order)
        if size is None:
            continue
        offset = ctx.ev.eval(t.offset, call.chunk, call.order) if t.offset is not None else None
        avail = size.hi - (offset.lo if offset is not None else 0)
        if count.lo > avail:
            why = size.why(2)
            text = (f"{call.name} count {count.fmt()} exceeds the {avail:g} elements of "
                    f"{arg.text}" + (f" (buffer: {why})" if why else ""))
            if written or t.kind != "local":
                yield ctx.diag(RuleCode.COUNT_EXCEEDS_TENSOR.value, Severity.ERROR, count_arg,
                               text)
                return
            yield ctx.diag(RuleCode.COUNT_EXCEEDS_TENSOR.value, Severity.WARNING, count_arg,
                           text + ": it reads the UB bytes that follow, as the NPU does, and the "
                           "lanes from there hold whatever lies there")
