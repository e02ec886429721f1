"""The cube path's memories (docs/ASCENDC_SPEC.md sections 3, 5 and 6).

Capacity: InitBuffer on A1/B1/C1/TSCM adds up in L1, on A2 in L0A, B2 in L0B, CO1 in L0C, C2 in
the bias table (BT), each against the chip's size (`ascend_tools/data/chips.json`), summed the
way the UB rule sums UB positions. Layout: LoadData/Mmad/Fixpipe/InitConstValue operands and
Matmul's L1 operands start on their memory's alignment (`CUBE_START_ALIGN`), MmadParams m/n/k
stay in their 12-bit fields and LoadData3DParamsV2 fields in their documented ranges; only
constants that prove the fault are reported (the emulator checks the rest at run time)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ascend_tools.chips import CUBE_POSITION_MEMORY, CUBE_START_ALIGN, MMAD_MAX_MNK
from ascend_tools.diagnostics import Diagnostic, RuleCode, Severity
from ascend_tools.lint.context import InitBuf, LintContext, elem_size
from ascend_tools.lint.rules.ub import buffers_total, by_unit, wrap_note, wrapped_aliases
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
    "bt_bytes": ("BT", RuleCode.L0_OVERFLOW),  # the emulator's TPipe reports it so too
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
    size = getattr(ctx.chip, field)
    if not size or total.hi <= size:  # no bias table, or its size undocumented: no verdict here
        return
    name, code = _MEMORIES[field]
    aliases = wrapped_aliases(ctx, bufs, size)
    sure = total.lo > size and not aliases
    positions = sorted({ib.queue.position for ib in bufs if ib.queue is not None})
    detail = "; ".join(parts) + (f" ({'; '.join(notes[:_MAX_NOTES])})" if notes else "")
    amount = f"{total.fmt()} B" if total.exact else f"up to {total.hi:g} B"
    anchor = max(bufs, key=lambda ib: ib.bytes.hi if ib.bytes else 0).call
    yield ctx.diag(
        code.value, Severity.ERROR if sure else Severity.WARNING, anchor,
        f"{name} {'overflow' if sure else 'may overflow'} on {ctx.chip.name}: InitBuffer on "
        f"{'/'.join(positions)} totals {amount} ({total.hi / 1024:g} KB), more than the "
        f"{size} B ({size / 1024:g} KB) of {name}: {detail}"
        + (wrap_note(ctx, aliases, name) if aliases else ""))


# Cube-path APIs -> how many leading arguments are on-chip operands (the rest are params).
# Matmul's SetTensorA/SetTensorB take an L1 (TSCM) operand as their first argument; a GM one
# is not a local tensor and is skipped.
_CUBE_OPERANDS: dict[str, int] = {
    "LoadData": 2, "LoadDataWithTranspose": 2, "Mmad": 3, "Fixpipe": 2, "InitConstValue": 1,
    "SetTensorA": 1, "SetTensorB": 1,
}
_MMAD_FIELDS = ("m", "n", "k")
# Documented ranges of LoadData3DParamsV2 fields (AscendC API reference, Load3D, table 4;
# CANN 8.5 atlasascendc_api_07_00170); the emulator's img2col.h checks the same at run time.
LOAD3D_RANGES: dict[str, tuple[int, int]] = {
    "l1H": (1, 32767), "l1W": (1, 32767), "kExtension": (1, 65535), "mExtension": (1, 65535),
    "strideW": (1, 63), "strideH": (1, 63), "filterW": (1, 255), "filterH": (1, 255),
    "dilationFilterW": (1, 255), "dilationFilterH": (1, 255),
}


def check_cube_operands(ctx: LintContext) -> Iterator[Diagnostic]:
    for call in ctx.calls:
        n = _CUBE_OPERANDS.get(call.name)
        if n is None or len(call.args) < n:
            continue
        if call.name == "Mmad" and len(call.args) == 5:
            n += 1  # Mmad(dst, fm, filter, bias, params): the bias is an operand too
        for arg in call.args[:n]:
            yield from _start_align(ctx, call, arg)
        if call.name == "Mmad":
            yield from _mmad_range(ctx, call)
        if call.name == "LoadData":
            yield from _load3d_range(ctx, call)


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


def _load3d_range(ctx: LintContext, call: Call) -> Iterator[Diagnostic]:
    """Constants assigned to the fields of a LoadData3DParamsV2 local outside their documented
    range (Load3D would be refused by the toolchain's checks or misread by the hardware)."""
    arg = call.args[-1]
    if arg.expr[0] != "id":
        return
    d = ctx.model.variable_decl(call.chunk, arg.expr[1], call.order)
    if d is None or d.type_base != "LoadData3DParamsV2":
        return
    for name, v in _assigned_fields(ctx, call, arg.expr[1], tuple(LOAD3D_RANGES)).items():
        lo, hi = LOAD3D_RANGES[name]
        if v.lo < lo or v.hi > hi:
            yield ctx.diag(
                RuleCode.PARAM_RANGE.value, Severity.ERROR, call,
                f"LoadData (Load3Dv2) {name} = {v.fmt()} is outside [{lo}, {hi}] "
                "(AscendC Load3D, LoadData3DParamsV2)")


def _mmad_fields(ctx: LintContext, call: Call, arg: Arg) -> dict[str, Value]:
    """m, n, k of the call's MmadParams where they are known: `MmadParams(m, n, k, ...)` or
    `{m, n, k, ...}` inline or in the declaration of a local, then constants assigned to its
    fields before the call."""
    texts = dict(zip(_MMAD_FIELDS, _ctor_args(arg.text), strict=False))
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
    if var is not None:
        out = _assigned_fields(ctx, call, var, _MMAD_FIELDS, base=out)
    return out


def _assigned_fields(ctx: LintContext, call: Call, var: str, fields: tuple[str, ...],
                     base: dict[str, Value] | None = None) -> dict[str, Value]:
    """`var.field = value` before the call in its function, outside any branch; a field also
    assigned on a branch (or with `+=`) is left out: its value at the call is not proven."""
    out = dict(base or {})
    for a in sorted(call.chunk.assigns, key=lambda a: a.order):
        if a.order >= call.order or a.target[0] != "f" or a.target[1] != ("id", var) \
                or a.target[2] not in fields:
            continue
        v = ctx.ev.eval(a.value, call.chunk, a.order) if a.op == "=" and not a.in_branch else None
        if v is None or not v.exact:
            out.pop(a.target[2], None)
        else:
            out[a.target[2]] = v
    return out


def _ctor_args(text: str) -> list[str]:
    """The arguments of `MmadParams(a, b, c)`, `(a, b, c)` or `{a, b, c}` (nothing otherwise)."""
    m = re.fullmatch(r"\s*(?:MmadParams\s*)?[({](.*)[)}]\s*;?\s*", text, re.S)
    return [x.strip() for x in m.group(1).split(",")] if m else []


# ---------------------------------------------------------------- the Matmul API's own share
# TCubeTiling fields that size a Matmul object's L1 and L0 use (TCubeTiling, AscendC API
# reference: depthA1 base blocks of baseM x baseK in A1, depthB1 of baseN x baseK in B1, the
# bias row of baseN; one Mmad's baseM x baseK in L0A, baseK x baseN in L0B, baseM x baseN of
# float/int32 in L0C). The emulator's Matmul::reserve_share takes the same from its TPipe.
_TILING_FIELDS = ("baseM", "baseN", "baseK", "depthA1", "depthB1", "isBias")
_L0C_ELEM_BYTES = 4
_MATMUL_TYPE = re.compile(r"(?:\w+::)*MatmulType\s*<(.*)>\s*$", re.S)


def check_matmul_share(ctx: LintContext) -> Iterator[Diagnostic]:
    """For REGIST_MATMUL_OBJ whose TCubeTiling fields are constants in the kernel: base blocks
    off the fractal layout, and the objects' L1/L0 share (with the user's L1 InitBuffer of the
    same kernel) past the chip's memories. A tiling from the host is not judged here: the
    emulator checks it at run time."""
    for call in ctx.calls:
        if call.name != "REGIST_MATMUL_OBJ" or len(call.args) < 4:
            continue
        shares: list[_Share] = []
        for obj, tiling in zip(call.args[2::2], call.args[3::2], strict=False):
            share = _share_of(ctx, call, obj, tiling)
            if share is None:
                continue
            yield from _base_fractals(ctx, call, share)
            shares.append(share)
        yield from _share_capacity(ctx, call, shares)


class _Share:
    """One Matmul object's constant tiling fields and operand element sizes (None: unknown)."""

    def __init__(self, obj: str, tiling: str, fields: dict[str, int],
                 sizes: tuple[int | None, int | None, int | None]) -> None:
        self.obj, self.tiling, self.f = obj, tiling, fields
        self.sa, self.sb, self.sbias = sizes

    def known(self, *names: str) -> bool:
        return all(n in self.f for n in names)


def _share_of(ctx: LintContext, call: Call, obj: Arg, tiling: Arg) -> _Share | None:
    m = re.fullmatch(r"&\s*([A-Za-z_]\w*)", tiling.text.strip())
    if m is None:
        return None
    values = _assigned_fields(ctx, call, m.group(1), _TILING_FIELDS)
    if not values:
        return None
    fields = {k: int(v.lo) for k, v in values.items()}
    return _Share(obj.text.strip(), m.group(1), fields, _operand_sizes(ctx, call, obj))


def _operand_sizes(ctx: LintContext, call: Call,
                   obj: Arg) -> tuple[int | None, int | None, int | None]:
    """sizeof the A, B and bias element types of `Matmul<A, B, C[, BIAS]>` (MatmulType
    arguments given inline or through a `using` alias in the file); bias defaults to float."""
    out: list[int | None] = [None, None, 4]
    if obj.expr[0] != "id":
        return out[0], out[1], out[2]
    d = ctx.model.variable_decl(call.chunk, obj.expr[1], call.order)
    if d is None or d.type_base != "Matmul":
        return out[0], out[1], out[2]
    text = ctx.source(d.chunk.file, d.start, d.end)
    args = _template_args(text.split("<", 1)[1].rsplit(">", 1)[0]) if "<" in text else []
    whole = ctx.source(d.chunk.file, 0, len(ctx.model.documents[d.chunk.file].data))
    for i, k in ((0, 0), (1, 1), (3, 2)):
        if i >= len(args):
            continue
        elem = _matmul_elem(args[i], whole)
        size = ctx.ev.type_size(elem, call.chunk) if elem else None
        out[k] = int(size.lo) if size is not None and size.exact else None
    return out[0], out[1], out[2]


def _matmul_elem(arg: str, file_text: str) -> str | None:
    """The element type (third argument) of `MatmulType<pos, format, T, ...>` or of an alias."""
    m = _MATMUL_TYPE.fullmatch(arg.strip())
    if m is None:
        alias = re.search(rf"\busing\s+{re.escape(arg.strip())}\s*=\s*([^;]+);", file_text)
        m = _MATMUL_TYPE.fullmatch(alias.group(1).strip()) if alias else None
    parts = _template_args(m.group(1)) if m else []
    return parts[2] if len(parts) > 2 else None


def _template_args(text: str) -> list[str]:
    """Top-level comma-separated arguments of a template argument list."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "<") - (ch == ">")
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*out, cur.strip()] if cur.strip() else out


def _base_fractals(ctx: LintContext, call: Call, s: _Share) -> Iterator[Diagnostic]:
    units = {"baseM": 16, "baseN": 16}
    if s.sa:
        units["baseK"] = 32 // s.sa
    for name, unit in units.items():
        v = s.f.get(name)
        if v and v % unit:
            yield ctx.diag(
                RuleCode.FRACTAL_ALIGN.value, Severity.ERROR, call,
                f"Matmul {s.obj}: {s.tiling}.{name} = {v} is not a multiple of {unit}; one "
                "Mmad's baseM and baseN go in 16-row fractals and baseK in C0 = 32 B / "
                "sizeof(A) elements (TCubeTiling: base blocks follow the fractal layout)")


def _share_capacity(ctx: LintContext, call: Call, shares: list[_Share]) -> Iterator[Diagnostic]:
    """L0A/L0B/L0C: one Mmad's block against each memory; L1: the objects' A1/B1/bias blocks
    plus the user's L1 InitBuffer of the same kernel, when the user's alone fit."""
    for s in shares:
        blocks = (("L0A", "l0a_bytes", ("baseM", "baseK"), s.sa),
                  ("L0B", "l0b_bytes", ("baseK", "baseN"), s.sb),
                  ("L0C", "l0c_bytes", ("baseM", "baseN"), _L0C_ELEM_BYTES))
        for memory, field, dims, size in blocks:
            if size is None or not s.known(*dims):
                continue
            need = s.f[dims[0]] * s.f[dims[1]] * size
            cap = int(getattr(ctx.chip, field))
            if need > cap:
                yield ctx.diag(
                    RuleCode.L0_OVERFLOW.value, Severity.ERROR, call,
                    f"{memory} overflow on {ctx.chip.name}: Matmul {s.obj} computes "
                    f"{dims[0]} x {dims[1]} = {s.f[dims[0]]} x {s.f[dims[1]]} x {size} B = "
                    f"{need} B per Mmad ({s.tiling}), more than the {cap} B of {memory}")
    parts: list[str] = []
    total = 0
    for s in shares:
        if s.sa is None or s.sb is None or not s.known("baseM", "baseN", "baseK", "depthA1",
                                                        "depthB1"):
            return
        f = s.f
        a1 = f["depthA1"] * f["baseM"] * f["baseK"] * s.sa
        b1 = f["depthB1"] * f["baseN"] * f["baseK"] * s.sb
        bias = f["baseN"] * (s.sbias or 4) if f.get("isBias") else 0
        total += a1 + b1 + bias
        parts.append(f"Matmul {s.obj} ({s.tiling}): A1 depthA1 x baseM x baseK = "
                     f"{f['depthA1']} x {f['baseM']} x {f['baseK']} x {s.sa} B = {a1} B, B1 "
                     f"depthB1 x baseN x baseK = {f['depthB1']} x {f['baseN']} x "
                     f"{f['baseK']} x {s.sb} B = {b1} B" + (f", bias {bias} B" if bias else ""))
    if not parts:
        return
    unit = ctx.model.unit_of(call.chunk)
    mine = [ib for ib in ctx.init_buffers if _memory_of(ib) == "l1_bytes"
            and ctx.model.unit_of(ib.call.chunk) == unit]
    user, user_parts, _ = buffers_total(ctx.ev, mine) if mine else (Value(0, 0), [], [])
    if user is None:
        return
    size = int(ctx.chip.l1_bytes)
    if user.hi > size or total + user.hi <= size:
        return  # the user's buffers alone overflow (check_cube_capacity says so), or all fit
    sure = total + user.lo > size
    yield ctx.diag(
        RuleCode.L1_OVERFLOW.value, Severity.ERROR if sure else Severity.WARNING, call,
        f"L1 {'overflow' if sure else 'may overflow'} on {ctx.chip.name}: the Matmul API's own "
        f"share from its TCubeTiling, {total} B ({'; '.join(parts)}), plus InitBuffer on L1 "
        f"positions, {user.fmt()} B" + (f" ({'; '.join(user_parts)})" if user_parts else "")
        + f", is more than the {size} B ({size / 1024:g} KB) of L1")
