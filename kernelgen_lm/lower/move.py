"""MovePlan -> operator project files: last-two-axes transpose through UB (a Gather per tile) and
cat (row blocks copied into column ranges). Both need DataCopyPad (odd rows and columns)."""

from __future__ import annotations

from ascend_tools.chips import Chip
from kernelgen_lm.lower.host import (
    BLOCK_DIM_LINES,
    PLATFORM_LINES,
    TILING_END_LINES,
    input_params,
    io_param,
    registration,
    tiling_header_text,
)
from kernelgen_lm.lower.kernel import CTYPE, DSIZE
from kernelgen_lm.plan.move import ARANGE_VECTOR, MAX_VIEW_RANK, SCATTER_SLAB_BYTES, MovePlan

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
    if p.op == "view":
        return _view_fields(p)
    if p.op in ("index_select", "gather"):
        return _index_fields(p)
    if p.op == "upsample":
        return _resize_fields(p)
    if p.op == "scatter":
        return _scatter_fields(p)
    if p.op == "arange":
        return _arange_fields(p)
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
    if p.op == "view":
        return _view_host(p, chip)
    if p.op in ("index_select", "gather"):
        return _index_host(p, chip)
    if p.op == "upsample":
        return _resize_host(p, chip)
    if p.op == "scatter":
        return _scatter_host(p, chip)
    if p.op == "arange":
        return _arange_host(p, chip)
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
        in_rank = rank - 1 if p.stack else rank  # stack: the inputs lack the new axis
        for k, i in enumerate(p.parts):
            inner = " * ".join(f"Dim(context, {i}, {d})" for d in range(p.dim, in_rank)) or "1"
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
    elif p.stack:
        infer = [
            f"    const gert::Shape* x = context->GetInputShape({first});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({rank});",
            *[f"    y->SetDim({d}, x->GetDim({d}));" for d in range(p.dim)],
            f"    y->SetDim({p.dim}, {len(p.parts)});  // the stacked axis",
            *[f"    y->SetDim({d}, x->GetDim({d - 1}));" for d in range(p.dim + 1, rank)],
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
    params = input_params(p.inputs)
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
    entry_args = "".join(f"in{i}, " for i in range(len(p.inputs)))  # none for arange
    tail = [
        "",
        f'extern "C" __global__ __aicore__ void {p.kernel_name}({"".join(a + ", " for a in ins)}'
        "GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        f"    Kernel{p.op_name} op;",
        f"    op.Init({entry_args}out, td, &pipe);",
        "    op.Process();",
        "}",
        "",
    ]
    if p.op == "view":
        return _view_kernel(p, chip, head, tail)
    if p.op in ("index_select", "gather"):
        return _index_kernel(p, chip, head, tail)
    if p.op == "upsample":
        return _resize_kernel(p, chip, head, tail)
    if p.op == "scatter":
        return _scatter_kernel(p, chip, head, tail)
    if p.op == "arange":
        return _arange_kernel(p, chip, head, tail)
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


# ---- view: strided views of model inputs (one per output) -------------------------------------

VIEW_TILE_BYTES = 16 * 1024  # one row block (and one gathered span) in UB
MAXR = MAX_VIEW_RANK

# The host's view arithmetic: torch's view ops replayed on (offset, sizes, strides) at run time.
VIEW_HOST_HELPERS = f"""constexpr int32_t MAXR = {MAXR};
// A strided view of a contiguous input: element (i_0..i_r-1) is at off + sum(i_d * stride[d]);
// out[] is the output shape (it differs from the iteration sizes after repeat and reshape).
struct View {{
    int32_t rank = 0;
    int64_t off = 0;
    int64_t size[MAXR] = {{0}};
    int64_t stride[MAXR] = {{0}};
    int32_t outRank = 0;
    int64_t out[MAXR] = {{0}};
}};
static void SyncOut(View& v)
{{
    v.outRank = v.rank;
    for (int32_t d = 0; d < v.rank; ++d) {{
        v.out[d] = v.size[d];
    }}
}}
static View Start(const gert::Shape& s)
{{
    View v;
    v.rank = static_cast<int32_t>(s.GetDimNum());
    int64_t st = 1;
    for (int32_t d = v.rank - 1; d >= 0; --d) {{
        v.size[d] = s.GetDim(d);
        v.stride[d] = st;
        st *= v.size[d];
    }}
    SyncOut(v);
    return v;
}}
static void Remove(View& v, int32_t d)
{{
    for (int32_t k = d; k + 1 < v.rank; ++k) {{
        v.size[k] = v.size[k + 1];
        v.stride[k] = v.stride[k + 1];
    }}
    v.rank -= 1;
}}
static void Insert(View& v, int32_t d, int64_t size, int64_t stride)
{{
    for (int32_t k = v.rank; k > d; --k) {{
        v.size[k] = v.size[k - 1];
        v.stride[k] = v.stride[k - 1];
    }}
    v.size[d] = size;
    v.stride[d] = stride;
    v.rank += 1;
}}
static void Permute(View& v, const int32_t* dims)
{{
    View old = v;
    for (int32_t d = 0; d < v.rank; ++d) {{
        v.size[d] = old.size[dims[d]];
        v.stride[d] = old.stride[dims[d]];
    }}
    SyncOut(v);
}}
// torch's slice bounds: negative from the end, clamped to the axis; positive step.
static void Slice(View& v, int32_t d, int64_t start, int64_t end, int64_t step)
{{
    int64_t n = v.size[d];
    start = start < 0 ? start + n : start;
    end = end < 0 ? end + n : end;
    start = start < 0 ? 0 : (start > n ? n : start);
    end = end < start ? start : (end > n ? n : end);
    v.off += start * v.stride[d];
    v.size[d] = (end - start + step - 1) / step;
    v.stride[d] *= step;
    SyncOut(v);
}}
static void Select(View& v, int32_t d, int64_t i)
{{
    i = i < 0 ? i + v.size[d] : i;
    v.off += i * v.stride[d];
    Remove(v, d);
    SyncOut(v);
}}
// expand(sizes): new leading axes and size-1 axes broadcast with stride 0; -1 keeps a size.
static void Expand(View& v, const int64_t* sizes, int32_t n)
{{
    while (v.rank < n) {{
        Insert(v, 0, 1, 0);
    }}
    for (int32_t d = 0; d < n; ++d) {{
        if (sizes[d] >= 0 && sizes[d] != v.size[d]) {{
            v.size[d] = sizes[d];
            v.stride[d] = 0;
        }}
    }}
    SyncOut(v);
}}
static void Unsqueeze(View& v, int32_t d)
{{
    Insert(v, d, 1, 0);
    SyncOut(v);
}}
static void Squeeze(View& v, int32_t d)
{{
    if (d < v.rank && v.size[d] == 1) {{
        Remove(v, d);
    }}
    SyncOut(v);
}}
static void Flip(View& v, int32_t d)
{{
    if (v.size[d] > 0) {{
        v.off += (v.size[d] - 1) * v.stride[d];
    }}
    v.stride[d] = -v.stride[d];
    SyncOut(v);
}}
// repeat(reps): each axis d becomes (reps[d] copies, stride 0) x (the axis); out = reps * size.
static void Repeat(View& v, const int64_t* reps, int32_t n)
{{
    while (v.rank < n) {{
        Insert(v, 0, 1, 0);
    }}
    View old = v;
    v.rank = 2 * n;
    v.outRank = n;
    for (int32_t d = 0; d < n; ++d) {{
        v.size[2 * d] = reps[d];
        v.stride[2 * d] = 0;
        v.size[2 * d + 1] = old.size[d];
        v.stride[2 * d + 1] = old.stride[d];
        v.out[d] = reps[d] * old.size[d];
    }}
}}
// A final reshape changes the output shape only (the kernel writes the view contiguously).
static void Reshape(View& v, const int64_t* dims, int32_t n)
{{
    int64_t total = 1, known = 1;
    for (int32_t d = 0; d < v.outRank; ++d) {{
        total *= v.out[d];
    }}
    for (int32_t d = 0; d < n; ++d) {{
        known *= dims[d] < 0 ? 1 : dims[d];
    }}
    v.outRank = n;
    for (int32_t d = 0; d < n; ++d) {{
        v.out[d] = dims[d] < 0 ? (known > 0 ? total / known : 0) : dims[d];
    }}
}}
// Iteration dims for the kernel: size-1 axes dropped, contiguous neighbours merged, rank >= 2.
static void Merge(View& v)
{{
    View m;
    m.off = v.off;
    for (int32_t d = 0; d < v.rank; ++d) {{
        if (v.size[d] == 1) {{
            continue;
        }}
        if (m.rank > 0 && m.stride[m.rank - 1] == v.size[d] * v.stride[d]) {{
            m.size[m.rank - 1] *= v.size[d];
            m.stride[m.rank - 1] = v.stride[d];
            continue;
        }}
        m.size[m.rank] = v.size[d];
        m.stride[m.rank] = v.stride[d];
        m.rank += 1;
    }}
    while (m.rank < 2) {{
        Insert(m, 0, 1, 0);
    }}
    m.outRank = v.outRank;
    for (int32_t d = 0; d < v.outRank; ++d) {{
        m.out[d] = v.out[d];
    }}
    v = m;
}}
"""


def _cpp_list(vals: list[int], ctype: str, name: str) -> str:
    body = ", ".join(str(v) for v in vals) or "0"
    return f"const {ctype} {name}[] = {{{body}}};"


def _view_steps_cpp(p: MovePlan, k: int, var: str, ind: str) -> list[str]:
    """C++ replaying output k's view chain on the View `var`."""
    part = p.views[k]
    L = [f"{ind}View {var} = Start({{src}});"]
    for j, s in enumerate(part.steps):
        arr = f"{var}Args{j}"
        if s.kind == "permute":
            L += [f"{ind}{_cpp_list(s.dims, 'int32_t', arr)}", f"{ind}Permute({var}, {arr});"]
        elif s.kind == "slice":
            L.append(f"{ind}Slice({var}, {s.dim}, {s.start}, {s.end}, {s.step});")
        elif s.kind == "select":
            L.append(f"{ind}Select({var}, {s.dim}, {s.start});")
        elif s.kind in ("expand", "repeat", "reshape"):
            fn = {"expand": "Expand", "repeat": "Repeat", "reshape": "Reshape"}[s.kind]
            L += [
                f"{ind}{_cpp_list(s.dims, 'int64_t', arr)}",
                f"{ind}{fn}({var}, {arr}, {len(s.dims)});",
            ]
        elif s.kind == "unsqueeze":
            L.append(f"{ind}Unsqueeze({var}, {s.dim});")
        elif s.kind == "squeeze":
            L.append(f"{ind}Squeeze({var}, {s.dim});")
        else:
            L += [f"{ind}Flip({var}, {d});" for d in s.dims]
    return L


def _view_fields(p: MovePlan) -> list[tuple[str, str]]:
    f: list[tuple[str, str]] = []
    for k in range(len(p.views)):
        f += [
            (f"rank{k}", f"iteration dims of output {k} (merged)"),
            (f"off{k}", f"output {k}'s first element in its input"),
            (f"inLen{k}", f"elements of output {k}'s input"),
            (f"cw{k}", f"columns per tile of output {k}"),
            (f"tr{k}", f"rows per tile of output {k}"),
            (f"cb{k}", f"column blocks of output {k}"),
            (f"rb{k}", f"row blocks of output {k}"),
            (f"units{k}", f"units of outputs before {k} (prefix)"),
            (f"tq{k}", "1 + the dim of stride 1 when output k is a tiled transpose, else 0"),
            (f"ta{k}", "transpose tiles: rows along that dim"),
        ]
        f += [(f"sz{k}_{d}", f"size of dim {d}") for d in range(MAXR)]
        f += [(f"st{k}_{d}", f"stride of dim {d} (int32 bits)") for d in range(MAXR)]
    return [*f, ("unitsPerCore", "units of a small core"), ("bigCores", "cores with one more")]


def _view_host(p: MovePlan, chip: Chip) -> str:
    sz = DSIZE[p.dtype]
    tile = VIEW_TILE_BYTES // sz
    blk = 32 // sz
    L = [
        f"// Host side of {p.op_name}: strided views, replayed on the runtime input shapes.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace {",
        *VIEW_HOST_HELPERS.splitlines(),
        "}  // namespace",
        "",
        "namespace optiling {",
        f"constexpr int64_t TT = {TILE};  // transpose tile edge",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        "    uint64_t units = 0;",
    ]
    for k, part in enumerate(p.views):
        src = f"context->GetInputShape({part.source})->GetStorageShape()"
        L += [
            "    {",
            *[ln.replace("{src}", src) for ln in _view_steps_cpp(p, k, "v", "        ")],
            "        Merge(v);",
            "        int32_t R = v.rank;",
            "        int64_t cols = v.size[R - 1], s = v.stride[R - 1];",
            "        int64_t as = s < 0 ? -s : s;",
            f"        int64_t cw = cols < {tile} ? cols : {tile};",
            "        if (as > 1) {",
            "            // a gathered span ((cw - 1) * |s| + 1 elements) fits one tile",
            f"            int64_t fit = ({tile} - 1) / as + 1;",
            "            cw = cw < fit ? cw : fit;",
            "        }",
            "        cw = cw < 1 ? 1 : cw;",
            f"        int64_t cwPad = (cw + {blk - 1}) / {blk} * {blk};",
            f"        int64_t tr = {tile} / cwPad;",
            "        tr = tr > v.size[R - 2] ? v.size[R - 2] : tr;",
            "        tr = tr < 1 ? 1 : (tr > 4095 ? 4095 : tr);  // DataCopyPad blockCount",
            "        int64_t cb = (cols + cw - 1) / cw;",
            "        int64_t rb = (v.size[R - 2] + tr - 1) / tr;",
            "        int64_t outer = 1;",
            "        for (int32_t d = 0; d + 2 < R; ++d) {",
            "            outer *= v.size[d];",
            "        }",
            f"        tiling.set_units{k}(static_cast<uint32_t>(units));",
            "        // A stride-1 dim q other than the last: batched transpose of 64 x ta tiles",
            "        // (rows along the last dim must not overlap: ta <= its stride).",
            "        int32_t q = -1;",
            "        for (int32_t d = 0; d + 1 < R; ++d) {",
            "            q = v.stride[d] == 1 ? d : q;",
            "        }",
            "        int64_t ta = s < TT ? s : TT;",
            "        if (q >= 0 && s > 1) {",
            "            int64_t batch = 1;",
            "            for (int32_t d = 0; d + 1 < R; ++d) {",
            "                batch *= d == q ? 1 : v.size[d];",
            "            }",
            "            units += batch * ((v.size[q] + ta - 1) / ta) * ((cols + TT - 1) / TT);",
            "        } else {",
            "            q = -1;",
            "            units += outer * rb * cb;",
            "        }",
            f"        tiling.set_tq{k}(static_cast<uint32_t>(q + 1));",
            f"        tiling.set_ta{k}(static_cast<uint32_t>(ta));",
            f"        tiling.set_rank{k}(static_cast<uint32_t>(R));",
            f"        tiling.set_off{k}(static_cast<uint32_t>(v.off));",
            f"        tiling.set_inLen{k}(static_cast<uint32_t>({src}.GetShapeSize()));",
            f"        tiling.set_cw{k}(static_cast<uint32_t>(cw));",
            f"        tiling.set_tr{k}(static_cast<uint32_t>(tr));",
            f"        tiling.set_cb{k}(static_cast<uint32_t>(cb));",
            f"        tiling.set_rb{k}(static_cast<uint32_t>(rb));",
            *[
                f"        tiling.set_sz{k}_{d}(static_cast<uint32_t>(v.size[{d}]));"
                for d in range(MAXR)
            ],
            *[
                f"        tiling.set_st{k}_{d}(static_cast<uint32_t>("
                f"static_cast<int32_t>(v.stride[{d}])));"
                for d in range(MAXR)
            ],
            "    }",
        ]
    L += [
        *PLATFORM_LINES,
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        *TILING_END_LINES,
    ]
    infer: list[str] = []
    for k, part in enumerate(p.views):
        src = f"*context->GetInputShape({part.source})"
        infer += [
            "    {",
            *[ln.replace("{src}", src) for ln in _view_steps_cpp(p, k, "v", "        ")],
            f"        gert::Shape* y = context->GetOutputShape({k});",
            "        y->SetDimNum(v.outRank);",
            "        for (int32_t d = 0; d < v.outRank; ++d) {",
            "            y->SetDim(d, v.out[d]);",
            "        }",
            "    }",
        ]
    params = input_params(p.inputs)
    for k in range(len(p.views)):
        params += io_param("Output", f"out{k}", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _view_kernel(p: MovePlan, chip: Chip, head: list[str], tail: list[str]) -> str:
    ct = CTYPE[p.dtype]
    sz = DSIZE[p.dtype]
    tile = VIEW_TILE_BYTES // sz
    blk = 32 // sz
    n = len(p.views)
    gt = "half" if p.dtype == "bfloat16" else ct  # Gather moves 16- or 32-bit lanes
    cast = f".ReinterpretCast<{gt}>()" if gt != ct else ""
    ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
    outs = ", ".join(f"GM_ADDR out{k}" for k in range(n))
    sets = []
    for k, part in enumerate(p.views):
        sets += [
            f"        gm_in[{k}].SetGlobalBuffer((__gm__ {ct}*)in{part.source}, td.inLen{k});",
            f"        rank[{k}] = td.rank{k}; off[{k}] = td.off{k}; cw[{k}] = td.cw{k};",
            f"        tr[{k}] = td.tr{k}; cb[{k}] = td.cb{k}; rb[{k}] = td.rb{k}; "
            f"first[{k}] = td.units{k};",
            f"        tq[{k}] = static_cast<int32_t>(td.tq{k}) - 1; ta[{k}] = td.ta{k};",
            *[
                f"        sz[{k}][{d}] = td.sz{k}_{d}; "
                f"st[{k}][{d}] = static_cast<int32_t>(td.st{k}_{d});"
                for d in range(MAXR)
            ],
            f"        uint64_t len{k} = 1;",
            f"        for (int32_t d = 0; d < rank[{k}]; ++d) {{",
            f"            len{k} *= sz[{k}][d];",
            "        }",
            f"        gm_out[{k}].SetGlobalBuffer((__gm__ {ct}*)out{k}, len{k});",
        ]
    body = [
        "// Output k is a strided view of its input: element (i_0..i_R-1) at off + sum(i_d st_d).",
        "// Work unit = (outer index, block of rows along dim R-2, block of columns). Rows whose",
        "// last-dim stride is 1 are DataCopyPad'ed; other rows are gathered: their span is",
        "// copied into UB and one vector Gather (byte offsets j * stride) picks the columns.",
        f"constexpr int32_t PARTS = {n};",
        f"constexpr int32_t MAXR = {MAXR};",
        f"constexpr int64_t BLK = {blk};  // elements per 32-byte block",
        f"constexpr uint32_t TT = {TILE};  // transpose tile edge",
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({', '.join(ins)}, {outs}, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        *[
            "        uint64_t idx = GetBlockIdx();",
            "        uint64_t upc = td.unitsPerCore;",
            "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
            "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        ],
        *sets,
        f"        pipe->InitBuffer(qb, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(qIn, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(qOut, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(tabBuf, {tile} * sizeof(int32_t));",
        "        // Transpose tiles: out[i][j] <- in[j][i], byte offsets (j * TT + i) * size.",
        "        pipe->InitBuffer(offBuf, TT * TT * sizeof(uint32_t));",
        "        LocalTensor<int32_t> ramp = offBuf.Get<int32_t>();",
        "        for (uint32_t i = 0; i < TT; ++i) {",
        "            CreateVecIndex(ramp[i * TT], 0, TT);",
        f"            Muls(ramp[i * TT], ramp[i * TT], static_cast<int32_t>(TT * {sz}), TT);",
        f"            Adds(ramp[i * TT], ramp[i * TT], static_cast<int32_t>(i * {sz}), TT);",
        "        }",
        "        toff = ramp.ReinterpretCast<uint32_t>();",
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            int32_t k = PARTS - 1;",
        "            while (k > 0 && u < first[k]) {",
        "                --k;",
        "            }",
        "            uint64_t local = u - first[k];",
        "            if (tq[k] >= 0) {",
        "                TransposeTile(k, local);",
        "                continue;",
        "            }",
        "            int32_t R = rank[k];",
        "            uint64_t cbi = local % cb[k];",
        "            uint64_t rest = local / cb[k];",
        "            uint64_t rbi = rest % rb[k];",
        "            uint64_t o = rest / rb[k];",
        "            int64_t base = off[k];",
        "            uint64_t t = o;",
        "            for (int32_t d = R - 3; d >= 0; --d) {",
        "                base += static_cast<int64_t>(t % sz[k][d]) * st[k][d];",
        "                t /= sz[k][d];",
        "            }",
        "            uint64_t j0 = rbi * tr[k], c0 = cbi * cw[k];",
        "            uint32_t rows = MinU(tr[k], sz[k][R - 2] - j0);",
        "            uint32_t cols = MinU(cw[k], sz[k][R - 1] - c0);",
        "            int64_t s = st[k][R - 1], rs = st[k][R - 2];",
        "            base += static_cast<int64_t>(j0) * rs + static_cast<int64_t>(c0) * s;",
        "            uint64_t width = sz[k][R - 1];",
        "            uint64_t outOff = (o * sz[k][R - 2] + j0) * width + c0;",
        "            uint32_t ldc = static_cast<uint32_t>((cw[k] + BLK - 1) / BLK * BLK);",
        "            if (s == 1) {",
        "                CopyRows(k, base, rs, rows, cols, ldc, outOff, width);",
        "            } else {",
        "                GatherRows(k, base, rs, s, rows, cols, ldc, outOff, width);",
        "            }",
        "        }",
        "    }",
        "",
        "private:",
        "    // Output k iterates a stride-1 dim q and a strided last dim: one tile = (the other",
        "    // dims' index, ta rows along q, TT columns); in[j][i] loaded with the last dim's",
        "    // stride as row stride, one Gather transposes it, rows stored at q's output stride.",
        "    __aicore__ inline void TransposeTile(int32_t k, uint64_t local)",
        "    {",
        "        int32_t R = rank[k], q = tq[k];",
        "        uint64_t os[MAXR] = {0};",
        "        uint64_t acc = 1;",
        "        for (int32_t d = R - 1; d >= 0; --d) {",
        "            os[d] = acc;",
        "            acc *= sz[k][d];",
        "        }",
        "        uint64_t nA = (sz[k][q] + ta[k] - 1) / ta[k];",
        "        uint64_t nC = (sz[k][R - 1] + TT - 1) / TT;",
        "        uint64_t cbi = local % nC, rest = local / nC;",
        "        uint64_t abi = rest % nA, b = rest / nA;",
        "        int64_t base = off[k];",
        "        uint64_t outBase = 0;",
        "        for (int32_t d = R - 2; d >= 0; --d) {",
        "            if (d == q) {",
        "                continue;",
        "            }",
        "            uint64_t i = b % sz[k][d];",
        "            b /= sz[k][d];",
        "            base += static_cast<int64_t>(i) * st[k][d];",
        "            outBase += i * os[d];",
        "        }",
        "        uint64_t a0 = abi * ta[k], c0 = cbi * TT;",
        "        uint32_t na = MinU(ta[k], sz[k][q] - a0), nc = MinU(TT, sz[k][R - 1] - c0);",
        "        int64_t s = st[k][R - 1];",
        "        base += static_cast<int64_t>(a0) + static_cast<int64_t>(c0) * s;",
        f"        LocalTensor<{ct}> l = qIn.AllocTensor<{ct}>();",
        "        LoadBlock(l, gm_in[k][base], nc, na, static_cast<uint64_t>(s), TT);",
        "        qIn.EnQue(l);",
        f"        l = qIn.DeQue<{ct}>();",
        f"        LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
        f"        Gather(o{cast}, l{cast}, toff, 0, TT * TT);",
        "        qIn.FreeTensor(l);",
        "        qOut.EnQue(o);",
        f"        o = qOut.DeQue<{ct}>();",
        "        StoreBlock(gm_out[k][outBase + a0 * os[q] + c0], o, na, nc, os[q], TT);",
        "        qOut.FreeTensor(o);",
        "    }",
        "    __aicore__ inline void CopyRows(int32_t k, int64_t base, int64_t rs, uint32_t rows,",
        "                                    uint32_t cols, uint32_t ldc, uint64_t outOff, "
        "uint64_t width)",
        "    {",
        f"        LocalTensor<{ct}> b = qb.AllocTensor<{ct}>();",
        "        if (rs >= static_cast<int64_t>(cols)) {",
        "            LoadBlock(b, gm_in[k][base], rows, cols, static_cast<uint64_t>(rs), ldc);",
        "        } else {",
        "            for (uint32_t r = 0; r < rows; ++r) {",
        "                LoadBlock(b[r * ldc], gm_in[k][base + r * rs], 1, cols, cols, ldc);",
        "            }",
        "        }",
        "        qb.EnQue(b);",
        f"        b = qb.DeQue<{ct}>();",
        "        StoreBlock(gm_out[k][outOff], b, rows, cols, width, ldc);",
        "        qb.FreeTensor(b);",
        "    }",
        "    __aicore__ inline void GatherRows(int32_t k, int64_t base, int64_t rs, int64_t s,",
        "                                      uint32_t rows, uint32_t cols, uint32_t ldc,",
        "                                      uint64_t outOff, uint64_t width)",
        "    {",
        "        // tab[j] = byte offset of column j in the row's span (lowest address first).",
        "        int64_t low = s < 0 ? static_cast<int64_t>(cols - 1) * s : 0;",
        "        uint32_t span = static_cast<uint32_t>((cols - 1) * (s < 0 ? -s : s) + 1);",
        "        uint32_t spanPad = (span + BLK - 1) / BLK * BLK;",
        "        LocalTensor<int32_t> tab = tabBuf.Get<int32_t>();",
        "        CreateVecIndex(tab, 0, cols);",
        f"        Muls(tab, tab, static_cast<int32_t>(s * {sz}), cols);",
        f"        Adds(tab, tab, static_cast<int32_t>(-low * {sz}), cols);",
        "        LocalTensor<uint32_t> off32 = tab.ReinterpretCast<uint32_t>();",
        f"        LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
        "        for (uint32_t r = 0; r < rows; ++r) {",
        f"            LocalTensor<{ct}> sp = qIn.AllocTensor<{ct}>();",
        "            LoadBlock(sp, gm_in[k][base + r * rs + low], 1, span, span, spanPad);",
        "            qIn.EnQue(sp);",
        f"            sp = qIn.DeQue<{ct}>();",
        f"            LocalTensor<{ct}> row = o[r * ldc];",
        f"            Gather(row{cast}, sp{cast}, off32, 0, cols);",
        "            qIn.FreeTensor(sp);",
        "        }",
        "        qOut.EnQue(o);",
        f"        o = qOut.DeQue<{ct}>();",
        "        StoreBlock(gm_out[k][outOff], o, rows, cols, width, ldc);",
        "        qOut.FreeTensor(o);",
        "    }",
        "",
        "    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> qb;",
        "    TQue<QuePosition::VECIN, 2> qIn;",
        "    TQue<QuePosition::VECOUT, 2> qOut;",
        "    TBuf<QuePosition::VECCALC> tabBuf, offBuf;",
        "    LocalTensor<uint32_t> toff;",
        f"    GlobalTensor<{ct}> gm_in[PARTS], gm_out[PARTS];",
        "    int64_t st[PARTS][MAXR] = {{0}}, off[PARTS] = {0};",
        "    uint64_t sz[PARTS][MAXR] = {{0}}, cw[PARTS] = {0}, tr[PARTS] = {0};",
        "    uint64_t cb[PARTS] = {0}, rb[PARTS] = {0}, first[PARTS] = {0};",
        "    int32_t rank[PARTS] = {0}, tq[PARTS] = {0};",
        "    uint64_t ta[PARTS] = {0};",
        "    uint64_t unitStart = 0, unitEnd = 0;",
        "};",
    ]
    entry_args = ", ".join([f"in{i}" for i in range(len(p.inputs))] + [f"out{k}" for k in range(n)])
    entry = [
        "",
        f'extern "C" __global__ __aicore__ void {p.kernel_name}({", ".join(ins)}, {outs}, '
        "GM_ADDR workspace, GM_ADDR tiling)",
        "{",
        "    GET_TILING_DATA(td, tiling);",
        "    TPipe pipe;",
        f"    Kernel{p.op_name} op;",
        f"    op.Init({entry_args}, td, &pipe);",
        "    op.Process();",
        "}",
        "",
    ]
    del tail
    return "\n".join(head + body + entry)


# ---- index_select, gather: rows or elements addressed by an index tensor ----------------------

INDEX_MAX_LEAD = 7  # leading output dims of a gather (rank 8)
# Kernel modes (tiling field `mode`): rows copied from indexed input rows, rows gathered from
# one input row (the span fits UB), or elements read one by one on the scalar unit.
ROWCOPY, ROWGATHER, SCALAR = 0, 1, 2
# The tiling scalars the kernel keeps as members.
INDEX_SCALARS = (
    *("mode", "rows", "width", "cw", "tr", "cb", "lead"),
    *("nIdx", "xsDim", "xSize", "jStride", "idxRow", "span"),
)


def _index_fields(p: MovePlan) -> list[tuple[str, str]]:
    return [
        ("mode", f"{ROWCOPY}: row copies, {ROWGATHER}: Gather per row, {SCALAR}: scalar reads"),
        ("rows", "output rows"),
        ("width", "output row length"),
        ("cw", "columns per tile"),
        ("tr", "rows per tile"),
        ("cb", "column blocks"),
        ("lead", "leading output dims (row index decomposition)"),
        *[(f"ld{d}", f"size of leading dim {d}") for d in range(INDEX_MAX_LEAD)],
        *[(f"xs{d}", f"input stride of leading dim {d}") for d in range(INDEX_MAX_LEAD)],
        ("nIdx", "index_select: indices (row copies: k = row % nIdx)"),
        ("xsDim", "input stride along the indexed axis"),
        ("xSize", "input size along the indexed axis"),
        ("jStride", "input stride of an output column (0: the index picks the column)"),
        ("idxRow", "index elements per output row (0: one index row for all)"),
        ("span", "input row length (Gather mode)"),
        ("xLen", "input elements"),
        ("idxLen", "index elements"),
        ("unitsPerCore", "units of a small core"),
        ("bigCores", "cores with one more"),
    ]


def _index_host(p: MovePlan, chip: Chip) -> str:
    sz = DSIZE[p.dtype]
    tile = VIEW_TILE_BYTES // sz
    blk = 32 // sz
    x, ix = p.parts[0], p.index
    xr = len(p.inputs[x].shape)
    ir = len(p.inputs[ix].shape) if p.roll is None else 1
    # torch.roll: the index is computed in the kernel, one per position of the axis.
    idx_len = (
        f"context->GetInputShape({ix})->GetStorageShape().GetShapeSize()"
        if p.roll is None
        else f"Dim(context, {x}, {p.dim})"
    )
    L = [
        f"// Host side of {p.op_name}: {p.op}, tiling from the runtime input shapes.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        "static int64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
        "{",
        "    return context->GetInputShape(input)->GetStorageShape().GetDim(dim);",
        "}",
        "",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        f"    int64_t xLen = context->GetInputShape({x})->GetStorageShape().GetShapeSize();",
        f"    int64_t idxLen = {idx_len};",
        "    int64_t ld[8] = {0}, xs[8] = {0};",
        "    int64_t lead = 0, rows = 1, width = 1, mode = 0, jStride = 0, idxRow = 0;",
        f"    int64_t xSize = Dim(context, {x}, {p.dim});",
        "    int64_t nIdx = idxLen, span = 0, xsDim = 1;",
        f"    int64_t xst[{max(xr, 1)}] = {{0}};  // the input's contiguous strides",
        "    int64_t st = 1;",
        f"    for (int32_t d = {xr - 1}; d >= 0; --d) {{",
        "        xst[d] = st;",
        f"        st *= Dim(context, {x}, d);",
        "    }",
        f"    xsDim = xst[{p.dim}];",
    ]
    if p.op == "index_select":
        L += [
            "    // input as [outer, size, inner], output as [outer, nIdx, inner]",
            "    int64_t outer = 1, inner = 1;",
            *[f"    outer *= Dim(context, {x}, {d});" for d in range(p.dim)],
            *[f"    inner *= Dim(context, {x}, {d});" for d in range(p.dim + 1, xr)],
            "    if (inner > 1) {",
            f"        mode = {ROWCOPY};",
            "        lead = 2;",
            "        ld[0] = outer;",
            "        ld[1] = nIdx;",
            "        xs[0] = xSize * inner;",
            "        xs[1] = 0;  // the index gives the row",
            "        rows = outer * nIdx;",
            "        width = inner;",
            "    } else {",
            f"        mode = xSize <= {tile} ? {ROWGATHER} : {SCALAR};",
            "        lead = 1;",
            "        ld[0] = outer;",
            "        xs[0] = xSize;",
            "        rows = outer;",
            "        width = nIdx;",
            "        span = xSize;",
            "    }",
        ]
    else:
        L += [
            f"    lead = {ir - 1};",
            *[
                ln
                for d in range(ir - 1)
                for ln in (
                    f"    ld[{d}] = Dim(context, {ix}, {d});",
                    f"    xs[{d}] = {'0' if d == p.dim else f'xst[{d}]'};",
                    f"    rows *= ld[{d}];",
                )
            ],
            f"    width = Dim(context, {ix}, {ir - 1});",
            "    idxRow = width;",
        ]
        if p.dim == ir - 1:
            L += [
                f"    span = Dim(context, {x}, {p.dim});",
                f"    mode = span <= {tile} ? {ROWGATHER} : {SCALAR};",
            ]
        else:
            L += [f"    mode = {SCALAR};", "    jStride = 1;"]
    L += [
        f"    int64_t cw = width < {tile} ? width : {tile};",
        "    cw = cw < 1 ? 1 : cw;",
        f"    int64_t ldc = (cw + {blk - 1}) / {blk} * {blk};",
        f"    int64_t tr = mode == {ROWGATHER} ? 1 : {tile} / ldc;",
        "    tr = tr > rows ? rows : tr;",
        "    tr = tr < 1 ? 1 : (tr > 4095 ? 4095 : tr);",
        "    int64_t cb = (width + cw - 1) / cw;",
        "    uint64_t units = static_cast<uint64_t>((rows + tr - 1) / tr * cb);",
        *PLATFORM_LINES,
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        *[
            f"    tiling.set_{n}(static_cast<uint32_t>({n}));"
            for n in [
                "mode",
                "rows",
                "width",
                "cw",
                "tr",
                "cb",
                "lead",
                "nIdx",
                "xsDim",
                "xSize",
                "jStride",
                "idxRow",
                "span",
                "xLen",
                "idxLen",
            ]
        ],
        *[f"    tiling.set_ld{d}(static_cast<uint32_t>(ld[{d}]));" for d in range(INDEX_MAX_LEAD)],
        *[f"    tiling.set_xs{d}(static_cast<uint32_t>(xs[{d}]));" for d in range(INDEX_MAX_LEAD)],
        *TILING_END_LINES,
    ]
    rank = len(p.out_shape)
    if p.roll is not None:
        infer = [
            f"    const gert::Shape* x = context->GetInputShape({x});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            "    *y = *x;",
        ]
    elif p.op == "index_select":
        infer = [
            f"    const gert::Shape* x = context->GetInputShape({x});",
            f"    const gert::Shape* idx = context->GetInputShape({ix});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({rank});",
            *[f"    y->SetDim({d}, x->GetDim({d}));" for d in range(rank) if d != p.dim],
            f"    y->SetDim({p.dim}, idx->GetShapeSize());",
        ]
    else:
        infer = [
            f"    const gert::Shape* idx = context->GetInputShape({ix});",
            "    gert::Shape* y = context->GetOutputShape(0);",
            f"    y->SetDimNum({rank});",
            *[f"    y->SetDim({d}, idx->GetDim({d}));" for d in range(rank)],
        ]
    params = input_params(p.inputs)
    params += io_param("Output", "out", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _index_kernel(p: MovePlan, chip: Chip, head: list[str], tail: list[str]) -> str:
    ct = CTYPE[p.dtype]
    it = CTYPE[p.index_dtype]
    sz = DSIZE[p.dtype]
    tile = VIEW_TILE_BYTES // sz
    blk = 32 // sz
    gt = "half" if p.dtype == "bfloat16" else ct
    if p.roll is None:
        read = ["        int64_t v = static_cast<int64_t>(gm_idx.GetValue(pos));"]
        gm_idx = [f"        gm_idx.SetGlobalBuffer((__gm__ {it}*)in{p.index}, td.idxLen);"]
    else:
        read = [
            f"        // torch.roll by {p.roll}: position j reads (j - {p.roll}) mod size",
            "        int64_t n = static_cast<int64_t>(xSize);",
            f"        int64_t v = ((static_cast<int64_t>(pos % xSize) - {p.roll}) % n + n) % n;",
        ]
        gm_idx = []
    cast = f".ReinterpretCast<{gt}>()" if gt != ct else ""
    ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
    fields = [
        "mode",
        "rows",
        "width",
        "cw",
        "tr",
        "cb",
        "lead",
        "nIdx",
        "xsDim",
        "xSize",
        "jStride",
        "idxRow",
        "span",
    ]
    body = [
        f"// {p.op}: output rows addressed by the index tensor (read on the scalar unit).",
        f"// Mode {ROWCOPY}: each row copied from its indexed input row (DataCopyPad);",
        f"// mode {ROWGATHER}: the input row in UB, one vector Gather at the indexed byte offsets;",
        f"// mode {SCALAR}: elements read one by one. Work unit = (row block, column block).",
        f"constexpr int32_t MAXL = {INDEX_MAX_LEAD};",
        f"constexpr int64_t BLK = {blk};  // elements per 32-byte block",
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        *[f"        {n} = td.{n};" for n in fields],
        *[f"        ld[{d}] = td.ld{d}; xs[{d}] = td.xs{d};" for d in range(INDEX_MAX_LEAD)],
        f"        gm_x.SetGlobalBuffer((__gm__ {ct}*)in{p.parts[0]}, td.xLen);",
        *gm_idx,
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, "
        "static_cast<uint64_t>(td.rows) * td.width);",
        f"        pipe->InitBuffer(qb, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(qIn, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(qOut, 2, {VIEW_TILE_BYTES});",
        f"        pipe->InitBuffer(tabBuf, {tile} * sizeof(uint32_t));",
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            uint64_t r0 = u / cb * tr, c0 = u % cb * cw;",
        "            uint32_t nr = MinU(tr, rows - r0), nc = MinU(cw, width - c0);",
        "            uint32_t ldc = static_cast<uint32_t>((cw + BLK - 1) / BLK * BLK);",
        f"            if (mode == {ROWCOPY}) {{",
        "                CopyRows(r0, c0, nr, nc, ldc);",
        f"            }} else if (mode == {ROWGATHER}) {{",
        "                GatherRow(r0, c0, nc);",
        "            } else {",
        "                ScalarRows(r0, c0, nr, nc, ldc);",
        "            }",
        "        }",
        "    }",
        "",
        "private:",
        "    // The input offset of an output row's leading index (the indexed dim excluded).",
        "    __aicore__ inline int64_t RowBase(uint64_t row)",
        "    {",
        "        int64_t base = 0;",
        "        for (int32_t d = static_cast<int32_t>(lead) - 1; d >= 0; --d) {",
        "            base += static_cast<int64_t>(row % ld[d]) * xs[d];",
        "            row /= ld[d];",
        "        }",
        "        return base;",
        "    }",
        "    __aicore__ inline int64_t Index(uint64_t pos)",
        "    {",
        *read,
        "        return v < 0 ? v + static_cast<int64_t>(xSize) : v;  // torch: -1 is the last",
        "    }",
        "    __aicore__ inline void CopyRows(uint64_t r0, uint64_t c0, uint32_t nr, uint32_t nc, "
        "uint32_t ldc)",
        "    {",
        f"        LocalTensor<{ct}> b = qb.AllocTensor<{ct}>();",
        "        for (uint32_t r = 0; r < nr; ++r) {",
        "            uint64_t row = r0 + r;",
        "            int64_t src = RowBase(row) + Index(row % nIdx) * xsDim + c0;",
        "            LoadBlock(b[r * ldc], gm_x[src], 1, nc, nc, ldc);",
        "        }",
        "        qb.EnQue(b);",
        f"        b = qb.DeQue<{ct}>();",
        "        StoreBlock(gm_out[r0 * width + c0], b, nr, nc, width, ldc);",
        "        qb.FreeTensor(b);",
        "    }",
        "    __aicore__ inline void GatherRow(uint64_t row, uint64_t c0, uint32_t nc)",
        "    {",
        "        LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>();",
        "        // The previous Gather has read the table before the scalar unit rewrites it.",
        "        SetFlag<HardEvent::V_S>(EVENT_ID0);",
        "        WaitFlag<HardEvent::V_S>(EVENT_ID0);",
        "        uint64_t pos = row * idxRow + c0;",
        "        for (uint32_t j = 0; j < nc; ++j) {",
        f"            tab.SetValue(j, static_cast<uint32_t>(Index(pos + j) * {sz}));",
        "        }",
        "        SetFlag<HardEvent::S_V>(EVENT_ID0);",
        "        WaitFlag<HardEvent::S_V>(EVENT_ID0);",
        "        uint32_t spanPad = static_cast<uint32_t>((span + BLK - 1) / BLK * BLK);",
        f"        LocalTensor<{ct}> sp = qIn.AllocTensor<{ct}>();",
        "        LoadBlock(sp, gm_x[RowBase(row)], 1, static_cast<uint32_t>(span), span, spanPad);",
        "        qIn.EnQue(sp);",
        f"        sp = qIn.DeQue<{ct}>();",
        f"        LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
        f"        Gather(o{cast}, sp{cast}, tab, 0, nc);",
        "        qIn.FreeTensor(sp);",
        "        qOut.EnQue(o);",
        f"        o = qOut.DeQue<{ct}>();",
        "        StoreBlock(gm_out[row * width + c0], o, 1, nc, width, nc);",
        "        qOut.FreeTensor(o);",
        "    }",
        "    __aicore__ inline void ScalarRows(uint64_t r0, uint64_t c0, uint32_t nr, uint32_t nc, "
        "uint32_t ldc)",
        "    {",
        f"        LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
        "        for (uint32_t r = 0; r < nr; ++r) {",
        "            uint64_t row = r0 + r;",
        "            int64_t base = RowBase(row);",
        "            for (uint32_t j = 0; j < nc; ++j) {",
        "                uint64_t col = c0 + j;",
        "                int64_t src = base + Index(row * idxRow + col) * xsDim + col * jStride;",
        "                o.SetValue(r * ldc + j, gm_x.GetValue(src));",
        "            }",
        "        }",
        "        SetFlag<HardEvent::S_MTE3>(EVENT_ID0);",
        "        WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);",
        "        StoreBlock(gm_out[r0 * width + c0], o, nr, nc, width, ldc);",
        "        qOut.FreeTensor(o);",
        "    }",
        "",
        "    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> qb;",
        "    TQue<QuePosition::VECIN, 2> qIn;",
        "    TQue<QuePosition::VECOUT, 2> qOut;",
        "    TBuf<QuePosition::VECCALC> tabBuf;",
        f"    GlobalTensor<{ct}> gm_x, gm_out;",
        f"    GlobalTensor<{it}> gm_idx;",
        f"    uint64_t {', '.join(f'{n} = 0' for n in fields)};",
        "    uint64_t ld[MAXL] = {0}, xs[MAXL] = {0};",
        "    uint64_t unitStart = 0, unitEnd = 0;",
        "};",
    ]
    return "\n".join(head + body + tail)


# ---- upsample: nearest and bilinear resize of NCHW rows ----------------------------------------

RESIZE_W = 2048  # elements of each UB work row (the plan caps widths at MAX_RESIZE_WIDTH)


def _resize_fields(p: MovePlan) -> list[tuple[str, str]]:
    return [
        ("nc", "batch x channels"),
        ("inH", "input rows"),
        ("inW", "input columns"),
        ("outH", "output rows"),
        ("outW", "output columns"),
        ("unitsPerCore", "output rows of a small core"),
        ("bigCores", "cores with one more"),
    ]


def _resize_out_cpp(p: MovePlan, axis: int, in_expr: str) -> str:
    """torch's output size: the given size, else floor(input * scale) in double."""
    if p.size:
        return str(p.size[axis])
    assert p.scales is not None
    return f"static_cast<int64_t>(static_cast<double>({in_expr}) * {p.scales[axis]!r})"


def _resize_host(p: MovePlan, chip: Chip) -> str:
    x = p.parts[0]
    L = [
        f"// Host side of {p.op_name}: {p.mode} upsampling, tiling from the runtime input shape.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        f"    const gert::Shape& x = context->GetInputShape({x})->GetStorageShape();",
        "    int64_t nc = x.GetDim(0) * x.GetDim(1), inH = x.GetDim(2), inW = x.GetDim(3);",
        f"    int64_t outH = {_resize_out_cpp(p, 0, 'inH')};",
        f"    int64_t outW = {_resize_out_cpp(p, 1, 'inW')};",
        f"    if (inW > {RESIZE_W} || outW > {RESIZE_W}) {{",
        "        return ge::GRAPH_FAILED;  // the rows must fit the UB work buffers",
        "    }",
        "    uint64_t units = static_cast<uint64_t>(nc * outH);",
        *PLATFORM_LINES,
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        *[
            f"    tiling.set_{n}(static_cast<uint32_t>({n}));"
            for n in ("nc", "inH", "inW", "outH", "outW")
        ],
        *TILING_END_LINES,
    ]
    infer = [
        f"    const gert::Shape* x = context->GetInputShape({x});",
        "    gert::Shape* y = context->GetOutputShape(0);",
        "    y->SetDimNum(4);",
        "    y->SetDim(0, x->GetDim(0));",
        "    y->SetDim(1, x->GetDim(1));",
        f"    y->SetDim(2, {_resize_out_cpp(p, 0, 'x->GetDim(2)')});",
        f"    y->SetDim(3, {_resize_out_cpp(p, 1, 'x->GetDim(3)')});",
    ]
    params = input_params(p.inputs)
    params += io_param("Output", "out", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _resize_kernel(p: MovePlan, chip: Chip, head: list[str], tail: list[str]) -> str:
    ct = CTYPE[p.dtype]
    sz = DSIZE[p.dtype]
    blk = 32 // sz
    gt = "half" if p.dtype == "bfloat16" else ct
    cast = f".ReinterpretCast<{gt}>()" if gt != ct else ""
    ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
    scale = p.scales or [0.0, 0.0]
    consts = [
        f"constexpr int64_t BLK = {blk};  // elements per 32-byte block",
        f"constexpr uint32_t WROW = {RESIZE_W};",
        f"constexpr bool HAS_SCALE = {'true' if p.scales else 'false'};",
        f"constexpr double SCALE_H = {scale[0]!r}, SCALE_W = {scale[1]!r};",
        f"constexpr bool ALIGN = {'true' if p.align_corners else 'false'};",
        "",
        "// torch's compute_scales_value / area_pixel_compute_scale, in float as torch has it.",
        "__aicore__ inline float AxisScale(double given, int64_t in, int64_t out)",
        "{",
        "    if (ALIGN) {",
        "        return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;",
        "    }",
        "    if (HAS_SCALE && given > 0.0) {",
        "        return static_cast<float>(1.0 / given);",
        "    }",
        "    return static_cast<float>(in) / static_cast<float>(out);",
        "}",
    ]
    if p.mode == "nearest":
        consts += [
            "// torch's nearest_idx: identity, exact doubling, else floor(dst * scale) clamped.",
            "__aicore__ inline int64_t Nearest(int64_t dst, int64_t in, int64_t out, float scale)",
            "{",
            "    if (out == in) {",
            "        return dst;",
            "    }",
            "    if (out == 2 * in) {",
            "        return dst >> 1;",
            "    }",
            "    int64_t src = static_cast<int64_t>(floorf(static_cast<float>(dst) * scale));",
            "    return src < in - 1 ? src : in - 1;",
            "}",
        ]
    else:
        consts += [
            "// torch's area_pixel_compute_source_index + guard_index_and_lambda: the first",
            "// source index, its neighbour's step (0 at the edge) and the neighbour's weight.",
            "__aicore__ inline void Linear(int64_t dst, int64_t in, float scale, int64_t& i0, "
            "int64_t& step,",
            "                              float& l1)",
            "{",
            "    float src = ALIGN ? scale * static_cast<float>(dst)",
            "                      : scale * (static_cast<float>(dst) + 0.5f) - 0.5f;",
            "    if (!ALIGN && src < 0.0f) {",
            "        src = 0.0f;",
            "    }",
            "    i0 = static_cast<int64_t>(floorf(src));",
            "    i0 = i0 < in - 1 ? i0 : in - 1;",
            "    l1 = src - static_cast<float>(i0);",
            "    l1 = l1 < 0.0f ? 0.0f : (l1 > 1.0f ? 1.0f : l1);",
            "    step = i0 < in - 1 ? 1 : 0;",
            "}",
        ]
    init = [
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        "        nc = td.nc; inH = td.inH; inW = td.inW; outH = td.outH; outW = td.outW;",
        f"        gm_in.SetGlobalBuffer((__gm__ {ct}*)in{p.parts[0]}, nc * inH * inW);",
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, nc * outH * outW);",
        f"        pipe->InitBuffer(qIn, 2, 2 * WROW * sizeof({ct}));",
        f"        pipe->InitBuffer(qOut, 2, WROW * sizeof({ct}));",
        "        pipe->InitBuffer(tabBuf, 2 * WROW * sizeof(uint32_t));",
        "        scaleH = AxisScale(SCALE_H, inH, outH);",
        "        float scaleW = AxisScale(SCALE_W, inW, outW);",
        "        LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>();",
    ]
    if p.mode == "nearest":
        init += [
            "        for (uint64_t j = 0; j < outW; ++j) {",
            "            int64_t src = Nearest(static_cast<int64_t>(j), inW, outW, scaleW);",
            f"            tab.SetValue(j, static_cast<uint32_t>(src * {sz}));",
            "        }",
        ]
        row = [
            "            uint64_t c = u / outH, h = u % outH;",
            "            int64_t ih = Nearest(static_cast<int64_t>(h), inH, outH, scaleH);",
            f"            LocalTensor<{ct}> r = qIn.AllocTensor<{ct}>();",
            "            LoadBlock(r, gm_in[(c * inH + ih) * inW], 1, inW, inW, WROW);",
            "            qIn.EnQue(r);",
            f"            r = qIn.DeQue<{ct}>();",
            f"            LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
            "            LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>();",
            f"            Gather(o{cast}, r{cast}, tab, 0, outW);",
            "            qIn.FreeTensor(r);",
        ]
    else:
        init += [
            "        // weights (2 rows), products a, b, d, the two source rows as float (2 rows)",
            "        pipe->InitBuffer(workBuf, 7 * WROW * sizeof(float));",
            "        LocalTensor<float> w = workBuf.Get<float>();",
            "        for (uint64_t j = 0; j < outW; ++j) {",
            "            int64_t i0 = 0, step = 0;",
            "            float l1 = 0.0f;",
            "            Linear(static_cast<int64_t>(j), inW, scaleW, i0, step, l1);",
            "            tab.SetValue(j, static_cast<uint32_t>(i0 * 4));  // float rows",
            "            tab.SetValue(WROW + j, static_cast<uint32_t>((i0 + step) * 4));",
            "            w.SetValue(j, 1.0f - l1);",
            "            w.SetValue(WROW + j, l1);",
            "        }",
        ]
        load = [
            "            uint64_t c = u / outH, h = u % outH;",
            "            int64_t ih = 0, step = 0;",
            "            float lh = 0.0f;",
            "            Linear(static_cast<int64_t>(h), inH, scaleH, ih, step, lh);",
            "            uint64_t src = (c * inH + ih) * inW;",
            f"            LocalTensor<{ct}> r = qIn.AllocTensor<{ct}>();",
            "            LoadBlock(r, gm_in[src], 1, inW, inW, WROW);",
            "            LoadBlock(r[WROW], gm_in[src + step * inW], 1, inW, inW, WROW);",
            "            qIn.EnQue(r);",
            f"            r = qIn.DeQue<{ct}>();",
            "            LocalTensor<float> w = workBuf.Get<float>();",
            "            LocalTensor<float> lw0 = w, lw1 = w[WROW], a = w[2 * WROW];",
            "            LocalTensor<float> b = w[3 * WROW], d = w[4 * WROW], f = w[5 * WROW];",
        ]
        if ct == "float":
            load += ["            LocalTensor<float> rows = r;"]
        else:
            load += [
                "            LocalTensor<float> rows = f;",
                "            Cast(rows, r, RoundMode::CAST_NONE, 2 * WROW);",
            ]
        row = [
            *load,
            "            LocalTensor<uint32_t> tab = tabBuf.Get<uint32_t>();",
            "            LocalTensor<uint32_t> tab1 = tab[WROW];",
            "            // top = x[ih][w0] * (1 - lw) + x[ih][w1] * lw; bottom from row ih + step",
            "            Gather(a, rows, tab, 0, outW);",
            "            Gather(b, rows, tab1, 0, outW);",
            "            Mul(a, a, lw0, outW);",
            "            Mul(b, b, lw1, outW);",
            "            Add(a, a, b, outW);",
            "            Muls(a, a, 1.0f - lh, outW);",
            "            LocalTensor<float> rows1 = rows[WROW];",
            "            LocalTensor<float> c0 = b;",
            "            Gather(c0, rows1, tab, 0, outW);",
            "            Mul(c0, c0, lw0, outW);",
            "            Gather(d, rows1, tab1, 0, outW);",
            "            Mul(d, d, lw1, outW);",
            "            Add(c0, c0, d, outW);",
            "            Muls(c0, c0, lh, outW);",
            "            qIn.FreeTensor(r);",
            f"            LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
            *(
                ["            Add(o, a, c0, outW);"]
                if ct == "float"
                else [
                    "            Add(a, a, c0, outW);",
                    "            Cast(o, a, RoundMode::CAST_RINT, outW);",
                ]
            ),
        ]
    body = [
        *consts,
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        *init,
        "        // The tables are written on the scalar unit and read by the vector Gathers.",
        "        SetFlag<HardEvent::S_V>(EVENT_ID0);",
        "        WaitFlag<HardEvent::S_V>(EVENT_ID0);",
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        *row,
        "            qOut.EnQue(o);",
        f"            o = qOut.DeQue<{ct}>();",
        "            StoreBlock(gm_out[u * outW], o, 1, outW, outW, WROW);",
        "            qOut.FreeTensor(o);",
        "        }",
        "    }",
        "",
        "private:",
        "    TQue<QuePosition::VECIN, 2> qIn;",
        "    TQue<QuePosition::VECOUT, 2> qOut;",
        "    TBuf<QuePosition::VECCALC> tabBuf, workBuf;",
        f"    GlobalTensor<{ct}> gm_in, gm_out;",
        "    uint64_t nc = 0, inH = 0, inW = 0, outH = 0, outW = 0;",
        "    uint64_t unitStart = 0, unitEnd = 0;",
        "    float scaleH = 0.0f;",
        "};",
    ]
    return "\n".join(head + body + tail)


# ---- scatter: index_put / index_add rows, scatter / scatter_add elements ----------------------


def _scatter_fields(p: MovePlan) -> list[tuple[str, str]]:
    return [
        ("outer", "product of the axes before the indexed one"),
        ("size", "length of the indexed axis"),
        ("inner", "product of the axes after it"),
        ("nK", "index entries along the axis (index_put: indices)"),
        ("cw", "columns of a slab"),
        ("cb", "column blocks"),
        ("xLen", "input elements"),
        ("idxLen", "index elements"),
        ("unitsPerCore", "slabs of a small core"),
        ("bigCores", "cores with one more"),
    ]


def _scatter_host(p: MovePlan, chip: Chip) -> str:
    sz = DSIZE[p.dtype]
    slab = SCATTER_SLAB_BYTES // sz
    blk = 32 // sz
    x, ix = p.parts[0], p.index
    rank = len(p.out_shape)
    k_expr = (
        f"context->GetInputShape({ix})->GetStorageShape().GetShapeSize()"
        if p.rows
        else f"Dim(context, {ix}, {p.dim})"
    )
    L = [
        f"// Host side of {p.op_name}: scatter, tiling from the runtime input shapes.",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        "static int64_t Dim(gert::TilingContext* context, uint32_t input, uint32_t dim)",
        "{",
        "    return context->GetInputShape(input)->GetStorageShape().GetDim(dim);",
        "}",
        "",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        "    int64_t outer = 1, inner = 1;",
        *[f"    outer *= Dim(context, {x}, {d});" for d in range(p.dim)],
        *[f"    inner *= Dim(context, {x}, {d});" for d in range(p.dim + 1, rank)],
        f"    int64_t size = Dim(context, {x}, {p.dim});",
        f"    int64_t nK = {k_expr};",
        "    // A slab (the whole indexed axis x cw columns) stays in UB while it is updated.",
        "    int64_t cw = 1;",
        "    if (inner > 1) {",
        f"        cw = {slab} / (size > 0 ? size : 1) / {blk} * {blk};",
        "        cw = cw > inner ? inner : cw;",
        "    }",
        f"    if (cw < 1 || (inner == 1 && size > {slab})) {{",
        "        return ge::GRAPH_FAILED;  // the indexed axis does not fit one UB slab",
        "    }",
        "    int64_t cb = (inner + cw - 1) / cw;",
        f"    int64_t xLen = context->GetInputShape({x})->GetStorageShape().GetShapeSize();",
        f"    int64_t idxLen = context->GetInputShape({ix})->GetStorageShape().GetShapeSize();",
        "    uint64_t units = static_cast<uint64_t>(outer * cb);",
        *PLATFORM_LINES,
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        *[
            f"    tiling.set_{n}(static_cast<uint32_t>({n}));"
            for n in ("outer", "size", "inner", "nK", "cw", "cb", "xLen", "idxLen")
        ],
        *TILING_END_LINES,
    ]
    infer = [
        f"    const gert::Shape* x = context->GetInputShape({x});",
        "    gert::Shape* y = context->GetOutputShape(0);",
        "    *y = *x;",
    ]
    params = input_params(p.inputs)
    params += io_param("Output", "out", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _scatter_kernel(p: MovePlan, chip: Chip, head: list[str], tail: list[str]) -> str:
    ct = CTYPE[p.dtype]
    it = CTYPE[p.index_dtype]
    blk = 32 // DSIZE[p.dtype]
    ins = [f"GM_ADDR in{i}" for i in range(len(p.inputs))]
    # 16-bit sums accumulate in a float copy of the slab (one rounding, as the reference).
    wide = p.accumulate and ct != "float"
    if wide:
        upd = ["                    w.SetValue(at, w.GetValue(at) + static_cast<float>(v));"]
        to_scalar = [
            "            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);",
            "            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);",
            "            LocalTensor<float> w = wBuf.Get<float>();",
            "            Cast(w, b, RoundMode::CAST_NONE, slabLen);",
            "            SetFlag<HardEvent::V_S>(EVENT_ID0);",
            "            WaitFlag<HardEvent::V_S>(EVENT_ID0);",
        ]
        to_store = [
            "            SetFlag<HardEvent::S_V>(EVENT_ID0);",
            "            WaitFlag<HardEvent::S_V>(EVENT_ID0);",
            "            Cast(b, w, RoundMode::CAST_RINT, slabLen);",
            "            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);",
            "            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);",
        ]
    else:
        upd = (
            [f"                    b.SetValue(at, static_cast<{ct}>(b.GetValue(at) + v));"]
            if p.accumulate
            else ["                    b.SetValue(at, v);"]
        )
        to_scalar = [
            "            SetFlag<HardEvent::MTE2_S>(EVENT_ID0);",
            "            WaitFlag<HardEvent::MTE2_S>(EVENT_ID0);",
        ]
        to_store = [
            "            SetFlag<HardEvent::S_MTE3>(EVENT_ID0);",
            "            WaitFlag<HardEvent::S_MTE3>(EVENT_ID0);",
        ]
    dma: list[str] = []
    if p.rows and not p.accumulate:
        # index_put of rows: each value row DMA'd over its slab row, in index order (the
        # copies queue on MTE2 behind the slab's load: the last index wins); rows of one
        # element (unaligned UB rows) go through the scalar loop below.
        dma = [
            "            if (inner > 1) {",
            "                for (uint64_t k = 0; k < nK; ++k) {",
            "                    int64_t r = Index(k);",
            "                    LoadBlock(b[r * ldc], gm_v[k * inner + c0], 1, nc, nc, ldc);",
            "                }",
            "                SetFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);",
            "                WaitFlag<HardEvent::MTE2_MTE3>(EVENT_ID0);",
            "            } else {",
            *["    " + ln for ln in to_scalar],
        ]
    if p.rows and p.accumulate:
        # index_add of rows: each value row loaded into UB and added to its slab row on the
        # vector unit, in index order (repeated indices accumulate); rows of one element
        # (unaligned UB rows) go through the scalar loop below.
        add = (
            [
                "                    LocalTensor<float> f = fBuf.Get<float>();",
                "                    Cast(f, t, RoundMode::CAST_NONE, nc);",
                "                    Add(w[r * ldc], w[r * ldc], f, nc);",
            ]
            if wide
            else ["                    Add(b[r * ldc], b[r * ldc], t, nc);"]
        )
        dma = [
            *(
                to_scalar
                if wide
                else [
                    "            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);",
                    "            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);",
                ]
            ),
            "            if (inner > 1) {",
            "                for (uint64_t k = 0; k < nK; ++k) {",
            "                    int64_t r = Index(k);",
            f"                    LocalTensor<{ct}> t = qIn.AllocTensor<{ct}>();",
            "                    LoadBlock(t, gm_v[k * inner + c0], 1, nc, nc, ldc);",
            "                    qIn.EnQue(t);",
            f"                    t = qIn.DeQue<{ct}>();",
            *add,
            "                    qIn.FreeTensor(t);",
            "                }",
            *(
                []
                if wide
                else [
                    "                SetFlag<HardEvent::V_MTE3>(EVENT_ID0);",
                    "                WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);",
                ]
            ),
            "            } else {",
            *([] if wide else ["    " + ln for ln in to_scalar]),
        ]
    if p.rows:
        # index_put: one index per row k; values row k holds the row's inner columns.
        pos = [
            "            for (uint64_t k = 0; k < nK; ++k) {",
            "                int64_t r = Index(k);",
            "                for (uint32_t i = 0; i < nc; ++i) {",
            "                    uint64_t at = inner == 1 ? r : r * ldc + i;",
            f"                    {ct} v = gm_v.GetValue(k * inner + c0 + i);",
        ]
    else:
        pos = [
            "            for (uint64_t k = 0; k < nK; ++k) {",
            "                for (uint32_t i = 0; i < nc; ++i) {",
            "                    uint64_t e = (o * nK + k) * inner + c0 + i;",
            "                    int64_t r = Index(e);",
            "                    uint64_t at = inner == 1 ? r : r * ldc + i;",
            f"                    {ct} v = gm_v.GetValue(e);",
        ]
    loop = [*pos, *upd, "                }", "            }"]
    body = [
        f"// scatter{' (accumulating)' if p.accumulate else ''}: work unit = one slab of the "
        "output (outer index o, the",
        "// whole indexed axis, columns [c0, c0 + cw)): the input slab in UB, its updates applied",
        "// in index order on the scalar unit, the slab out. No two cores share an element.",
        f"constexpr int64_t BLK = {blk};  // elements per 32-byte block",
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({', '.join(ins)}, GM_ADDR out, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        "        outer = td.outer; size = td.size; inner = td.inner; nK = td.nK;",
        "        cw = td.cw; cb = td.cb;",
        f"        gm_x.SetGlobalBuffer((__gm__ {ct}*)in{p.parts[0]}, td.xLen);",
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, td.xLen);",
        f"        gm_idx.SetGlobalBuffer((__gm__ {it}*)in{p.index}, td.idxLen);",
        f"        gm_v.SetGlobalBuffer((__gm__ {ct}*)in{p.values}, td.idxLen * "
        f"{'td.inner' if p.rows else '1'});",
        f"        pipe->InitBuffer(qb, 2, {SCATTER_SLAB_BYTES});",
        *(
            [
                f"        pipe->InitBuffer(wBuf, {SCATTER_SLAB_BYTES // DSIZE[p.dtype]} * "
                "sizeof(float));"
            ]
            if wide
            else []
        ),
        *(
            [
                f"        pipe->InitBuffer(qIn, 2, {SCATTER_SLAB_BYTES});",
                f"        pipe->InitBuffer(fBuf, {SCATTER_SLAB_BYTES // DSIZE[p.dtype]} * "
                "sizeof(float));",
            ]
            if p.rows and p.accumulate
            else []
        ),
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            uint64_t o = u / cb, c0 = u % cb * cw;",
        "            uint32_t nc = MinU(cw, inner - c0);",
        "            uint32_t ldc = static_cast<uint32_t>((cw + BLK - 1) / BLK * BLK);",
        "            uint64_t base = o * size * inner + c0;",
        f"            LocalTensor<{ct}> b = qb.AllocTensor<{ct}>();",
        "            if (inner == 1) {",
        "                LoadBlock(b, gm_x[base], 1, size, size, (size + BLK - 1) / BLK * BLK);",
        "            } else {",
        "                LoadBlock(b, gm_x[base], size, nc, inner, ldc);",
        "            }",
        "            uint32_t slabLen = static_cast<uint32_t>(",
        "                inner == 1 ? (size + BLK - 1) / BLK * BLK : size * ldc);",
        *([*dma, *["    " + ln for ln in loop], "            }"] if dma else [*to_scalar, *loop]),
        *to_store,
        "            if (inner == 1) {",
        "                StoreBlock(gm_out[base], b, 1, size, size, (size + BLK - 1) / BLK * BLK);",
        "            } else {",
        "                StoreBlock(gm_out[base], b, size, nc, inner, ldc);",
        "            }",
        "            // The next slab's load reuses this UB once the store has read it.",
        "            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);",
        "            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);",
        "            qb.FreeTensor(b);",
        "        }",
        "    }",
        "",
        "private:",
        "    __aicore__ inline int64_t Index(uint64_t pos)",
        "    {",
        "        int64_t v = static_cast<int64_t>(gm_idx.GetValue(pos));",
        "        return v < 0 ? v + static_cast<int64_t>(size) : v;  // torch: -1 is the last",
        "    }",
        "",
        "    TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> qb;",
        "    TQue<QuePosition::VECIN, 2> qIn;",
        "    TBuf<QuePosition::VECCALC> wBuf, fBuf;",
        f"    GlobalTensor<{ct}> gm_x, gm_out, gm_v;",
        f"    GlobalTensor<{it}> gm_idx;",
        "    uint64_t outer = 0, size = 0, inner = 0, nK = 0, cw = 1, cb = 1;",
        "    uint64_t unitStart = 0, unitEnd = 0;",
        "};",
    ]
    return "\n".join(head + body + tail)


# ---- arange: an output from literal bounds ------------------------------------------------------

ARANGE_TILE = 4096  # elements per work unit


def _arange_fields(p: MovePlan) -> list[tuple[str, str]]:
    return [
        ("n", "output elements"),
        ("unitsPerCore", "tiles of a small core"),
        ("bigCores", "cores with one more"),
    ]


def _arange_host(p: MovePlan, chip: Chip) -> str:
    n = p.out_shape[0] if p.out_shape else 1
    L = [
        f"// Host side of {p.op_name}: arange of {n} elements (literal bounds, no inputs).",
        f'#include "{p.kernel_name}_tiling.h"',
        '#include "register/op_def_registry.h"',
        '#include "tiling/platform/platform_ascendc.h"',
        "",
        "namespace optiling {",
        "static ge::graphStatus TilingFunc(gert::TilingContext* context)",
        "{",
        f"    {p.op_name}TilingData tiling;",
        f"    uint64_t n = {n};",
        f"    uint64_t units = (n + {ARANGE_TILE - 1}) / {ARANGE_TILE};",
        *PLATFORM_LINES,
        *BLOCK_DIM_LINES,
        "    context->SetBlockDim(static_cast<uint32_t>(blockDim));",
        "    tiling.set_n(static_cast<uint32_t>(n));",
        *TILING_END_LINES,
    ]
    infer = [
        "    gert::Shape* y = context->GetOutputShape(0);",
        "    y->SetDimNum(1);",
        f"    y->SetDim(0, {n});",
    ]
    params = input_params(p.inputs)
    params += io_param("Output", "out", p.dtype)
    L += registration(p.op_name, infer, params, chip)
    return "\n".join(L)


def _arange_kernel(p: MovePlan, chip: Chip, head: list[str], tail: list[str]) -> str:
    ct = CTYPE[p.dtype]
    ins = [f"GM_ADDR in{i}, " for i in range(len(p.inputs))]
    if p.dtype in ARANGE_VECTOR:
        make = [
            "            LocalTensor<int32_t> iv = idxBuf.Get<int32_t>();",
            "            CreateVecIndex(iv, static_cast<int32_t>(i0), len);",
        ]
        if p.dtype == "int32":
            make += [
                f"            Muls(o, iv, static_cast<int32_t>({int(p.step)}), len);",
                f"            Adds(o, o, static_cast<int32_t>({int(p.arange_start)}), len);",
            ]
        else:
            dst = "o" if ct == "float" else "f"
            make += [
                "            LocalTensor<float> f = fBuf.Get<float>();",
                "            Cast(f, iv, RoundMode::CAST_NONE, len);",
                f"            Muls(f, f, static_cast<float>({p.step!r}), len);",
                f"            Adds({dst}, f, static_cast<float>({p.arange_start!r}), len);",
            ]
            if ct != "float":
                make.append("            Cast(o, f, RoundMode::CAST_RINT, len);")
        buffers = [
            "        pipe->InitBuffer(idxBuf, TILE * sizeof(int32_t));",
            "        pipe->InitBuffer(fBuf, TILE * sizeof(float));",
        ]
    else:
        make = [
            "            for (uint32_t i = 0; i < len; ++i) {",
            f"                o.SetValue(i, static_cast<{ct}>({int(p.arange_start)}) + "
            f"static_cast<{ct}>(i0 + i) * static_cast<{ct}>({int(p.step)}));",
            "            }",
            "            SetFlag<HardEvent::S_V>(EVENT_ID0);",
            "            WaitFlag<HardEvent::S_V>(EVENT_ID0);",
        ]
        buffers = []
    body = [
        f"// arange: out[i] = {p.arange_start!r} + i * {p.step!r}; work unit = one tile.",
        f"constexpr uint32_t TILE = {ARANGE_TILE};",
        "",
        f"class Kernel{p.op_name} {{",
        "public:",
        "    template <typename TilingT>",
        f"    __aicore__ inline void Init({''.join(ins)}GM_ADDR out, const TilingT& td, "
        "TPipe* pipe)",
        "    {",
        "        uint64_t idx = GetBlockIdx();",
        "        uint64_t upc = td.unitsPerCore;",
        "        unitStart = idx * upc + (idx < td.bigCores ? idx : td.bigCores);",
        "        unitEnd = unitStart + upc + (idx < td.bigCores ? 1 : 0);",
        "        n = td.n;",
        f"        gm_out.SetGlobalBuffer((__gm__ {ct}*)out, n);",
        f"        pipe->InitBuffer(qOut, 2, TILE * sizeof({ct}));",
        *buffers,
        "    }",
        "    __aicore__ inline void Process()",
        "    {",
        "        for (uint64_t u = unitStart; u < unitEnd; ++u) {",
        "            uint64_t i0 = u * TILE;",
        "            uint32_t len = MinU(TILE, n - i0);",
        f"            LocalTensor<{ct}> o = qOut.AllocTensor<{ct}>();",
        *make,
        "            qOut.EnQue(o);",
        f"            o = qOut.DeQue<{ct}>();",
        "            StoreBlock(gm_out[i0], o, 1, len, len, TILE);",
        "            qOut.FreeTensor(o);",
        "        }",
        "    }",
        "",
        "private:",
        "    TQue<QuePosition::VECOUT, 2> qOut;",
        "    TBuf<QuePosition::VECCALC> idxBuf, fBuf;",
        f"    GlobalTensor<{ct}> gm_out;",
        "    uint64_t n = 0, unitStart = 0, unitEnd = 0;",
        "};",
    ]
    return "\n".join(head + body + tail)
