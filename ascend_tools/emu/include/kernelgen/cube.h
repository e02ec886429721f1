// Low-level cube path: LoadData (512-byte fractal copies L1/GM -> L0A/L0B, optional 16x16
// transpose), LoadDataWithTranspose (b8/b16/b32 squares, below), Mmad (L0A x L0B -> L0C in
// float/int32) and Fixpipe (L0C -> GM/L1, NZ -> ND).
//
// Layouts (C0 = 32 bytes / sizeof(T) elements, a fractal = 16 rows x C0 = 512 bytes):
//   L0A holds A[M, K] "zZ": fractal (fm, fk) at index fm * K1 + fk, element (i, k) at i * C0 + k.
//   L0B holds B[K, N] "ZN" (small n, big Z: column-major inside a fractal, row-major between
//       fractals; AscendC Mmad, "matrix B"): fractal (fk, fn) at index fk * N1 + fn, element
//       (k, n) at n * C0 + k (a B fractal in L1 "Nz" loaded with ifTranspose). N1 = ceil(N / 16).
//   L0C holds C[M, N] "Nz": fractal (fm, fn) at index fn * M1 + fm, element (i, j) at i * 16 + j.
// K1 = ceil(K / C0), M1 = ceil(M / 16), N1 = ceil(N / 16).
#pragma once

#include "copy.h"

// Conversion applied by Fixpipe on the way out (the destination type decides the rounding).
enum QuantMode_t : uint8_t {
    NoQuant = 0, F322F16, F322BF16, DEQF16, VDEQF16, QF322B8_PRE, VQF322B8_PRE, REQ8, VREQ8, DEQS322, VDEQS322,
};

namespace AscendC {

struct LoadData2DParams {
    uint16_t startIndex = 0;  // first source fractal (512-byte units)
    uint8_t repeatTimes = 0;  // fractals to copy
    uint16_t srcStride = 0;   // source fractals between consecutive repeats
    uint8_t sid = 0;
    uint16_t dstGap = 0;      // destination fractals skipped after each one written
    bool ifTranspose = false; // transpose each 16x16 fractal (2-byte types)
    uint8_t addrMode = 0;
    LoadData2DParams() = default;
    LoadData2DParams(uint16_t start, uint8_t repeat, uint16_t srcStrideIn, uint8_t sidIn, uint16_t dstGapIn,
                     bool transpose, uint8_t addrModeIn)
        : startIndex(start), repeatTimes(repeat), srcStride(srcStrideIn), sid(sidIn), dstGap(dstGapIn),
          ifTranspose(transpose), addrMode(addrModeIn) {}
};
// The CANN 7.0.0 API reference names the same structure LoadData2dParams (LoadData, table 2:
// startIndex, repeatTimes, srcStride, sid, dstGap, ifTranspose, addrMode); kernels of that
// release use the name.
using LoadData2dParams = LoadData2DParams;

struct MmadParams {
    uint16_t m = 0, n = 0, k = 0;
    bool isBias = false;
    int32_t fmOffset = 0;
    bool enSsparse = false, enWinogradA = false, enWinogradB = false;
    uint8_t unitFlag = 0;
    bool kDirectionAlign = false, cmatrixSource = false;
    bool cmatrixInitVal = true;  // true: C = A x B; false: C += A x B
    MmadParams() = default;
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, bool bias, int32_t fm, bool sparse, bool winoA, bool winoB)
        : m(mIn), n(nIn), k(kIn), isBias(bias), fmOffset(fm), enSsparse(sparse), enWinogradA(winoA),
          enWinogradB(winoB) {}
    MmadParams(uint16_t mIn, uint16_t nIn, uint16_t kIn, uint8_t unit, bool kAlign, bool init)
        : m(mIn), n(nIn), k(kIn), unitFlag(unit), kDirectionAlign(kAlign), cmatrixInitVal(init) {}
};

struct FixpipeParamsV220 {
    uint16_t nSize = 0, mSize = 0;
    uint16_t srcStride = 0;  // L0C: M of the source padded to 16 (fractal column length)
    uint32_t dstStride = 0;  // ND destination: elements between rows
    QuantMode_t quantPre = NoQuant;
    uint64_t deqScalar = 0;
    uint16_t ndNum = 1, srcNdStride = 0, dstNdStride = 0;
    bool reluEn = false;
    uint8_t unitFlag = 0;
    bool isChannelSplit = false;
    FixpipeParamsV220() = default;
    FixpipeParamsV220(uint16_t n, uint16_t m, uint16_t src, uint32_t dst, bool relu)
        : nSize(n), mSize(m), srcStride(src), dstStride(dst), reluEn(relu) {}
};

