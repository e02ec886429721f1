"""DataCopy / DataCopyPad rules: 32-byte alignment (7.3), positions (7.7), count vs tensor
size (7.8), UB offsets (7.4)."""

from __future__ import annotations

from collections.abc import Iterator

from ascend_tools.chips import BLOCK_BYTES
from ascend_tools.diagnostics import Diagnostic, Fix, RuleCode, Severity
from ascend_tools.lint.context import LintContext, TensorRef, elem_size
from ascend_tools.lint.multiples import CountFacts
from ascend_tools.lint.rules.common import check_offset, count_vs_size
from ascend_tools.parse.consts import parse_value_text
from ascend_tools.parse.evaluate import Value
from ascend_tools.parse.facts import Call

_MAX_BLOCK_COUNT = 4095


def check_data_copies(ctx: LintContext) -> Iterator[Diagnostic]:
    for call in ctx.calls:
        if call.name not in ("DataCopy", "DataCopyPad") or len(call.args) < 3:
            continue
        dst = ctx.tensor(call.args[0].expr, call.chunk, call.order)
        src = ctx.tensor(call.args[1].expr, call.chunk, call.order)
        yield from _positions(ctx, call, dst, src)
        for t, arg in ((dst, call.args[0]), (src, call.args[1])):
            yield from check_offset(ctx, call, t, arg)
        if call.name == "DataCopy":
            yield from _count_form(ctx, call, dst, src)
            yield from _gm_extent(ctx, call, dst, src)
        yield from _params(ctx, call)


# Positions a copy provably cannot use (L0 buffers are filled by LoadData/Mmad and drained by
# Fixpipe, never by DataCopy to or from GM): errors. UB positions whose queue synchronises
# the other direction work on the device but defeat the queue's events: warnings.
_GM_TO_LOCAL: dict[str, Severity] = {
    "A2": Severity.ERROR, "B2": Severity.ERROR, "CO1": Severity.ERROR, "C2": Severity.ERROR,
    "VECOUT": Severity.WARNING,
}
_LOCAL_TO_GM: dict[str, Severity] = {
    "A2": Severity.ERROR, "B2": Severity.ERROR, "C2": Severity.ERROR, "VECIN": Severity.WARNING,
}
_PAD_ALSO = {"VECOUT"}  # DataCopyPad may write a VECOUT tensor from GM


def _position_severity(table: dict[str, Severity], positions: set[str],
                       skip: set[str]) -> Severity | None:
    """The mildest verdict over every position a queue's tensors take (a TQueBind has two)."""
    verdicts = [table.get(p) for p in positions - skip]
    if not verdicts or None in verdicts:
        return None
    return Severity.WARNING if Severity.WARNING in verdicts else Severity.ERROR


def _positions(
    ctx: LintContext, call: Call, dst: TensorRef, src: TensorRef
) -> Iterator[Diagnostic]:
    if dst.kind == "local" and src.kind == "global" and dst.queue is not None and (
            dst.queue.kind != "TBuf"):
        q = dst.queue
        sev = _position_severity(_GM_TO_LOCAL, q.positions,
                                 _PAD_ALSO if call.name == "DataCopyPad" else set())
        if sev is not None:
            yield ctx.diag(
                RuleCode.TENSOR_POSITION.value, sev, call,
                f"{call.name} GM -> {q.position} writes into {call.args[0].text}, a tensor of "
                f"queue {q.name} ({ctx.model.where(q.decl)}) at position {q.position}; "
                + ("DataCopy cannot write that buffer from GM" if sev == Severity.ERROR else
                   "copies into UB target VECIN queues, whose EnQue/DeQue order MTE2 before "
                   "the vector unit"))
    if dst.kind == "global" and src.kind == "local" and src.queue is not None and (
            src.queue.kind != "TBuf"):
        q = src.queue
        sev = _position_severity(_LOCAL_TO_GM, q.positions, set())
        if sev is not None:
            yield ctx.diag(
                RuleCode.TENSOR_POSITION.value, sev, call,
                f"{call.name} {q.position} -> GM reads {call.args[1].text}, a tensor of queue "
                f"{q.name} ({ctx.model.where(q.decl)}) at position {q.position}; "
                + ("DataCopy cannot read that buffer out to GM" if sev == Severity.ERROR else
                   "copies out to GM come from VECOUT queues, whose EnQue/DeQue order the "
                   "vector unit before MTE3"))


