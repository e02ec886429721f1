"""MovePlan -> operator project files: last-two-axes transpose through UB (a Gather per tile) and
cat (row blocks copied into column ranges). Both need DataCopyPad (odd rows and columns)."""

from __future__ import annotations

from ascend_tools.chips import Chip
from kernelgen_lm.lower.host import (
    BLOCK_DIM_LINES,
    PLATFORM_LINES,
    TILING_END_LINES,
    io_param,
    registration,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE
from kernelgen_lm.plan.move import MovePlan

TILE = 64  # transpose tile edge: 64 x 64 elements, rows of 256 (fp32) or 128 (16-bit) bytes
CAT_TILE_BYTES = 32 * 1024  # one cat tile (double buffered)
MAX_CAT_PARTS = 8

BLOCK_HELPERS = [
    "// rows x cols elements, GM row stride srcStride -> UB rows of ldc elements.",
    "template <typename T>",
    "__aicore__ inline void LoadBlock(const LocalTensor<T>& dst, const GlobalTensor<T>& src, "
    "uint32_t rows,",
    "                                 uint32_t cols, uint64_t srcStride, uint32_t ldc)",
    "{",
    "    uint32_t bytes = cols * sizeof(T);",
    "    uint32_t gap = rows > 1 ? static_cast<uint32_t>((srcStride - cols) * sizeof(T)) : 0;",
    "    uint32_t ubGap = (ldc * sizeof(T) - (bytes + 31) / 32 * 32) / 32;",
    "    DataCopyExtParams params{static_cast<uint16_t>(rows), bytes, gap, ubGap, 0};",
    "    DataCopyPadExtParams<T> pad{false, 0, 0, 0};",
    "    DataCopyPad(dst, src, params, pad);",
    "}",
    "// UB rows of ldc elements -> rows x cols elements at GM row stride dstStride.",
    "template <typename T>",
    "__aicore__ inline void StoreBlock(const GlobalTensor<T>& dst, const LocalTensor<T>& src, "
    "uint32_t rows,",
    "                                  uint32_t cols, uint64_t dstStride, uint32_t ldc)",
    "{",
    "    uint32_t bytes = cols * sizeof(T);",
    "    uint32_t ubGap = (ldc * sizeof(T) - (bytes + 31) / 32 * 32) / 32;",
    "    uint32_t gap = static_cast<uint32_t>((dstStride - cols) * sizeof(T));",
    "    DataCopyExtParams params{static_cast<uint16_t>(rows), bytes, ubGap, gap, 0};",
    "    DataCopyPad(dst, src, params);",
    "}",
]


def _fields(p: MovePlan) -> list[tuple[str, str]]:
    if p.op == "transpose":
        return [
            ("batch", "leading axes flattened"),
            ("rows", "rows of each input matrix"),
            ("cols", "columns of each input matrix"),
            ("rBlocks", "64-row blocks"),
            ("cBlocks", "64-column blocks"),
            ("unitsPerCore", "(batch, row block, column block) units of a small core"),
            ("bigCores", "cores that take one unit more"),
        ]
    f = [("outer", "product of the axes before the cat axis"), ("width", "output row length")]
    for k in range(len(p.parts)):
        f += [
            (f"inner{k}", f"columns part {k} moves per row"),
            (f"offset{k}", f"part {k}'s first column in the output row"),
            (f"inStride{k}", f"row length of part {k}'s input"),
            (f"inOffset{k}", f"part {k}'s first column in its input row"),
            (f"tileCols{k}", f"columns per tile of part {k} (32-byte multiple)"),
            (f"tileRows{k}", f"rows per tile of part {k}"),
            (f"colBlocks{k}", f"column blocks of part {k}"),
            (f"units{k}", f"units of parts before {k} (prefix)"),
        ]
    return [*f, ("unitsPerCore", "units of a small core"), ("bigCores", "cores with one more")]


def move_tiling_header(p: MovePlan) -> str:
    return tiling_header_text(
        p.op_name, p.kernel_name, f" ({p.op}): runtime sizes and the core split.", _fields(p)
    )


def move_host(p: MovePlan, chip: Chip) -> str:
    rank = len(p.out_shape)
    L = [
        f"// Host side of {p.op_name}: {p.op}, tiling from the runtime input shapes.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        "static uint64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
        "{",
        "    return static_cast<uint64_t>(context->GetInputShape(input)->GetStorageShape()"
        ".GetDim(dim));",
        "}",
        "",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
    ]
    sz = DSIZE[p.dtype]
    if p.op == "transpose":
        x = p.parts[0]
        batch = " * ".join(f"Dim(context, {x}, {d})" for d in range(rank - 2)) or "1"
        L += [
            f"    uint64_t batch = {batch};",
            f"    uint64_t rows = Dim(context, {x}, {rank - 2});",
            f"    uint64_t cols = Dim(context, {x}, {rank - 1});",
            f"    uint64_t rBlocks = (rows + {TILE - 1}) / {TILE};",
            f"    uint64_t cBlocks = (cols + {TILE - 1}) / {TILE};",
            *PLATFORM_LINES,
            "    uint64_t units = batch * rBlocks * cBlocks;",
            *BLOCK_DIM_LINES,
            "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        ]
        for n in ("batch", "rows", "cols", "rBlocks", "cBlocks"):
            L.append(f"    tiling.set_{n}(static_cast<uint32_t>({n}));")
        infer_src = x
        infer = [
            f"    const gert::Shape* x = context->GetInputShape({infer_src});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({rank});",
            *[f"    y->SetDim({d}, x->GetDim({d}));" for d in range(rank - 2)],
            f"    y->SetDim({rank - 2}, x->GetDim({rank - 1}));",
            f"    y->SetDim({rank - 1}, x->GetDim({rank - 2}));",
        ]
    else:
        first = p.parts[0]
        outer = " * ".join(f"Dim(context, {first}, {d})" for d in range(p.dim)) or "1"
        after = " * ".join(f"Dim(context, {first}, {d})" for d in range(p.dim + 1, rank)) or "1"
        elems = CAT_TILE_BYTES // sz
        blk = 32 // sz  # elements per 32-byte block
        L += [
            f"    uint64_t outer = {outer};",
            "    uint64_t width = 0;",
            "    uint64_t units = 0;",
        ]
        if p.op == "slice":
            L += [
                "    // torch's slice bounds: negative from the end, clamped to the axis.",
                f"    int64_t size = static_cast<int64_t>(Dim(context, {first}, {p.dim}));",
                f"    int64_t start = {p.start}, end = {min(p.end, 2**62)};",
                "    start = start < 0 ? start + size : start;",
                "    end = end < 0 ? end + size : end;",
                "    start = start < 0 ? 0 : (start > size ? size : start);",
                "    end = end < start ? start : (end > size ? size : end);",
                f"    uint64_t after = {after};",
                "    uint64_t inner0 = static_cast<uint64_t>(end - start) * after;",
                "    tiling.set_inStride0(static_cast<uint32_t>(size * after));",
                "    tiling.set_inOffset0(static_cast<uint32_t>(start * after));",
            ]
        for k, i in enumerate(p.parts):
            inner = " * ".join(f"Dim(context, {i}, {d})" for d in range(p.dim, rank))
            if p.op == "cat":
                L += [
                    f"    uint64_t inner{k} = {inner};",
                    f"    tiling.set_inStride{k}(static_cast<uint32_t>(inner{k}));",
                    f"    tiling.set_inOffset{k}(0);",
                ]
            L += [
                f"    uint64_t tileCols{k} = (inner{k} + {blk - 1}) / {blk} * {blk};",
                f"    if (tileCols{k} > {elems}) {{",
                f"        tileCols{k} = {elems};",
                "    }",
                f"    uint64_t tileRows{k} = {elems} / tileCols{k};",
                f"    if (tileRows{k} > 4095) {{",
                f"        tileRows{k} = 4095;  // DataCopyPad blockCount",
                "    }",
                f"    uint64_t colBlocks{k} = (inner{k} + tileCols{k} - 1) / tileCols{k};",
                f"    tiling.set_units{k}(static_cast<uint32_t>(units));",
                f"    units += (outer + tileRows{k} - 1) / tileRows{k} * colBlocks{k};",
                f"    tiling.set_offset{k}(static_cast<uint32_t>(width));",
                f"    width += inner{k};",
            ]
            for n in ("inner", "tileCols", "tileRows", "colBlocks"):
                L.append(f"    tiling.set_{n}{k}(static_cast<uint32_t>({n}{k}));")
        L += [
            *PLATFORM_LINES,
            *BLOCK_DIM_LINES,
            "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
            "    tiling.set_outer(static_cast<uint32_t>(outer));",
            "    tiling.set_width(static_cast<uint32_t>(width));",
        ]
        infer = [
            f"    const gert::Shape* x = context->GetInputShape({first});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({rank});",
            *[f"    y->SetDim({d}, x->GetDim({d}));" for d in range(rank) if d != p.dim],
        ]
    if p.op == "slice":
        infer += [
            f"    int64_t size = x->GetDim({p.dim});",
            f"    int64_t start = {p.start}, end = {min(p.end, 2**62)};",
            "    start = start < 0 ? start + size : start;",
            "    end = end < 0 ? end + size : end;",
            "    start = start < 0 ? 0 : (start > size ? size : start);",
            "    end = end < start ? start : (end > size ? size : end);",
            f"    y->SetDim({p.dim}, end - start);",
        ]
    elif p.op == "cat":
        infer += [
            f"    int64_t along = 0;  // the cat axis: the sum over the {len(p.parts)} parts",
            *[
                f"    const gert::Shape* x{k} = context->GetInputShape({i});"
                for k, i in enumerate(p.parts)
            ],
            *[f"    along += x{k}->GetDim({p.dim});" for k in range(len(p.parts))],
            f"    y->SetDim({p.dim}, along);",
        ]
    L += TILING_END_LINES
    params: list[str] = []
    for i, t in enumerate(p.inputs):
        params += io_param("Input", f"in{i}", t.dtype, f"  // {t.name} ({t.kind})")
    params += io_param("Output", "out", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def move_kernel(p: MovePlan, chip: Chip) -> str:
    if not chip.has_datacopypad:
        raise ValueError(f"{chip.name} has no DataCopyPad: data movement is not lowered for it")
    ct = CTYPE[p.dtype]
    ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
    head = [
        f"// {p.op_name}: {p.op}, generated by kernelgen's rule-based lowering ({chip.name}).",
        '#include "kernel_operator.h"',
        "using namespace AscendC;",
        "",
        "__aicore__ inline uint32_t MinU(uint64_t x, uint64_t y) "
        "{ return static_cast<uint32_t>(x < y ? x : y); }",
        "",
        *BLOCK_HELPERS,
        "",
    ]
    split = [
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
    ]
    entry_args = ", ".join(f"in{i}" for i in range(len(p.inputs)))
    tail = [
        "",
        f'extern "C" __global__ __aicore__ void {p.kernel_name}({", ".join(ins)}, GM_ADDR out, '
        "GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        f"    Kernel{p.op_name} op;",
        f"    op.Init({entry_args}, out, td, &pipe);",
        "    op.Process();",
        "}",
        "",
    ]
    if p.op == "transpose":
        x = p.parts[0]
        # Gather moves 16- or 32-bit lanes; bfloat16 moves as half (same bits).
        gt = "half" if p.dtype == "bfloat16" else ct
        cast = f".ReinterpretCast<{gt}>()" if gt != ct else ""
        dst, src = f"o_out{cast}", f"l_in{cast}"
        sz = DSIZE[p.dtype]
        body = [
            "// Work unit = one 64 x 64 block of one matrix: DataCopyPad it into UB (rows of 64),",
            "// one Gather writes the transposed block (offset table: out[j][i] <- in[i][j],",
            "// built once per core), DataCopyPad its rows out. Odd edges: partial blocks.",
            f"constexpr uint32_t TILE = {TILE};",
            "",
            f"class Kernel{p.op_name} {{",
            "public:",
            "    template <typename TilingT>",
            f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, const TilingT& td, "
            "TPipe* pipe)",
            "    {",
            "        R = td.rows; C = td.cols; rBlocks = td.rBlocks; cBlocks = td.cBlocks;",
            *split,
            "        uint64_t total = static_cast<uint64_t>(td.batch) * R * C;",
            f"        gm_in.SetGlobalBuffer((__gm__ {ct}*)in{x}, total);",
            f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, total);",
            f"        pipe->InitBuffer(q_in, 1, TILE * TILE * sizeof({ct}));",
            f"        pipe->InitBuffer(q_out, 1, TILE * TILE * sizeof({ct}));",
            "        pipe->InitBuffer(offBuf, TILE * TILE * sizeof(uint32_t));",
            "        // off[j * TILE + i] = byte offset of in[i][j] = (i * TILE + j) * size.",
            "        LocalTensor<int32_t> ramp = offBuf.Get<int32_t>();",
            "        for (uint32_t j = 0; j < TILE; ++j) {",
            "            CreateVecIndex(ramp[j * TILE], 0, TILE);",
            "            Muls(ramp[j * TILE], ramp[j * TILE], "
            f"static_cast<int32_t>(TILE * {sz}), TILE);",
            "            Adds(ramp[j * TILE], ramp[j * TILE], "
            f"static_cast<int32_t>(j * {sz}), TILE);",
            "        }",
            "        off = ramp.ReinterpretCast<uint32_t>();",
            "    }",
            "    __aicore__ inline void Process()",
            "    {",
            "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
            "            uint64_t cb = u % cBlocks;",
            "            uint64_t rb = (u / cBlocks) % rBlocks;",
            "            uint64_t b = u / cBlocks / rBlocks;",
            "            uint64_t r0 = rb * TILE, c0 = cb * TILE;",
            "            uint32_t rows = MinU(TILE, R - r0), cols = MinU(TILE, C - c0);",
            "            uint64_t base = b * R * C;",
            f"            LocalTensor<{ct}> l_in = q_in.AllocTensor<{ct}>();",
            "            LoadBlock(l_in, gm_in[base + r0 * C + c0], rows, cols, C, TILE);",
            "            q_in.EnQue(l_in);",
            f"            l_in = q_in.DeQue<{ct}>();",
            f"            LocalTensor<{ct}> o_out = q_out.AllocTensor<{ct}>();",
            f"            Gather({dst}, {src}, off, 0, TILE * TILE);",
            "            q_in.FreeTensor(l_in);",
            "            q_out.EnQue(o_out);",
            f"            o_out = q_out.DeQue<{ct}>();",
            "            StoreBlock(gm_out[base + c0 * R + r0], o_out, cols, rows, R, TILE);",
            "            q_out.FreeTensor(o_out);",
            "        }",
            "    }",
            "",
            "private:",
            "    TQue<QuePosition::VECIN, 1> q_in;",
            "    TQue<QuePosition::VECOUT, 1> q_out;",
            "    TBuf<QuePosition::VECCALC> offBuf;",
            "    LocalTensor<uint32_t> off;",
            f"    GlobalTensor<{ct}> gm_in, gm_out;",
            "    uint64_t R = 0, C = 0, rBlocks = 1, cBlocks = 1, unitStart = 0, unitEnd = 0;",
            "};",
        ]
        return "\n".join(head + body + tail)
    n = len(p.parts)
    if n > MAX_CAT_PARTS:
        raise ValueError(f"cat of {n} tensors: at most {MAX_CAT_PARTS} are lowered")
    sets = []
    for k, i in enumerate(p.parts):
        sets += [
            f"        gm_p[{k}].SetGlobalBuffer((__gm__ {ct}*)in{i}, "
            f"static_cast<uint64_t>(td.outer) * td.inStride{k});",
            f"        inner[{k}] = td.inner{k}; offset[{k}] = td.offset{k};",
            f"        inStride[{k}] = td.inStride{k}; inOffset[{k}] = td.inOffset{k};",
            f"        tileCols[{k}] = td.tileCols{k}; tileRows[{k}] = td.tileRows{k};",
            f"        colBlocks[{k}] = td.colBlocks{k}; first[{k}] = td.units{k};",
        ]
    body = [
        "// Each input is an [outer, inner_k] matrix; its tiles (tileRows_k x tileCols_k) go",
        "// GM -> UB -> GM through one bound VECIN/VECOUT queue, landing at column offset_k of",
        "// the [outer, width] output. Work units: (part, row block, column block).",
        f"constexpr int32_t PARTS = {n};",
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        "        outer = td.outer; width = td.width;",
        *split,
        *sets,
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, static_cast<uint64_t>(outer) * width);",
        f"        pipe->InitBuffer(q, 2, {CAT_TILE_BYTES});",
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            int32_t k = PARTS - 1;",
        "            while (k > 0 && u < first[k]) {",
        "                --k;",
        "            }",
        "            uint64_t local = u - first[k];",
        "            uint64_t cb = local % colBlocks[k];",
        "            uint64_t rb = local / colBlocks[k];",
        "            uint64_t r0 = rb * tileRows[k], c0 = cb * tileCols[k];",
        "            uint32_t rows = MinU(tileRows[k], outer - r0);",
        "            uint32_t cols = MinU(tileCols[k], inner[k] - c0);",
        f"            LocalTensor<{ct}> t = q.AllocTensor<{ct}>();",
        "            LoadBlock(t, gm_p[k][r0 * inStride[k] + inOffset[k] + c0], rows, cols,",
        "                      inStride[k], tileCols[k]);",
        "            q.EnQue(t);",
        f"            t = q.DeQue<{ct}>();",
        "            StoreBlock(gm_out[r0 * width + offset[k] + c0], t, rows, cols, width, "
        "tileCols[k]);",
        "            q.FreeTensor(t);",
        "        }",
        "    }",
        "",
        "private:",
        "    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> q;",
        f"    GlobalTensor<{ct}> gm_p[PARTS], gm_out;",
        "    uint64_t inner[PARTS] = {0}, offset[PARTS] = {0}, tileCols[PARTS] = {0};",
        "    uint64_t inStride[PARTS] = {0}, inOffset[PARTS] = {0};",
        "    uint64_t tileRows[PARTS] = {0}, colBlocks[PARTS] = {0}, first[PARTS] = {0};",
        "    uint64_t outer = 0, width = 0, unitStart = 0, unitEnd = 0;",
        "};",
    ]
    return "\n".join(head + body + tail)