enum class CO2Layout : uint8_t { NZ = 0, ROW_MAJOR, COLUMN_MAJOR };
struct FixpipeConfig {
    CO2Layout format;
};
inline constexpr FixpipeConfig CFG_NZ{CO2Layout::NZ};
inline constexpr FixpipeConfig CFG_ROW_MAJOR{CO2Layout::ROW_MAJOR};

namespace detail {

inline bool is_l0_position(TPosition p) { return p == TPosition::A2 || p == TPosition::B2; }

// Start-address alignment of the cube path's on-chip memories (AscendC API reference, "General
// restrictions", table 2, CANN 8.0 atlasascendc_api_07_0004: L1 32 B, L0A/L0B 512 B (one
// fractal), L0C 64 B, BT 64 B). ascend_tools/lint/rules/cube.py keeps the same table.
struct CubeAlign {
    TPosition pos;
    const char* memory;
    uint32_t bytes;
};
inline constexpr CubeAlign kCubeAlign[] = {
    {TPosition::A1, "L1", 32},   {TPosition::B1, "L1", 32},    {TPosition::C1, "L1", 32},
    {TPosition::TSCM, "L1", 32}, {TPosition::A2, "L0A", 512},  {TPosition::B2, "L0B", 512},
    {TPosition::CO1, "L0C", 64}, {TPosition::C2, "BT", 64},
};

// A cube operand whose start breaks its memory's alignment: the hardware addresses L0A/L0B in
// whole fractals, so the data would be read from the wrong place (`fractal-align`).
template <class T>
inline void check_cube_start(const char* api, const char* role, const LocalTensor<T>& t, const char* file, int line) {
    for (const auto& a : kCubeAlign)
        if (a.pos == t.GetPosition() && t.ub_offset() % a.bytes != 0)
            kernelgen::failf("fractal-align", file, line, "%s: %s starts at %s offset %llu, not %u-byte aligned%s", api,
                             role, a.memory, (unsigned long long)t.ub_offset(), a.bytes,
                             a.bytes == 512 ? " (L0A/L0B are addressed in 512-byte fractals)" : "");
}

// `pipe`: MTE1 for L1 -> L0 (it reads src), MTE2 for GM -> L0/L1.
template <class T>
inline void load_fractals(const LocalTensor<T>& dst, const T* src, uint64_t src_elems, const LoadData2DParams& p,
                          kernelgen::Pipe pipe, const char* file, int line) {
    const char* api = "LoadData";
    if (!is_l0_position(dst.GetPosition()) && !kernelgen::is_l1_position(dst.GetPosition()))
        kernelgen::failf("tensor-position", file, line, "%s: dst is in position %s; LoadData fills A2/B2 (or L1)", api,
                         position_name(dst.GetPosition()));
    check_cube_start(api, "dst", dst, file, line);
    if (p.ifTranspose && sizeof(T) != 2)
        kernelgen::failf("param-range", file, line, "%s: ifTranspose needs a 2-byte type (16x16 fractals); %s given", api,
                         kernelgen::type_name<T>());
    constexpr uint64_t frac = 512 / sizeof(T);
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        uint64_t s = (uint64_t(p.startIndex) + uint64_t(r) * p.srcStride) * frac;
        uint64_t d = uint64_t(r) * (1 + p.dstGap) * frac;
        if (s + frac > src_elems)
            kernelgen::failf("count-exceeds-tensor", file, line, "%s: repeat %u reads fractal elements [%llu, %llu) of a %llu-element source",
                             api, r, (unsigned long long)s, (unsigned long long)(s + frac), (unsigned long long)src_elems);
        if (d + frac > dst.GetSize())
            kernelgen::failf("count-exceeds-tensor", file, line, "%s: repeat %u writes fractal elements [%llu, %llu) of a %u-element dst",
                             api, r, (unsigned long long)d, (unsigned long long)(d + frac), dst.GetSize());
        if (pipe == kernelgen::Pipe::MTE1) kernelgen::pipe_model().access(pipe, api, src + s, 512, false, file, line);
        kernelgen::pipe_model().access(pipe, api, dst.data() + d, 512, true, file, line);
        (pipe == kernelgen::Pipe::MTE1 ? kernelgen::counters().l1_to_l0_bytes : kernelgen::counters().gm_to_l1_bytes) +=
            512;
        if (p.ifTranspose) {
            for (int i = 0; i < 16; ++i)
                for (int j = 0; j < 16; ++j) dst.data()[d + uint64_t(j) * 16 + i] = src[s + uint64_t(i) * 16 + j];
        } else {
            std::memmove(dst.data() + d, src + s, 512);
        }
    }
}

}  // namespace detail