def _count_form(
    ctx: LintContext, call: Call, dst: TensorRef, src: TensorRef
) -> Iterator[Diagnostic]:
    count_arg = call.args[2]
    if count_arg.text.lstrip().startswith("{") or _is_params(ctx, call, count_arg.expr):
        return
    local = dst if dst.kind == "local" else src
    if local.kind != "local":
        return
    count = ctx.ev.eval(count_arg.expr, call.chunk, call.order)
    size = elem_size(ctx, local, call.chunk)
    if size is None:
        return
    if count is not None:
        yield from count_vs_size(ctx, call, count, count_arg, [(dst, call.args[0], True),
                                                               (src, call.args[1], False)])
    if count is None or not count.exact:
        yield from _maybe_unaligned(ctx, call, dst, src, size)
        return
    nbytes_lo = count.lo * size.lo
    nbytes_hi = count.lo * size.hi
    bad_sizes = sorted({s for s in (size.lo, size.hi) if (count.lo * s) % BLOCK_BYTES})
    if not bad_sizes:
        return
    s = bad_sizes[0]
    why = count.why(3)
    nbytes = count.lo * s
    yield ctx.diag(
        RuleCode.DATACOPY_ALIGN.value, Severity.ERROR, call,
        f"DataCopy of {count.fmt()} elements x {s:g} B = {nbytes:g} B is not a multiple of 32 B; "
        f"on the NPU the unaligned tail is silently dropped"
        + (f" (count: {why})" if why else "")
        + (f"; with the larger dtype it is {nbytes_hi:g} B" if nbytes_hi != nbytes_lo else ""),
        _to_datacopypad(ctx, call, dst, src),
        start=call.abs_name_start, end=call.end,
    )


def _maybe_unaligned(ctx: LintContext, call: Call, dst: TensorRef, src: TensorRef,
                     size: Value) -> Iterator[Diagnostic]:
    """A count with no single value that comes from a remainder (a tail tile of a runtime
    length) and that nothing rounds to whole blocks: it may be unaligned (a warning)."""
    arg = call.args[2]
    facts = CountFacts(ctx)
    tail = facts.tail(arg.expr, call.chunk)
    if tail is None:
        return
    multiple = facts.multiple(arg.expr, call.chunk)
    sizes = sorted({int(size.lo), int(size.hi)})
    unproved = [s for s in sizes if not multiple.aligned(s)]
    if not unproved:
        return
    s = unproved[0]
    yield ctx.diag(
        RuleCode.DATACOPY_ALIGN.value, Severity.WARNING, call,
        f"the count of this DataCopy, {arg.text}, is a tail ({tail}) that need not be a "
        f"multiple of {BLOCK_BYTES // s} elements ({BLOCK_BYTES} B of {s}-byte elements); "
        "when it is not, the NPU silently drops the unaligned end. DataCopyPad copies "
        "byte-exact lengths",
        _to_datacopypad(ctx, call, dst, src), start=call.abs_name_start, end=call.end)


def _is_params(ctx: LintContext, call: Call, expr) -> bool:
    if expr[0] != "id":
        return False
    d = ctx.model.variable_decl(call.chunk, expr[1], call.order)
    return d is not None and "Params" in d.type_base


def _to_datacopypad(ctx: LintContext, call: Call, dst: TensorRef, src: TensorRef) -> Fix | None:
    if not ctx.chip.has_datacopypad:
        return None
    local = dst if dst.kind == "local" else src
    t = local.elem_type or "T"
    a = [x.text for x in call.args]
    ext = (f"AscendC::DataCopyExtParams{{1, static_cast<uint32_t>(({a[2]}) * sizeof({t})), "
           "0, 0, 0}")
    if dst.kind == "local" and src.kind == "global":
        pad = f"AscendC::DataCopyPadExtParams<{t}>{{false, 0, 0, 0}}"
        new = f"DataCopyPad({a[0]}, {a[1]}, {ext}, {pad})"
    elif dst.kind == "global" and src.kind == "local":
        new = f"DataCopyPad({a[0]}, {a[1]}, {ext})"
    else:
        return None
    return Fix(title="Use DataCopyPad, which copies byte-exact lengths",
               edits=[ctx.edit(call.chunk.file, call.abs_name_start, call.end, new)])


