"""WindowPlan (pooling) -> operator project files (tiling header, host, kernel)."""

from __future__ import annotations

from typing import NamedTuple

from ascend_tools.catalog import load_catalog
from ascend_tools.chips import Chip
from kernelgen_lm.lower.host import (
    BLOCK_DIM_LINES,
    PLATFORM_LINES,
    TILING_END_LINES,
    UB_RESERVE,
    io_param,
    registration,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE, KernelEmitter, narrowing_mode
from kernelgen_lm.plan.window import WindowPlan

FIELDS = [
    ("planes", "leading dims flattened (N*C...)"),
    ("inD", "input depth"),
    ("inH", "input height"),
    ("inW", "input width"),
    ("outD", "output depth"),
    ("outH", "output height"),
    ("outW", "output width"),
    ("rowLen", "UB tile length: one input row and one output row fit (multiple of 64)"),
    ("winLen", "window tile: neutral slots, the input row, neutral slots (x64; vector path)"),
    ("unitsPerCore", "output rows of a small core"),
    ("bigCores", "cores that take one output row more"),
]
NEUTRAL = {"max": "-3.402823466e+38f", "avg": "0.0f"}  # what a padded slot adds to the window
VECTOR_APIS = ("Gather", "CreateVecIndex")  # what the vector window path calls


def vector_window(chip: Chip) -> bool:
    """Whether the window is gathered on the vector unit: the chip's arch has every API the
    vector path calls (the catalog's per-arch support); else the scalar window path."""
    catalog = load_catalog()
    return all(catalog.get(name).supports_arch(chip.arch) for name in VECTOR_APIS)


def lead_slots(p: WindowPlan) -> int:
    """Neutral slots before the input row in the window tile: the left padding rounded up to
    whole 32-byte blocks of float, so the row itself starts block aligned for Cast/Muls."""
    return (p.padding[2] + 7) // 8 * 8


def window_tiling_header(p: WindowPlan) -> str:
    return tiling_header_text(
        p.op_name, p.kernel_name, " (pooling): runtime sizes and the core split.", FIELDS
    )


def window_host(p: WindowPlan, chip: Chip) -> str:
    planes = [f"Dim(context, {d})" for d in range(len(p.in_shape)) if d not in p.spatial]
    sizes = [f"Dim(context, {d})" if d >= 0 else "1" for d in p.spatial]
    lead = lead_slots(p)
    kw, sw, pw, dw = p.kernel[2], p.stride[2], p.padding[2], p.dilation[2]
    if vector_window(chip):
        # Per rowLen element: in/out queues (double buffered) + float acc, gather scratch, byte
        # offsets (+ the avg divisors); the window tile (winLen floats) comes on top.
        bpe = 2 * DSIZE[p.dtype] * 2 + 4 * (3 if p.op == "max" else 4)
        note = [
            "    // One whole input row and one output row live in UB at a time; the window tile "
            "holds",
            "    // the input row between neutral slots that every padded window position reads.",
        ]
        win_len = [
            "    uint64_t lastOw = outW > 0 ? outW - 1 : 0;",
            f"    uint64_t lastSlot = {lead - pw} + lastOw * {sw} + {(kw - 1) * dw};",
            f"    uint64_t winSpan = lastSlot + 1 > {lead} + inW ? lastSlot + 1 : {lead} + inW;",
            "    uint64_t winLen = (winSpan + 63) / 64 * 64;",
        ]
    else:
        bpe = 2 * DSIZE[p.dtype] * 2 + 4 * 2  # in/out queues + the float row and acc tiles
        note = ["    // One whole input row and one output row live in UB at a time."]
        win_len = ["    uint64_t winLen = 0;  // no window tile: the scalar unit reads rows"]
    L = [
        f"// Host side of {p.op_name}: {p.op} pooling, tiling from the runtime input shape.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        f"constexpr uint64_t BYTES_PER_ELEM = {bpe};",
        f"constexpr uint64_t UB_RESERVE = {UB_RESERVE};",
        "",
        "static uint64_t Dim(gert::TilingContext* context, uint32_t dim)",
        "{",
        "    auto shape = context->GetInputShape(0)->GetStorageShape();",
        "    return static_cast<uint64_t>(shape.GetDim(dim));",
        "}",
        "",
        "// torch's output size: floor (or ceil) of the sliding window count; in ceil mode the",
        "// last window must start inside the input or its left padding.",
        "static uint64_t OutSize(uint64_t in, int64_t k, int64_t s, int64_t pad, int64_t dil,",
        "                        bool ceil)",
        "{",
        "    int64_t span = static_cast<int64_t>(in) + 2 * pad - dil * (k - 1) - 1;",
        "    int64_t o = (span + (ceil ? s - 1 : 0)) / s + 1;",
        "    if (ceil && (o - 1) * s >= static_cast<int64_t>(in) + pad) {",
        "        o -= 1;",
        "    }",
        "    return o > 0 ? static_cast<uint64_t>(o) : 0;",
        "}",
        "",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        f"    uint64_t planes = {' * '.join(planes) if planes else '1'};",
        f"    uint64_t inD = {sizes[0]}, inH = {sizes[1]}, inW = {sizes[2]};",
    ]
    c = "true" if p.ceil_mode else "false"
    for i, (name, src) in enumerate((("outD", "inD"), ("outH", "inH"), ("outW", "inW"))):
        L.append(
            f"    uint64_t {name} = OutSize({src}, {p.kernel[i]}, {p.stride[i]}, "
            f"{p.padding[i]}, {p.dilation[i]}, {c});"
        )
    L += PLATFORM_LINES
    L += [
        *note,
        "    uint64_t widest = inW > outW ? inW : outW;",
        "    uint64_t rowLen = (widest + 63) / 64 * 64;",
        *win_len,
        "    if (rowLen * BYTES_PER_ELEM + winLen * 4 + UB_RESERVE > ubSize) {",
        "        return ge::GRAPH_FAILED;",
        "    }",
        "    uint64_t units = planes * outD * outH;  // output rows",
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
    ]
    for n, _ in FIELDS[:7]:
        L.append(f"    tiling.set_{n}(static_cast<uint32_t>({n}));")
    L.append("    tiling.set_rowLen(static_cast<uint32_t>(rowLen));")
    L.append("    tiling.set_winLen(static_cast<uint32_t>(winLen));")
    L += TILING_END_LINES
    infer = [
        "    gert::Shape* y = context->GetOutputShape(0);  // the captured output shape",
        f"    y->SetDimNum({len(p.out_shape)});",
        *[f"    y->SetDim({k}, {s});" for k, s in enumerate(p.out_shape)],
    ]
    params = io_param("Input", "in0", p.dtype) + io_param("Output", "out0", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def row_copies(chip: Chip) -> tuple[list[str], list[str]]:
    """The input-row and output-row copies. Chips with DataCopyPad move exact lengths. The
    others copy whole 32-byte blocks: an input row is read rounded up (the next row's elements
    land past inW in the queue tile and are never used) except at the end of the input, and an
    output row is written rounded up when the spill lands in this core's own later rows (written
    after it on the same MTE3 queue); only the rest moves a tail through the scalar unit."""
    if chip.has_datacopypad:
        return (
            ["                    CopyInTile(l_in, gm_in[start], inW);"],
            ["            CopyOutTile(gm_out[u * OW], o_out, outW);"],
        )
    return (
        [
            "                    // Whole blocks: the elements past inW are never read.",
            "                    if (start + inWA <= inTotal) {",
            "                        DataCopy(l_in, gm_in[start], inWA);",
            "                    } else {",
            "                        CopyInTile(l_in, gm_in[start], inW);",
            "                    }",
        ],
        [
            "            // Whole blocks when the spill past row u stays in this core's later",
            "            // rows: their copies, issued later on the same queue, rewrite it.",
            "            if (u * OW + outWA <= unitEnd * OW) {",
            "                DataCopy(gm_out[u * OW], o_out, outWA);",
            "            } else {",
            "                CopyOutTile(gm_out[u * OW], o_out, outW);",
            "            }",
        ],
    )


class WindowBody(NamedTuple):
    """What a window kernel's path puts into the shared skeleton (Init, the row loop, members)."""

    doc: list[str]  # header comment after the first line
    consts: list[str]
    tile: str  # the float tile the input row is converted into, and what it is called
    tile_name: str
    init: list[str]  # Init: the path's buffers and one-off setup
    row_start: list[str]  # after the accumulator row is reset
    row_work: list[str]  # per window row, after the input row is in `tile`
    finish: list[str]  # after every window row, before the store
    members: list[str]


def _extent(axis: str, start: str, k: int, pad: int, size: str, ind: str) -> list[str]:
    """C++ of one axis of a window's extent, as torch's avg divisor counts it: start `<a>S`,
    end `<a>E` within the padded input, length `pool<A>`, and length clipped to the input
    `clip<A>`."""
    a, A = axis, axis.upper()
    return [
        f"{ind}int64_t {a}S = {start};",
        f"{ind}int64_t {a}E = Min64({a}S + {k}, {size} + {pad});",
        f"{ind}int64_t pool{A} = {a}E - {a}S;",
        f"{ind}int64_t clip{A} = Min64({a}E, {size}) - Max64({a}S, 0);",
    ]


def _vector_body(p: WindowPlan) -> WindowBody:
    """Per window column one Gather of the window tile + one Max/Add over the output row."""
    kd, kh, kw = p.kernel
    sd, sh, sw = p.stride
    pd, ph, pw = p.padding
    dw = p.dilation[2]
    lead = lead_slots(p)
    is_max = p.op == "max"
    combine = "Max(acc, acc, tmp, outW);" if is_max else "Add(acc, acc, tmp, outW);"
    gathers = [
        line
        for c in range(kw)
        for line in (
            f"                    Gather(tmp, win, off, {(lead - pw + c * dw) * 4}u, outW);"
            f"  // window column {c}",
            f"                    {combine}",
        )
    ]
    if p.divisor_override:
        row_div = [f"            float rowDiv = static_cast<float>({p.divisor_override});"]
        width_div = []
    else:
        part = "pool" if p.count_include_pad else "clip"
        row_div = [
            "            // torch's divisor = depth part x height part (this row) x width part",
            "            // (divW): the window clipped to the padded input (or to the input).",
            *_extent("d", f"od * {sd} - {pd}", kd, pd, "ID", " " * 12),
            *_extent("h", f"oh * {sh} - {ph}", kh, ph, "IH", " " * 12),
            f"            float rowDiv = static_cast<float>({part}D * {part}H);",
        ]
        width_div = [
            "        // Width part of the avg divisor per output position: the full kernel width",
            "        // except at the borders: the scalar unit writes only the border slots.",
            f"        Duplicate(divW, {float(kw)!r}f, outW);",
            "        SetFlag<HardEvent::V_S>(EVENT_ID0);",
            "        WaitFlag<HardEvent::V_S>(EVENT_ID0);",
            "        for (int64_t ow = 0; ow < OW; ++ow) {",
            *_extent("w", f"ow * {sw} - {pw}", kw, pw, "IW", " " * 12),
            f"            if ({part}W != {kw}) {{",
            f"                divW.SetValue(ow, static_cast<float>({part}W));",
            "            }",
            "        }",
            "        SetFlag<HardEvent::S_V>(EVENT_ID0);",
            "        WaitFlag<HardEvent::S_V>(EVENT_ID0);",
        ]
    divide = (
        []
        if is_max
        else [
            *row_div,
            "            Muls(tmp, divW, rowDiv, outW);"
            if not p.divisor_override
            else "            Duplicate(tmp, rowDiv, outW);",
            "            Div(acc, acc, tmp, outW);",
        ]
    )
    return WindowBody(
        doc=[
            "// input, the input row is copied to UB once into a window tile whose padding "
            "slots hold",
            f"// the neutral value ({NEUTRAL[p.op]}); then per window column one vector "
            "Gather picks",
            "// the column's input element for every output position at once (byte offsets",
            "// ow * stride, built once per core; the column's start is Gather's base address) and",
            "// one vector "
            + ("Max" if is_max else "Add")
            + " folds it into the output row. Padding,",
            "// dilation and ceil mode are offsets into the window tile: no per-element "
            "scalar work.",
        ],
        consts=[
            f"constexpr uint32_t LEAD = {lead};  // neutral slots before the input row "
            "(block aligned)"
        ],
        tile="win[LEAD]",
        tile_name="window",
        init=[
            "        pipe->InitBuffer(winBuf, td.winLen * sizeof(float));",
            "        pipe->InitBuffer(accBuf, td.rowLen * sizeof(float));",
            "        pipe->InitBuffer(tmpBuf, td.rowLen * sizeof(float));",
            "        pipe->InitBuffer(offBuf, td.rowLen * sizeof(uint32_t));",
            *([] if is_max else ["        pipe->InitBuffer(divBuf, td.rowLen * sizeof(float));"]),
            "        win = winBuf.Get<float>();",
            "        acc = accBuf.Get<float>();",
            "        tmp = tmpBuf.Get<float>();",
            *([] if is_max else ["        divW = divBuf.Get<float>();"]),
            "        // Padded slots hold the neutral value for the whole run: loads overwrite "
            "only",
            "        // the input part [LEAD, LEAD + inW).",
            f"        Duplicate(win, {NEUTRAL[p.op]}, td.winLen);",
            "        // Byte offset of each output position's window: ow * stride * sizeof(float).",
            "        LocalTensor<int32_t> ramp = offBuf.Get<int32_t>();",
            "        CreateVecIndex(ramp, 0, outW);",
            f"        Muls(ramp, ramp, {sw * 4}, outW);",
            "        off = ramp.ReinterpretCast<uint32_t>();",
            *([] if is_max else width_div),
        ],
        row_start=[],
        row_work=gathers,
        finish=divide,
        members=[
            "    TBuf<QuePosition::VECCALC> winBuf, accBuf, tmpBuf, offBuf"
            + ("" if is_max else ", divBuf")
            + ";",
            "    LocalTensor<float> win, acc, tmp" + ("" if is_max else ", divW") + ";",
            "    LocalTensor<uint32_t> off;",
        ],
    )


def _scalar_body(p: WindowPlan) -> WindowBody:
    """The window read element by element on the scalar unit: for chips without Gather and
    CreateVecIndex (the first-generation Ascend 910)."""
    kd, kh, kw = p.kernel
    sd, sh, sw = p.stride
    pd, ph, pw = p.padding
    dw = p.dilation[2]
    is_max = p.op == "max"
    update = "a = v > a ? v : a;" if is_max else "a += v;"
    if p.divisor_override:
        divisor = f"static_cast<float>({p.divisor_override})"
    elif p.count_include_pad:
        divisor = "static_cast<float>(poolD * poolH * poolW)"
    else:
        divisor = "static_cast<float>(clipD * clipH * clipW)"
    avg = [
        "            for (int64_t ow = 0; ow < OW; ++ow) {",
        "                // torch's divisor: the window clipped to the padded input (or input)",
        *_extent("d", f"od * {sd} - {pd}", kd, pd, "ID", " " * 16),
        *_extent("h", f"oh * {sh} - {ph}", kh, ph, "IH", " " * 16),
        *_extent("w", f"ow * {sw} - {pw}", kw, pw, "IW", " " * 16),
        f"                acc.SetValue(ow, acc.GetValue(ow) / {divisor});",
        "            }",
    ]
    return WindowBody(
        doc=[
            "// input, the input row is copied to UB once and the window is read on the scalar",
            "// unit (this chip has no Gather/CreateVecIndex); strides, padding, dilation and",
            "// ceil mode are all index arithmetic.",
        ],
        consts=[],
        tile="row",
        tile_name="row",
        init=[
            "        pipe->InitBuffer(rowBuf, td.rowLen * sizeof(float));",
            "        pipe->InitBuffer(accBuf, td.rowLen * sizeof(float));",
            "        row = rowBuf.Get<float>();",
            "        acc = accBuf.Get<float>();",
        ],
        row_start=[
            "            SetFlag<HardEvent::V_S>(EVENT_ID0);",
            "            WaitFlag<HardEvent::V_S>(EVENT_ID0);",
        ],
        row_work=[
            "                    SetFlag<HardEvent::V_S>(EVENT_ID0);",
            "                    WaitFlag<HardEvent::V_S>(EVENT_ID0);",
            "                    for (int64_t ow = 0; ow < OW; ++ow) {",
            "                        float a = acc.GetValue(ow);",
            f"                        for (int64_t c = 0; c < {kw}; ++c) {{",
            f"                            int64_t iw = ow * {sw} - {pw} + c * {dw};",
            "                            if (iw >= 0 && iw < IW) {",
            "                                float v = row.GetValue(iw);",
            f"                                {update}",
            "                            }",
            "                        }",
            "                        acc.SetValue(ow, a);",
            "                    }",
        ],
        finish=[
            *([] if is_max else avg),
            "            SetFlag<HardEvent::S_V>(EVENT_ID0);",
            "            WaitFlag<HardEvent::S_V>(EVENT_ID0);",
        ],
        members=[
            "    TBuf<QuePosition::VECCALC> rowBuf, accBuf;",
            "    LocalTensor<float> row, acc;",
        ],
    )


def window_kernel(p: WindowPlan, chip: Chip) -> str:
    body = _vector_body(p) if vector_window(chip) else _scalar_body(p)
    ct = CTYPE[p.dtype]
    kd, kh, _ = p.kernel
    sd, sh, _ = p.stride
    pd, ph, _ = p.padding
    dd, dh, _ = p.dilation
    helpers = KernelEmitter.copy_helpers_for(chip)
    copy_in, copy_out = row_copies(chip)
    if p.dtype == "float32":
        to_tile = (
            f"Muls({body.tile}, l_in, 1.0f, inW);  // into the float {body.tile_name} tile "
            "(vector pipe)"
        )
        store = "DataCopy(o_out, acc, CeilAlign(outW, 8));"
    else:
        to_tile = f"Cast({body.tile}, l_in, RoundMode::CAST_NONE, inW);"
        mode = narrowing_mode(chip, "float", CTYPE[p.dtype])
        store = f"Cast(o_out, acc, RoundMode::{mode}, outW);"
    L = [
        f"// {p.op_name}: {p.op} pooling, generated by kernelgen's rule-based lowering "
        f"({chip.name}).",
        "// Work unit = one output row (plane, od, oh). For each window row (kd, kh) inside the",
        *body.doc,
        '#include "kernel_operator.h"',
        "using namespace AscendC;",
        "",
        "constexpr int32_t BUFFER_NUM = 2;",
        *body.consts,
        "",
        "__aicore__ inline uint32_t CeilAlign(uint64_t x, uint64_t a)",
        "{",
        "    return static_cast<uint32_t>((x + a - 1) / a * a);",
        "}",
        "__aicore__ inline int64_t Min64(int64_t a, int64_t b) { return a < b ? a : b; }",
        "__aicore__ inline int64_t Max64(int64_t a, int64_t b) { return a > b ? a : b; }",
        "",
        *helpers,
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        "    __aicore__ inline void Init(GM_ADDR in0, GM_ADDR out0, const TilingT& td,",
        "                                TPipe* pipe)",
        "    {",
        "        P = td.planes; ID = td.inD; IH = td.inH; IW = td.inW;",
        "        OD = td.outD; OH = td.outH; OW = td.outW;",
        "        inW = td.inW; outW = td.outW;",
        f"        inWA = CeilAlign(inW, 32 / sizeof({ct}));",
        f"        outWA = CeilAlign(outW, 32 / sizeof({ct}));",
        "        inTotal = P * ID * IH * IW;",
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        f"        gm_in.SetGlobalBuffer((__gm__ {ct}*)in0, P * ID * IH * IW);",
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out0, P * OD * OH * OW);",
        f"        pipe->InitBuffer(q_in, BUFFER_NUM, td.rowLen * sizeof({ct}));",
        f"        pipe->InitBuffer(q_out, BUFFER_NUM, td.rowLen * sizeof({ct}));",
        *body.init,
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            int64_t oh = static_cast<int64_t>(u % OH);",
        "            int64_t od = static_cast<int64_t>((u / OH) % OD);",
        "            uint64_t plane = u / OH / OD;",
        f"            Duplicate(acc, {NEUTRAL[p.op]}, outW);",
        *body.row_start,
        f"            for (int64_t a = 0; a < {kd}; ++a) {{",
        f"                int64_t id = od * {sd} - {pd} + a * {dd};",
        "                if (id < 0 || id >= ID) {",
        "                    continue;  // a padded window row adds only neutral values",
        "                }",
        f"                for (int64_t b = 0; b < {kh}; ++b) {{",
        f"                    int64_t ih = oh * {sh} - {ph} + b * {dh};",
        "                    if (ih < 0 || ih >= IH) {",
        "                        continue;",
        "                    }",
        f"                    LocalTensor<{ct}> l_in = q_in.AllocTensor<{ct}>();",
        "                    uint64_t start = ((plane * ID + id) * IH + ih) * IW;",
        *copy_in,
        "                    q_in.EnQue(l_in);",
        f"                    l_in = q_in.DeQue<{ct}>();",
        f"                    {to_tile}",
        "                    q_in.FreeTensor(l_in);",
        *body.row_work,
        "                }",
        "            }",
        *body.finish,
        f"            LocalTensor<{ct}> o_out = q_out.AllocTensor<{ct}>();",
        f"            {store}",
        "            q_out.EnQue(o_out);",
        f"            o_out = q_out.DeQue<{ct}>();",
        *copy_out,
        "            q_out.FreeTensor(o_out);",
        "        }",
        "    }",
        "",
        "private:",
        "    TQue<QuePosition::VECIN, BUFFER_NUM> q_in;",
        "    TQue<QuePosition::VECOUT, BUFFER_NUM> q_out;",
        *body.members,
        f"    GlobalTensor<{ct}> gm_in, gm_out;",
        "    int64_t P = 0, ID = 0, IH = 0, IW = 0, OD = 0, OH = 0, OW = 0;",
        "    uint32_t inW = 0, outW = 0, inWA = 0, outWA = 0;",
        "    uint64_t inTotal = 0;",
        "    uint64_t unitStart = 0, unitEnd = 0;",
        "};",
        "",
        f'extern "C" __global__ __aicore__ void {p.kernel_name}(GM_ADDR in0, GM_ADDR out0, '
        "GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        f"    Kernel{p.op_name} op;",
        "    op.Init(in0, out0, td, &pipe);",
        "    op.Process();",
        "}",
        "",
    ]
    return "\n".join(L)