template <class T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2DParams& p, KG_LOC) {
    if (!kernelgen::is_l1_position(src.GetPosition()))
        kernelgen::failf("tensor-position", file, line, "LoadData: src is in position %s; it reads L1 (A1/B1)",
                         position_name(src.GetPosition()));
    detail::check_cube_start("LoadData", "src", src, file, line);
    detail::load_fractals(dst, src.data(), src.GetSize(), p, kernelgen::Pipe::MTE1, file, line);
}
template <class T>
inline void LoadData(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const LoadData2DParams& p, KG_LOC) {
    constexpr uint64_t frac = 512 / sizeof(T);
    uint64_t last = p.repeatTimes ? (uint64_t(p.startIndex) + uint64_t(p.repeatTimes - 1) * p.srcStride + 1) * frac : 0;
    src.check_access("LoadData(GM)", 0, last, false, file, line);
    detail::load_fractals(dst, src.data(), last, p, kernelgen::Pipe::MTE2, file, line);
}

// ---------------------------------------------------------------- LoadDataWithTranspose
// L1 (A1/B1) -> L0A/L0B with a transposition (AscendC API reference, LoadDataWithTranspose,
// CANN 8.5/9.0 ascendcopapi/atlasascendc_api_07_0239; the same text is atlasascendc_api_07_0234
// in CANN 8.0.RC2). Facts from the page:
// - Each repeat transposes one "square" (方块矩阵): b16 (half/bfloat16_t) one 16 x 16 fractal;
//   b8 (int8_t/uint8_t) "2 consecutive 16*32 fractals merged into one 32*32 square", transposed,
//   then "split into 2 16*32 fractals"; b32 (float/int32_t/uint32_t) 2 consecutive 16*8
//   fractals merged into one 16*16 square, transposed, split into 2 16*8 fractals.
// - startIndex: the square the first repeat reads (its example: 20 float 16*8 fractals,
//   startIndex = 1 reads the 3rd and 4th); srcStride: squares between the squares of adjacent
//   repeats (units 32*32*1B, 16*16*2B, 16*16*4B); addrMode true: each repeat's source address is
//   the previous one minus srcStride, false: plus.
// - dstGap: 512-byte units from the end of a repeat's first dst fractal to the start of the next
//   repeat's first one; dstFracGap: 512-byte units between the end of a repeat's first dst
//   fractal and the start of its second (b8/b32; "no effect" for b16, one fractal a repeat).
//   The figures: b8 repeat 3, dstGap 1, dstFracGap 0 fills fractals 0..5 in order; dstGap 0,
//   dstFracGap 2 puts repeat r's fractals at r and r + 3.
// - repeatTimes 0 moves nothing; the caller must keep the transposed fractals from overlapping;
//   dst A2/B2 512-byte aligned, src A1/B1 32-byte aligned; int4b_t (B1 -> B2 only) is the
//   fourth type on A2/A3.
// Inferred (the figures are images): a fractal is 16 rows x C0 (32 bytes) stored row by row,
// the square places its two fractals along the axis that has to grow to make it square: b8
// fractal 0 holds the square's rows 0-15 and fractal 1 rows 16-31; b32 fractal 0 its columns
// 0-7 and fractal 1 columns 8-15; the split after the transposition is the same placement.
// This is the reading under which the page's own float example (B[16, 32] in Nz, repeatTimes =
// n / 16, dstFracGap = n / 16 - 1) and its int8 example (B[32, 64], dstGap 1) produce exactly
// the L0B "ZN" layout Mmad reads above (element (k, n) of fractal (fk, fn) at n * C0 + k,
// fractal at fk * N1 + fn). int4b_t (64 x 64 squares) is not emulated.
struct LoadData2dTransposeParams {
    uint16_t startIndex = 0;  // first source square
    uint8_t repeatTimes = 0;  // squares to transpose
    uint16_t srcStride = 0;   // squares between the squares of adjacent repeats
    uint16_t dstGap = 0;      // 512 B units: end of a repeat's first dst fractal -> the next repeat's first
    uint16_t dstFracGap = 0;  // 512 B units between a repeat's two dst fractals (b8/b32)
    uint8_t addrMode = 0;     // nonzero: the source address steps down by srcStride
    LoadData2dTransposeParams() = default;
    LoadData2dTransposeParams(uint16_t start, uint8_t repeat, uint16_t srcStrideIn, uint16_t dstGapIn, uint16_t dstFracGapIn,
                              uint8_t addrModeIn = 0)
        : startIndex(start), repeatTimes(repeat), srcStride(srcStrideIn), dstGap(dstGapIn), dstFracGap(dstFracGapIn),
          addrMode(addrModeIn) {}
};