def _params(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """blockCount of DataCopyParams / DataCopyExtParams given inline or through a variable."""
    arg = call.args[2]
    fields = None
    if arg.text.lstrip().startswith("{"):
        fields = [x.strip() for x in arg.text.strip().strip("{}").split(",")]
    elif arg.expr[0] == "id":
        d = ctx.model.variable_decl(call.chunk, arg.expr[1], call.order)
        if d is not None and "Params" in d.type_base:
            src = ctx.source(d.chunk.file, d.start, d.end)
            if "{" in src:
                fields = [x.strip() for x in src.split("{", 1)[1].split("}", 1)[0].split(",")]
    if not fields or not fields[0]:
        return
    v = ctx.ev.eval(parse_value_text(fields[0]), call.chunk, call.order)
    if v is not None and v.lo > _MAX_BLOCK_COUNT:
        yield ctx.diag(RuleCode.PARAM_RANGE.value, Severity.ERROR, call,
                       f"{call.name} blockCount {v.fmt()} exceeds {_MAX_BLOCK_COUNT}")


def _gm_extent(
    ctx: LintContext, call: Call, dst: TensorRef, src: TensorRef
) -> Iterator[Diagnostic]:
    """Rule 14: a copy stays inside the extent SetGlobalBuffer gave its GlobalTensor (checked
    when the count is exact; the offset may be a range, e.g. over a tile loop). A copy past it
    is a `gm-extent` warning, as in the emulator: the NPU does not check the extent, and real
    kernels move a tensor's later rows through a one-row extent; the fault is past the
    allocation, which is not known here."""
    g, arg, verb = (dst, call.args[0], "writes") if dst.kind == "global" else (
        (src, call.args[1], "reads") if src.kind == "global" else (None, None, ""))
    if g is None or arg is None or _is_params(ctx, call, call.args[2].expr):
        return
    name = arg.expr[1] if arg.expr[0] == "ix" else arg.expr
    var = name[1] if name[0] == "id" else (name[2] if name[0] == "f" else None)
    if var is None:
        return
    unit = ctx.model.unit_of(call.chunk)
    sets = [c for c in ctx.model.calls_by_name.get("SetGlobalBuffer", [])
            if c.receiver_name == var and ctx.model.unit_of(c.chunk) == unit]
    moved = [a for c in ctx.model.methods(call.chunk.class_name) if call.chunk.class_name
             for a in c.assigns if a.target in (("id", var), ("f", ("this",), var))]
    if len(sets) != 1 or len(sets[0].args) < 2 or moved:
        return
    setter = sets[0]
    extent = ctx.ev.eval(setter.args[1].expr, setter.chunk, setter.order)
    count = ctx.ev.eval(call.args[2].expr, call.chunk, call.order)
    offset = ctx.ev.eval(g.offset, call.chunk, call.order) if g.offset is not None else None
    if g.offset is not None and offset is None:
        return
    if extent is None or count is None or not extent.exact or not count.exact:
        return
    start_hi = offset.hi if offset is not None else 0
    if start_hi + count.lo > extent.lo:
        why = "; ".join(x for x in ((offset.why(3) if offset else ""), count.why(2)) if x)
        yield ctx.diag(
            RuleCode.GM_EXTENT.value, Severity.WARNING, call,
            f"{call.name} {verb} {arg.text} (offset "
            f"{offset.fmt() if offset is not None else 0}, {count.fmt()} elements) up to element "
            f"{start_hi + count.lo:g}, past the "
            f"{extent.fmt()} elements SetGlobalBuffer gave {var} ({ctx.model.where(setter)})"
            + (f" ({why})" if why else "")
            + "; the NPU does not check that size, so this is a fault only past the tensor's "
            "allocation",
            start=call.abs_name_start, end=call.end)