namespace detail {

// Element (row, col) of a transposing load's square: its fractal in the square (0 or 1) and
// its offset in that fractal (16 rows x C0 elements, row by row). b8 (C0 = 32): fractals
// stacked (row / 16); b32 (C0 = 8): side by side (col / 8); b16: one fractal.
template <class T>
struct TransposeSquare {
    static constexpr uint32_t c0 = 32 / sizeof(T);
    static constexpr uint32_t side = c0 > 16 ? c0 : 16;
    static constexpr uint32_t frac_elems = 512 / sizeof(T);
    static constexpr uint32_t fractals = side * side / frac_elems;
    static uint32_t fractal(uint32_t row, uint32_t col) { return row / 16 + col / c0; }
    static uint32_t offset(uint32_t row, uint32_t col) { return (row % 16) * c0 + col % c0; }
};

template <class T>
inline void load_transposed(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p,
                            const char* file, int line) {
    const char* api = "LoadDataWithTranspose";
    if (!is_l0_position(dst.GetPosition()) || !kernelgen::is_l1_position(src.GetPosition()))
        kernelgen::failf("tensor-position", file, line, "%s: dst is in %s and src in %s; it loads L1 (A1/B1) into A2/B2",
                         api, position_name(dst.GetPosition()), position_name(src.GetPosition()));
    check_cube_start(api, "dst", dst, file, line);
    check_cube_start(api, "src", src, file, line);
    using Sq = TransposeSquare<T>;
    constexpr uint64_t frac = Sq::frac_elems, square = uint64_t(Sq::fractals) * frac;
    std::vector<uint8_t> written(dst.GetSize() / frac + 1, 0);  // dst fractals already written
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const int64_t sq = int64_t(p.startIndex) + (p.addrMode ? -1 : 1) * int64_t(r) * p.srcStride;
        if (sq < 0)
            kernelgen::failf("param-range", file, line,
                             "%s: addrMode %u steps the source down by srcStride %u: repeat %u would read square %lld, "
                             "before the source (startIndex %u)",
                             api, p.addrMode, p.srcStride, r, (long long)sq, p.startIndex);
        const uint64_t s = uint64_t(sq) * square;
        if (s + square > src.GetSize())
            kernelgen::failf("count-exceeds-tensor", file, line,
                             "%s: repeat %u reads square %lld, elements [%llu, %llu) of a %u-element source (a square "
                             "is %llu %s elements)",
                             api, r, (long long)sq, (unsigned long long)s, (unsigned long long)(s + square),
                             src.GetSize(), (unsigned long long)square, kernelgen::type_name<T>());
        uint64_t d[2];
        for (uint32_t f = 0; f < Sq::fractals; ++f) {
            const uint64_t idx = uint64_t(r) * (1 + p.dstGap) + uint64_t(f) * (1 + p.dstFracGap);
            d[f] = idx * frac;
            if (d[f] + frac > dst.GetSize())
                kernelgen::failf("count-exceeds-tensor", file, line,
                                 "%s: repeat %u writes its fractal %u at dst elements [%llu, %llu) of a %u-element dst "
                                 "(dstGap %u, dstFracGap %u)",
                                 api, r, f, (unsigned long long)d[f], (unsigned long long)(d[f] + frac), dst.GetSize(),
                                 p.dstGap, p.dstFracGap);
            if (written[idx])
                kernelgen::failf("param-range", file, line,
                                 "%s: repeat %u writes dst fractal %llu again (dstGap %u, dstFracGap %u); the reference "
                                 "requires the transposed fractals not to overlap",
                                 api, r, (unsigned long long)idx, p.dstGap, p.dstFracGap);
            written[idx] = 1;
        }
        auto& pm = kernelgen::pipe_model();
        pm.access(kernelgen::Pipe::MTE1, api, src.data() + s, square * sizeof(T), false, file, line);
        for (uint32_t f = 0; f < Sq::fractals; ++f)
            pm.access(kernelgen::Pipe::MTE1, api, dst.data() + d[f], 512, true, file, line);
        kernelgen::counters().l1_to_l0_bytes += square * sizeof(T);
        // element (i, j) of the transposed square is element (j, i) of the source square
        for (uint32_t i = 0; i < Sq::side; ++i)
            for (uint32_t j = 0; j < Sq::side; ++j)
                dst.data()[d[Sq::fractal(i, j)] + Sq::offset(i, j)] =
                    src.data()[s + Sq::fractal(j, i) * frac + Sq::offset(j, i)];
    }
}

}  // namespace detail

template <class T>
inline void LoadDataWithTranspose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData2dTransposeParams& p,
                                  KG_LOC) {
    // the chip's documented element types (table T of the page, via the catalog's dtypes)
    kernelgen::check_dtype_support<T>("LoadDataWithTranspose", "dst", file, line);
    if constexpr (kernelgen::is_int4_v<T> || (sizeof(T) != 1 && sizeof(T) != 2 && sizeof(T) != 4))
        kernelgen::failf("dtype-support", file, line,
                         "LoadDataWithTranspose: %s is not emulated (int8_t/uint8_t, half/bfloat16_t and "
                         "float/int32_t/uint32_t are; int4b_t's 64 x 64 squares are not modelled)",
                         kernelgen::type_name<T>());
    else
        detail::load_transposed(dst, src, p, file, line);
}

// ---------------------------------------------------------------- the bias table (BT, TPosition C2)
// Facts (AscendC and CCE intrinsic API references, CANN 8.5):
// - copy_cbuf_to_bt (cceintrinsicapi/cceapi_0097): the L1 -> BT copy runs on PIPE_MTE1; its
//   destination is 64-byte aligned, its source 32-byte aligned; lenBurst counts 64 bytes, the
//   source gap 32 bytes, the destination gap 64 bytes; convControl reads the L1 data as FP16 and
//   writes FP32; the bias table holds 1 KB (chips.json bt_bytes; TPipe's BT arena).
// - DataCopy, basic data movement (ascendcopapi/atlasascendc_api_07_0103): the Local -> Local
//   prototype with different source and destination types, DataCopy(LocalTensor<T> dst,
//   LocalTensor<U> src, DataCopyParams), exists on Atlas A2/A3 only (dav-c220).
// - Mmad (ascendcopapi/atlasascendc_api_07_0249): the prototype with a bias exists on Atlas
//   A2/A3 and 200I/500 A2, not on Atlas training or inference (310P) AI Cores; MmadParams
//   cmatrixInitVal true starts C from 0, false from cmatrixSource's buffer (L0C, or C2, the bias
//   table: "Atlas training and inference series support false only").
// Read here: a blockLen unit is 64 bytes read from L1 (32 halves become 32 floats): Ascend/samples
// MmadBiasInvocation sizes blockLen as n * sizeof(half) / 64 for an n-float bias, and its golden
// adds all n. The bias Mmad takes C's start from the bias (broadcast along M) when cmatrixInitVal
// is false, as that sample does; with cmatrixInitVal true C starts from 0 and the bias is unused.
// The emulator models the bias table of dav-c220 only and a bias in C2 (not one in CO1).
namespace detail {

inline void check_bias_table_chip(const char* api, const char* file, int line) {
    const auto& c = kernelgen::chip();
    if (c.cce_aicore == 220) return;
    kernelgen::failf("chip-support", file, line, "%s: %s %s", api, c.name.c_str(),
                     c.cce_aicore == 300
                         ? "documents no L1 -> bias table (C2) copy; the emulator models the bias table of "
                           "Atlas A2/A3 (dav-c220) only"
                         : "has no bias table (C2): Mmad has no bias prototype there and MmadParams.cmatrixSource "
                           "must stay false");
}

// DataCopy L1 -> BT with DataCopyParams: blockCount bursts of blockLen x 64 source bytes; the
// source gap counts 32 bytes, the destination gap 64 bytes. half -> float converts on the way
// (convControl); float and int32_t copy as they are.
template <class T, class U>
inline void l1_to_bias_table(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                             const char* file, int line) {
    const char* api = "DataCopy(L1->C2, DataCopyParams)";
    check_bias_table_chip(api, file, line);
    if (!dst.valid() || !src.valid())
        kernelgen::failf("queue-protocol", file, line, "%s: an operand is a LocalTensor that holds no buffer", api);
    dst.check_live(api, file, line);
    src.check_live(api, file, line);
    if (dst.GetPosition() != TPosition::C2 || !kernelgen::is_l1_position(src.GetPosition()))
        kernelgen::failf("tensor-position", file, line,
                         "%s: dst is in %s and src in %s; the bias table (C2) is filled from L1 (A1/B1/C1)", api,
                         position_name(dst.GetPosition()), position_name(src.GetPosition()));
    constexpr bool converts = std::is_same_v<T, float> && std::is_same_v<U, half>;
    constexpr bool plain = std::is_same_v<T, U> && (std::is_same_v<T, float> || std::is_same_v<T, int32_t>);
    if constexpr (!converts && !plain) {
        kernelgen::failf("dtype-support", file, line,
                         "%s: %s -> %s is not an L1 -> bias table pair (half -> float converts on the way; float and "
                         "int32_t copy as they are)",
                         api, kernelgen::type_name<U>(), kernelgen::type_name<T>());
    } else {
        check_cube_start(api, "dst (C2)", dst, file, line);
        check_cube_start(api, "src (L1)", src, file, line);
        kernelgen::check_block_count(api, p.blockCount, file, line);
        const uint64_t len = uint64_t(p.blockLen) * 64 / sizeof(U);  // elements per burst, both sides
        const uint64_t src_step = len + uint64_t(p.srcStride) * 32 / sizeof(U);
        const uint64_t dst_step = len + uint64_t(p.dstStride) * 64 / sizeof(T);
        auto& pm = kernelgen::pipe_model();
        for (uint32_t i = 0; i < p.blockCount; ++i) {
            const uint64_t s = i * src_step, d = i * dst_step;
            kernelgen::check_local_need(api, "src", src, s + len, file, line);
            kernelgen::check_local_need(api, "dst", dst, d + len, file, line);
            pm.access(kernelgen::Pipe::MTE1, api, src.data() + s, len * sizeof(U), false, file, line);
            pm.access(kernelgen::Pipe::MTE1, api, dst.data() + d, len * sizeof(T), true, file, line);
            for (uint64_t k = 0; k < len; ++k) dst.data()[d + k] = static_cast<T>(kernelgen::widen(src.data()[s + k]));
        }
        // MTE1 traffic out of L1, counted with LoadData's for the cost model's MTE1 time.
        kernelgen::counters().l1_to_l0_bytes += uint64_t(p.blockCount) * len * sizeof(U);
    }
}

}  // namespace detail

// L1 -> C2 with a conversion (half -> float); the other documented paths of this prototype are
// not emulated and stop at the position check.
template <class T, class U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p, KG_LOC) {
    detail::l1_to_bias_table(dst, src, p, file, line);
}

namespace detail {
// C (L0C) = init + A x B; `accumulate` starts from C's own elements instead of init(j).
template <class C, class A, class B, class F>
inline void mmad(const LocalTensor<C>& dst, const LocalTensor<A>& a, const LocalTensor<B>& b, const MmadParams& p,
                 F init, bool accumulate, const char* file, int line) {
    const char* api = "Mmad";
    if (a.GetPosition() != TPosition::A2 || b.GetPosition() != TPosition::B2 || dst.GetPosition() != TPosition::CO1)
        kernelgen::failf("tensor-position", file, line, "Mmad: operands are in %s x %s -> %s; expected A2 x B2 -> CO1",
                         position_name(a.GetPosition()), position_name(b.GetPosition()), position_name(dst.GetPosition()));
    // MmadParams m, n, k are 12-bit fields: [0, 4095] (AscendC Mmad, MmadParams table).
    if (p.m > 4095 || p.n > 4095 || p.k > 4095)
        kernelgen::failf("param-range", file, line, "Mmad: m=%u n=%u k=%u; each must be in [0, 4095]", p.m, p.n, p.k);
    check_cube_start(api, "fm (A2)", a, file, line);
    check_cube_start(api, "filter (B2)", b, file, line);
    check_cube_start(api, "dst (CO1)", dst, file, line);
    const uint64_t c0 = 32 / sizeof(A);
    const uint64_t m1 = kernelgen::ceil_div(p.m, 16), k1 = kernelgen::ceil_div(p.k, c0), n1 = kernelgen::ceil_div(p.n, 16);
    if (m1 * k1 * 16 * c0 > a.GetSize() || n1 * k1 * 16 * c0 > b.GetSize() || m1 * n1 * 256 > dst.GetSize())
        kernelgen::failf("count-exceeds-tensor", file, line,
                         "%s: m=%u n=%u k=%u needs %llu / %llu / %llu elements of A2 / B2 / CO1, they hold %u / %u / %u", api,
                         p.m, p.n, p.k, (unsigned long long)(m1 * k1 * 16 * c0), (unsigned long long)(n1 * k1 * 16 * c0),
                         (unsigned long long)(m1 * n1 * 256), a.GetSize(), b.GetSize(), dst.GetSize());
    // On PIPE_M: reads the A2/B2 fractals (and CO1 when it accumulates), writes CO1.
    auto& pm = kernelgen::pipe_model();
    pm.access(kernelgen::Pipe::M, api, a.data(), m1 * k1 * 16 * c0 * sizeof(A), false, file, line);
    pm.access(kernelgen::Pipe::M, api, b.data(), n1 * k1 * 16 * c0 * sizeof(B), false, file, line);
    if (accumulate) pm.access(kernelgen::Pipe::M, api, dst.data(), m1 * n1 * 256 * sizeof(C), false, file, line);
    pm.access(kernelgen::Pipe::M, api, dst.data(), m1 * n1 * 256 * sizeof(C), true, file, line);
    // m x n x k, as the Matmul API counts them (the cost model's cube time).
    const uint64_t macs = uint64_t(p.m) * p.n * p.k;
    (sizeof(A) >= 4 ? kernelgen::counters().cube_macs_fp32 : kernelgen::counters().cube_macs) += macs;
    using Acc = std::conditional_t<std::is_integral_v<C>, int64_t, float>;
    for (uint32_t i = 0; i < p.m; ++i)
        for (uint32_t j = 0; j < p.n; ++j) {
            uint64_t o = ((j / 16) * m1 + i / 16) * 256 + (i % 16) * 16 + j % 16;
            Acc s = accumulate ? static_cast<Acc>(dst.data()[o]) : static_cast<Acc>(init(j));
            for (uint32_t k = 0; k < p.k; ++k) {
                uint64_t ao = ((i / 16) * k1 + k / c0) * 16 * c0 + (i % 16) * c0 + k % c0;
                uint64_t bo = ((k / c0) * n1 + j / 16) * 16 * c0 + (j % 16) * c0 + k % c0;
                s += static_cast<Acc>(kernelgen::widen(a.data()[ao])) * static_cast<Acc>(kernelgen::widen(b.data()[bo]));
            }
            dst.data()[o] = static_cast<C>(s);
        }
}
}  // namespace detail

// cmatrixInitVal true: C = A x B; false: C += A x B (cmatrixSource false, L0C). C's start from the
// bias table (cmatrixSource true) needs the bias prototype, which names the bias tensor.
template <class C, class A, class B>
inline void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter, const MmadParams& p,
                 KG_LOC) {
    if (p.cmatrixSource && !p.cmatrixInitVal) {
        detail::check_bias_table_chip("Mmad (cmatrixSource = true)", file, line);
        kernelgen::failf("param-range", file, line,
                         "Mmad: cmatrixInitVal = false with cmatrixSource = true starts C from the bias table; pass "
                         "the C2 bias tensor (Mmad(dst, fm, filter, bias, params)), the emulator does not model an "
                         "unnamed bias table");
    }
    detail::mmad(dst, fm, filter, p, [](uint32_t) { return 0; }, !p.cmatrixInitVal, file, line);
}
// C = bias (one value per column, broadcast along M) + A x B, from the bias table (C2).
template <class C, class A, class B, class D>
inline void Mmad(const LocalTensor<C>& dst, const LocalTensor<A>& fm, const LocalTensor<B>& filter,
                 const LocalTensor<D>& bias, const MmadParams& p, KG_LOC) {
    const char* api = "Mmad (bias)";
    detail::check_bias_table_chip(api, file, line);
    if (bias.GetPosition() != TPosition::C2)
        kernelgen::failf("tensor-position", file, line,
                         "%s: the bias is in position %s; the emulator models a bias in C2 (the bias table)", api,
                         position_name(bias.GetPosition()));
    if constexpr (!std::is_same_v<C, D>)
        kernelgen::failf("dtype-support", file, line,
                         "%s: a %s bias for a %s result; the bias table holds the result's type (float, or int32_t "
                         "for int8_t inputs): copy a half bias in with DataCopy(L1->C2), which converts it",
                         api, kernelgen::type_name<D>(), kernelgen::type_name<C>());
    detail::check_cube_start(api, "bias (C2)", bias, file, line);
    if (p.cmatrixInitVal) {
        kernelgen::warn("param-range",
                        "Mmad with a bias and cmatrixInitVal = true: C starts from 0 and the bias is not added (set "
                        "cmatrixInitVal = false to start C from the bias table)",
                        file, line);
        detail::mmad(dst, fm, filter, p, [](uint32_t) { return 0; }, false, file, line);
        return;
    }
    kernelgen::check_local_need(api, "bias", bias, p.n, file, line);
    kernelgen::pipe_model().access(kernelgen::Pipe::M, api, bias.data(), uint64_t(p.n) * sizeof(D), false, file, line);
    detail::mmad(dst, fm, filter, p, [&](uint32_t j) { return bias.data()[j]; }, false, file, line);
}

namespace detail {
// L0C element (i, j) -> destination offset; ROW_MAJOR: i * dstStride + j; NZ: fractal columns of
// dstStride rows.
template <const FixpipeConfig& config>
inline uint64_t fixpipe_dst(uint32_t i, uint32_t j, const FixpipeParamsV220& p) {
    if (config.format == CO2Layout::NZ) return (uint64_t(j) / 16) * p.dstStride * 16 + uint64_t(i) * 16 + j % 16;
    return uint64_t(i) * p.dstStride + j;
}
template <class T, class U, const FixpipeConfig& config, class Store>
inline void fixpipe(const LocalTensor<U>& src, const FixpipeParamsV220& p, Store store, const char* file, int line) {
    if (src.GetPosition() != TPosition::CO1)
        kernelgen::failf("tensor-position", file, line, "Fixpipe: src is in position %s; it reads CO1 (L0C)",
                         position_name(src.GetPosition()));
    check_cube_start("Fixpipe", "src", src, file, line);
    if (p.mSize > p.srcStride)
        kernelgen::failf("param-range", file, line, "Fixpipe: mSize %u exceeds srcStride %u (M padded to 16)", p.mSize,
                         p.srcStride);
    if (p.mSize && p.nSize) {
        uint64_t last = (uint64_t(p.nSize - 1) / 16) * p.srcStride * 16 + uint64_t(p.mSize - 1) * 16 + (p.nSize - 1) % 16;
        kernelgen::check_local_need("Fixpipe", "src", src, last + 1, file, line);
        kernelgen::pipe_model().access(kernelgen::Pipe::FIX, "Fixpipe", src.data(), (last + 1) * sizeof(U), false, file,
                                       line);
    }
    for (uint32_t i = 0; i < p.mSize; ++i)
        for (uint32_t j = 0; j < p.nSize; ++j) {
            auto v = kernelgen::widen(src.data()[(uint64_t(j) / 16) * p.srcStride * 16 + uint64_t(i) * 16 + j % 16]);
            if (p.reluEn && v < decltype(v)(0)) v = decltype(v)(0);
            store(fixpipe_dst<config>(i, j, p), kernelgen::narrow<T>(v));
        }
}
}  // namespace detail

template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const GlobalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p, KG_LOC) {
    if (p.mSize && p.nSize)
        dst.check_access("Fixpipe", 0, detail::fixpipe_dst<config>(p.mSize - 1, p.nSize - 1, p) + 1, true, file, line);
    detail::fixpipe<T, U, config>(src, p, [&](uint64_t o, T v) { kernelgen::gm_store(dst.data() + o, &v, 1); }, file, line);
    kernelgen::counters().l0c_to_gm_bytes += uint64_t(p.mSize) * p.nSize * sizeof(T);
}
template <class T, class U, const FixpipeConfig& config = CFG_ROW_MAJOR>
inline void Fixpipe(const LocalTensor<T>& dst, const LocalTensor<U>& src, const FixpipeParamsV220& p, KG_LOC) {
    if (p.mSize && p.nSize) {
        const uint64_t n = detail::fixpipe_dst<config>(p.mSize - 1, p.nSize - 1, p) + 1;
        detail::check_cube_start("Fixpipe", "dst", dst, file, line);
        kernelgen::check_local_need("Fixpipe", "dst", dst, n, file, line);
        kernelgen::pipe_model().access(kernelgen::Pipe::FIX, "Fixpipe", dst.data(), n * sizeof(T), true, file, line);
    }
    detail::fixpipe<T, U, config>(src, p, [&](uint64_t o, T v) { dst.data()[o] = v; }, file, line);
}

}  // namespace AscendC

// Load3D (img2col into L0A/L0B) and InitConstValue build on the checks above.
#include "img2col.h"
