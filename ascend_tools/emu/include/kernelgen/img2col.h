// The cube's img2col load (Load3Dv2: LoadData with LoadData3DParamsV2, L1 feature map ->
// L0A/L0B), its feature-map and padding registers (SetFmatrix, SetLoadDataPaddingValue), and
// InitConstValue (fill L1/L0A/L0B with one value). Written from the AscendC API reference
// (Load3D, SetFmatrix, SetLoadDataPaddingValue, InitConstValue pages); ascend_tools/emu/README.md
// says which statement each part of the layout comes from and what is inferred.
//
// Layout (C0 = 32 B / sizeof(T)):
//   L1 feature map: NC1HWC0 without N, [C1][l1H][l1W][C0], C1 = channelSize / C0.
//   img2col matrix: row m = ho * Wo + wo (the window's output position, W fastest), column
//       k = ((c1 * Kh + kh) * Kw + kw) * C0 + c0; Kh/Kw the filter, Ho/Wo from the padded map.
//   dst: rows [mStartPt, mStartPt + mExtension) x columns [kStartPt, kStartPt + kExtension) of
//       that matrix in 16 x C0 fractals, fractal (fm, fk) at fm * K1 + fk, element (i, k) at
//       i * C0 + k (K1 = ceil(kExtension / C0)): L0A's zZ layout for Mmad's A. Into L0B the
//       block is written as B[K, N] = its transpose (N the output position) in cube.h's L0B
//       "ZN" layout: the same 16 x C0 fractals, ordered fractal (fk, fm) at fk * M1 + fm
//       (M1 = ceil(mExtension / 16)).
#pragma once

#include <cmath>
#include <cstdint>

#include "cube.h"
#include "pipe.h"

namespace AscendC {

// Whether Load3D takes the feature-map (l1H, l1W, padList) and pad-value fields from its own
// params (true) or from SetFmatrix / SetLoadDataPaddingValue (false).
struct IsResetLoad3dConfig {
    bool isSetFMatrix = true;
    bool isSetPadding = true;
};
inline constexpr IsResetLoad3dConfig IS_RESER_LOAD3D_DEFAULT_CONFIG = {true, true};

enum class FmatrixMode : uint8_t { FMATRIX_LEFT = 0, FMATRIX_RIGHT = 1 };

template <typename T>
struct LoadData3DParamsV2 {
    uint8_t padList[4] = {0, 0, 0, 0};  // left, right, top, bottom
    uint16_t l1H = 0, l1W = 0;
    uint16_t channelSize = 0;
    uint16_t kExtension = 0, mExtension = 0;
    uint16_t kStartPt = 0, mStartPt = 0;
    // The reference gives defaults only for padList, kStartPt, mStartPt, padValue and the flags;
    // stride, filter and dilation default to 1 here (an identity), the rest to 0 (out of range).
    uint8_t strideW = 1, strideH = 1;
    uint8_t filterW = 1, filterH = 1;
    uint8_t dilationFilterW = 1, dilationFilterH = 1;
    bool enTranspose = false, enSmallK = false;
    T padValue = T(0);
    bool filterSizeW = false, filterSizeH = false;  // add 256 to filterW / filterH
    bool fMatrixCtrl = false;
    LoadData3DParamsV2() = default;
    // Fields in the reference's table order.
    LoadData3DParamsV2(const uint8_t pads[4], uint16_t h, uint16_t w, uint16_t channels, uint16_t kExt, uint16_t mExt,
                       uint16_t kStart, uint16_t mStart, uint8_t sW, uint8_t sH, uint8_t fW, uint8_t fH, uint8_t dW,
                       uint8_t dH, bool transpose, bool smallK, T pad, bool sizeW = false, bool sizeH = false,
                       bool ctrl = false)
        : l1H(h), l1W(w), channelSize(channels), kExtension(kExt), mExtension(mExt), kStartPt(kStart), mStartPt(mStart),
          strideW(sW), strideH(sH), filterW(fW), filterH(fH), dilationFilterW(dW), dilationFilterH(dH),
          enTranspose(transpose), enSmallK(smallK), padValue(pad), filterSizeW(sizeW), filterSizeH(sizeH),
          fMatrixCtrl(ctrl) {
        for (int i = 0; i < 4; ++i) padList[i] = pads[i];
    }
};

// Parameters of InitConstValue: repeatTimes iterations of blockNum blocks (32 B in L1, 512 B in
// L0A/L0B), dstGap blocks skipped between iterations.
template <typename T>
struct InitConstValueParams {
    uint16_t repeatTimes = 0;
    uint16_t blockNum = 0;
    uint16_t dstGap = 0;
    T initValue = T(0);
    InitConstValueParams() = default;
    InitConstValueParams(uint16_t repeat, uint16_t blocks, uint16_t gap, T value)
        : repeatTimes(repeat), blockNum(blocks), dstGap(gap), initValue(value) {}
    InitConstValueParams(uint16_t repeat, T value) : repeatTimes(repeat), initValue(value) {}
};

// Load3Dv2's repeat register (SetLoadDataRepeat): repeatTime iterations, each starting
// repeatStride further along M (repeatMode 0, units of 16 rows) or K (repeatMode 1, units of C0).
// Fields and defaults as the reference defines the struct (CANN 8.0 SetLoadDataRepeat); later
// releases' examples also set dstStride, which is accepted and unused.
struct LoadDataRepeatParam {
    uint16_t repeatStride = 0;
    uint8_t repeatTime = 1;
    uint8_t repeatMode = 0;
    uint16_t dstStride = 0;
};

}  // namespace AscendC

namespace kernelgen {

// The feature-map and pad registers Load3D reads when its IsResetLoad3dConfig says so (one set
// per core).
struct Load3dRegisters {
    bool fmatrix_set = false;
    uint16_t l1H = 0, l1W = 0;
    uint8_t pad[4] = {0, 0, 0, 0};
    double pad_value = 0;  // unset: 0 (the reference gives no reset value)
    AscendC::LoadDataRepeatParam repeat;
};
inline Load3dRegisters& load3d_registers() {
    static thread_local Load3dRegisters r;
    return r;
}

// Element types of Load3Dv2 per chip and side (AscendC API reference, Load3D, table 1 "T";
// catalog entry LoadData3DParamsV2): dav-c220 (Atlas A2/A3) A1/A2 and B1/B2 differ; dav-m200
// (Atlas inference AI Core) lists one set; dav-c100 (Atlas training) has Load3Dv1 only.
// int4b_t is documented (dav-c220) but its L1 layout for Load3D is not modelled: refused below.
struct Load3dTypes {
    uint32_t cce_aicore;
    const char* a_side;  // A1 -> A2
    const char* b_side;  // B1 -> B2
};
inline constexpr Load3dTypes kLoad3dTypes[] = {
    {220, " uint8_t int8_t half bfloat16_t uint32_t int32_t float ", " half bfloat16_t uint32_t int32_t float "},
    {200, " uint8_t int8_t half ", " uint8_t int8_t half "},
    {100, " ", " "},
};

// Documented ranges of the LoadData3DParamsV2 fields (Load3D, table 4), checked at every call.
struct Load3dRange {
    const char* field;
    uint32_t value, lo, hi;
};

template <class T>
inline void check_load3d_types(const char* api, bool b_side, const char* file, int line) {
    if constexpr (is_int4_v<T>)
        failf("param-range", file, line, "%s: int4b_t operands are not emulated (their L1 layout is not pinned down)",
              api);
    check_dtype_on_chip<T>(api, file, line);
    for (const auto& r : kLoad3dTypes) {
        if (r.cce_aicore != chip().cce_aicore) continue;
        const char* types = b_side ? r.b_side : r.a_side;
        if (std::strcmp(types, " ") == 0)
            failf("chip-support", file, line, "%s: %s has no Load3Dv2 (LoadData3DParamsV2); it documents Load3Dv1 only",
                  api, chip().name.c_str());
        if (!has_word(types, type_name<T>()))
            failf("dtype-support", file, line, "%s has no %s form into %s on %s: the documented element types are%s", api,
                  type_name<T>(), b_side ? "B2" : "A2", chip().name.c_str(), types);
    }
}

}  // namespace kernelgen

namespace AscendC {

inline void SetFmatrix(uint16_t l1H, uint16_t l1W, const uint8_t padList[4], const FmatrixMode& mode, KG_LOC) {
    if (l1H < 1 || l1H > 32767 || l1W < 1 || l1W > 32767)
        kernelgen::failf("param-range", file, line, "SetFmatrix: l1H=%u l1W=%u; each must be in [1, 32767]", l1H, l1W);
    if (mode != FmatrixMode::FMATRIX_LEFT)
        kernelgen::failf("param-range", file, line,
                         "SetFmatrix: fmatrixMode FMATRIX_RIGHT; only FMATRIX_LEFT is supported (left and right "
                         "matrices both use it)");
    auto& r = kernelgen::load3d_registers();
    r.fmatrix_set = true;
    r.l1H = l1H;
    r.l1W = l1W;
    for (int i = 0; i < 4; ++i) r.pad[i] = padList[i];
}

inline void SetLoadDataRepeat(const LoadDataRepeatParam& repeatParams, KG_LOC) {
    if (repeatParams.repeatMode > 1)
        kernelgen::failf("param-range", file, line, "SetLoadDataRepeat: repeatMode = %u; it must be 0 (along height) or "
                         "1 (along width)", repeatParams.repeatMode);
    kernelgen::load3d_registers().repeat = repeatParams;
}

template <typename T>
inline void SetLoadDataPaddingValue(const T padValue, KG_LOC) {
    (void)file;
    (void)line;
    auto& r = kernelgen::load3d_registers();
    r.pad_value = static_cast<double>(kernelgen::widen(padValue));
}

namespace detail {

template <class T>
inline void load3d_v2(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p,
                      const IsResetLoad3dConfig& cfg, const char* file, int line) {
    const char* api = "LoadData(Load3Dv2)";
    const TPosition dpos = dst.GetPosition();
    if (!kernelgen::is_l1_position(src.GetPosition()))
        kernelgen::failf("tensor-position", file, line, "%s: src is in position %s; Load3D reads a feature map in L1 (A1/B1)",
                         api, position_name(src.GetPosition()));
    if (!is_l0_position(dpos))
        kernelgen::failf("tensor-position", file, line, "%s: dst is in position %s; Load3D writes L0A or L0B (A2/B2)", api,
                         position_name(dpos));
    const bool b_side = dpos == TPosition::B2;
    kernelgen::check_load3d_types<T>(api, b_side, file, line);
    src.check_live(api, file, line);
    dst.check_live(api, file, line);
    check_cube_start(api, "src", src, file, line);
    check_cube_start(api, "dst", dst, file, line);

    // The feature map and pad value: from the params or from the registers (IsResetLoad3dConfig).
    auto& reg = kernelgen::load3d_registers();
    if (!cfg.isSetFMatrix && !reg.fmatrix_set)
        kernelgen::failf("param-range", file, line,
                         "%s: IsResetLoad3dConfig.isSetFMatrix is false but no SetFmatrix came before; the feature map "
                         "(l1H, l1W, padList) is unset",
                         api);
    const uint32_t H = cfg.isSetFMatrix ? p.l1H : reg.l1H, W = cfg.isSetFMatrix ? p.l1W : reg.l1W;
    const uint8_t* pad = cfg.isSetFMatrix ? p.padList : reg.pad;
    const double pad_value = cfg.isSetPadding ? static_cast<double>(kernelgen::widen(p.padValue)) : reg.pad_value;
    if (reg.repeat.repeatTime != 1)
        kernelgen::failf("param-range", file, line,
                         "%s: SetLoadDataRepeat set repeatTime = %u; the emulator models one iteration per Load3D "
                         "only (the reference does not say where each iteration lands in dst): call Load3D once per "
                         "block with its own mStartPt/kStartPt",
                         api, reg.repeat.repeatTime);
    const uint32_t kw_n = p.filterW + (p.filterSizeW ? 256u : 0u), kh_n = p.filterH + (p.filterSizeH ? 256u : 0u);

    // Documented ranges (Load3D, table 4), in the reference's order. channelSize: [1, 63] in the
    // table; the A2/A3 note allows N * C0 forms past it (up to the 16-bit field).
    const kernelgen::Load3dRange ranges[] = {
        {"l1H", H, 1, 32767},           {"l1W", W, 1, 32767},          {"channelSize", p.channelSize, 1, 65535},
        {"kExtension", p.kExtension, 1, 65535}, {"mExtension", p.mExtension, 1, 65535},
        {"strideW", p.strideW, 1, 63},  {"strideH", p.strideH, 1, 63}, {"filterW", p.filterW, 1, 255},
        {"filterH", p.filterH, 1, 255}, {"dilationFilterW", p.dilationFilterW, 1, 255},
        {"dilationFilterH", p.dilationFilterH, 1, 255},
    };
    for (const auto& r : ranges)
        if (r.value < r.lo || r.value > r.hi)
            kernelgen::failf("param-range", file, line, "%s: %s = %u; it must be in [%u, %u]", api, r.field, r.value, r.lo,
                             r.hi);
    if (kernelgen::chip().cce_aicore != 220 && p.channelSize > 63)
        kernelgen::failf("param-range", file, line, "%s: channelSize = %u; on %s it must be in [1, 63]", api, p.channelSize,
                         kernelgen::chip().name.c_str());
    if (p.fMatrixCtrl)
        kernelgen::failf("param-range", file, line,
                         "%s: fMatrixCtrl = true (feature map from the right-matrix registers); only false is supported",
                         api);
    if (p.enSmallK)
        kernelgen::failf("chip-support", file, line, "%s: enSmallK = true; the small-k mode is no longer supported", api);
    if (p.enTranspose)
        kernelgen::failf("param-range", file, line,
                         "%s: enTranspose = true is not modelled by the emulator (the reference does not pin down the "
                         "transposed fractal order); load without it",
                         api);

    constexpr uint32_t c0 = 32 / sizeof(T);
    if (p.channelSize % c0 != 0)
        kernelgen::failf("param-range", file, line,
                         "%s: channelSize = %u is not a multiple of C0 = %u; the emulator models the NC1HWC0 feature "
                         "map with whole C0 channel groups only (the 4/8-channel forms are not modelled)",
                         api, p.channelSize, c0);
    const int64_t ho_n =
        (int64_t(H) + pad[2] + pad[3] - int64_t(p.dilationFilterH) * (kh_n - 1) - 1) / p.strideH + 1;
    const int64_t wo_n = (int64_t(W) + pad[0] + pad[1] - int64_t(p.dilationFilterW) * (kw_n - 1) - 1) / p.strideW + 1;
    if (ho_n < 1 || wo_n < 1)
        kernelgen::failf("param-range", file, line,
                         "%s: the dilated %u x %u filter does not fit the padded %u x %u feature map (pads l/r/t/b = "
                         "%u/%u/%u/%u)",
                         api, kh_n, kw_n, H, W, pad[0], pad[1], pad[2], pad[3]);
    const uint64_t c1_n = p.channelSize / c0, k_total = c1_n * kh_n * kw_n * c0, m_total = uint64_t(ho_n * wo_n);
    const uint64_t k_end = uint64_t(p.kStartPt) + p.kExtension, m_end = uint64_t(p.mStartPt) + p.mExtension;
    if (p.kStartPt % c0 != 0)
        kernelgen::failf("param-range", file, line, "%s: kStartPt = %u is not a multiple of C0 = %u (%s)", api, p.kStartPt,
                         c0, kernelgen::type_name<T>());
    if (k_end > k_total)
        kernelgen::failf("param-range", file, line,
                         "%s: kStartPt + kExtension = %llu exceeds the img2col K = C1 x Kh x Kw x C0 = %llu x %u x %u x "
                         "%u = %llu",
                         api, (unsigned long long)k_end, (unsigned long long)c1_n, kh_n, kw_n, c0,
                         (unsigned long long)k_total);
    if (p.kExtension % c0 != 0 && k_end != k_total)
        kernelgen::failf("param-range", file, line,
                         "%s: kExtension = %u is not a multiple of C0 = %u and does not reach the last K fractal "
                         "(K = %llu)",
                         api, p.kExtension, c0, (unsigned long long)k_total);
    if ((p.mStartPt % 16 != 0 || p.mExtension % 16 != 0) && m_end < m_total)
        kernelgen::failf("param-range", file, line,
                         "%s: mStartPt = %u, mExtension = %u: not multiples of 16, and the load does not reach the last "
                         "M fractal (Ho x Wo = %lld x %lld)",
                         api, p.mStartPt, p.mExtension, (long long)ho_n, (long long)wo_n);

    // L0 bounds: whole 16 x C0 fractals are written.
    const uint64_t m1 = kernelgen::ceil_div(p.mExtension, 16), k1 = kernelgen::ceil_div(p.kExtension, c0);
    const uint64_t frac = 16 * c0, dst_elems = m1 * k1 * frac;
    if (dst_elems > dst.GetSize())
        kernelgen::failf("count-exceeds-tensor", file, line,
                         "%s: %u x %u (%llu x %llu fractals) needs %llu elements of dst (%s), a LocalTensor of %u", api,
                         p.mExtension, p.kExtension, (unsigned long long)m1, (unsigned long long)k1,
                         (unsigned long long)dst_elems, b_side ? "L0B" : "L0A", dst.GetSize());

    // Gather: every element read must lie inside the L1 source tensor.
    const T padv = kernelgen::narrow<T>(static_cast<kernelgen::acc_t<T>>(pad_value));
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < p.mExtension; ++i) {
        const int64_t m = int64_t(p.mStartPt) + i, ho = m / wo_n, wo = m % wo_n;
        for (uint32_t kk = 0; kk < p.kExtension; ++kk) {
            const uint64_t k = uint64_t(p.kStartPt) + kk, cc = k % c0, t = k / c0;
            const int64_t kw = int64_t(t % kw_n), kh = int64_t((t / kw_n) % kh_n), c1 = int64_t(t / (kw_n * kh_n));
            const int64_t h = ho * p.strideH - pad[2] + kh * p.dilationFilterH;
            const int64_t w = wo * p.strideW - pad[0] + kw * p.dilationFilterW;
            T v = padv;
            if (h >= 0 && h < int64_t(H) && w >= 0 && w < int64_t(W)) {
                const uint64_t s = ((uint64_t(c1) * H + uint64_t(h)) * W + uint64_t(w)) * c0 + cc;
                if (s >= src.GetSize())
                    kernelgen::failf("count-exceeds-tensor", file, line,
                                     "%s: row %lld, column %llu reads feature-map element (c1=%lld, h=%lld, w=%lld, "
                                     "c0=%llu) = src[%llu] of a %u-element L1 tensor ([C1][l1H=%u][l1W=%u][C0=%u])",
                                     api, (long long)m, (unsigned long long)k, (long long)c1, (long long)h, (long long)w,
                                     (unsigned long long)cc, (unsigned long long)s, src.GetSize(), H, W, c0);
                lo = std::min(lo, s);
                hi = std::max(hi, s + 1);
                v = src.data()[s];
            }
            const uint64_t f = b_side ? (kk / c0) * m1 + i / 16 : (i / 16) * k1 + kk / c0;
            dst.data()[f * frac + (i % 16) * c0 + kk % c0] = v;
        }
    }
    auto& pm = kernelgen::pipe_model();
    if (hi > lo) pm.access(kernelgen::Pipe::MTE1, api, src.data() + lo, (hi - lo) * sizeof(T), false, file, line);
    pm.access(kernelgen::Pipe::MTE1, api, dst.data(), dst_elems * sizeof(T), true, file, line);
    kernelgen::counters().l1_to_l0_bytes += dst_elems * sizeof(T);
}

}  // namespace detail

// Load3Dv2: img2col of an L1 feature map into L0A (A2) or L0B (B2). The reference declares one
// template with `defaultConfig = IS_RESER_LOAD3D_DEFAULT_CONFIG`; g++ cannot default a reference
// template parameter next to the source-location default arguments, so the default form is its
// own overload (calls read the same).
template <typename T, const IsResetLoad3dConfig& defaultConfig>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p, KG_LOC) {
    detail::load3d_v2(dst, src, p, defaultConfig, file, line);
}
template <typename T>
inline void LoadData(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LoadData3DParamsV2<T>& p, KG_LOC) {
    detail::load3d_v2(dst, src, p, IS_RESER_LOAD3D_DEFAULT_CONFIG, file, line);
}

namespace detail {
// Chips whose InitConstValue takes only repeatTimes and initValue, 512 B per repeat and no gaps
// (InitConstValue, table 2/3: Atlas training and Atlas inference AI Core).
inline constexpr uint32_t kInitConstSimpleAicore[] = {100, 200};
}  // namespace detail

// Fills an L1 (A1/B1) or L0A/L0B (A2/B2) tensor with one value.
template <typename T>
inline void InitConstValue(const LocalTensor<T>& dst, const InitConstValueParams<T>& p, KG_LOC) {
    const char* api = "InitConstValue";
    const TPosition pos = dst.GetPosition();
    if (pos != TPosition::A1 && pos != TPosition::B1 && pos != TPosition::A2 && pos != TPosition::B2)
        kernelgen::failf("tensor-position", file, line, "%s: dst is in position %s; it fills A1/B1 (L1) or A2/B2 (L0A/L0B)",
                         api, position_name(pos));
    kernelgen::check_dtype_on_chip<T>(api, file, line);
    kernelgen::check_dtype_support<T>(api, "dst", file, line);
    dst.check_live(api, file, line);
    detail::check_cube_start(api, "dst", dst, file, line);
    bool simple = false;
    for (uint32_t a : detail::kInitConstSimpleAicore) simple = simple || a == kernelgen::chip().cce_aicore;
    const uint32_t limit = simple ? 255 : 32767;
    if (p.repeatTimes > limit || (!simple && (p.blockNum > 32767 || p.dstGap > 32767)))
        kernelgen::failf("param-range", file, line, "%s: repeatTimes=%u blockNum=%u dstGap=%u; on %s repeatTimes must be in "
                         "[0, %u]%s",
                         api, p.repeatTimes, p.blockNum, p.dstGap, kernelgen::chip().name.c_str(), limit,
                         simple ? "" : " and blockNum, dstGap in [0, 32767]");
    const uint64_t block = detail::is_l0_position(pos) ? 512 : 32;
    // The simple form writes 512 B per repeat with no gap; the full form blockNum blocks, then dstGap skipped.
    const uint64_t per_repeat = simple ? 512 : uint64_t(p.blockNum) * block, gap = simple ? 0 : uint64_t(p.dstGap) * block;
    const uint64_t bytes_end = p.repeatTimes ? (p.repeatTimes - 1) * (per_repeat + gap) + per_repeat : 0;
    if (bytes_end > uint64_t(dst.GetSize()) * sizeof(T))
        kernelgen::failf("count-exceeds-tensor", file, line,
                         "%s: %u repeats of %llu B (gap %llu B) write %llu B of dst, a LocalTensor of %llu B", api,
                         p.repeatTimes, (unsigned long long)per_repeat, (unsigned long long)gap,
                         (unsigned long long)bytes_end, (unsigned long long)(uint64_t(dst.GetSize()) * sizeof(T)));
    // The reference names no pipe for InitConstValue, so its write is not entered in the pipe model.
    for (uint32_t r = 0; r < p.repeatTimes; ++r) {
        const uint64_t first = r * (per_repeat + gap) / sizeof(T), n = per_repeat / sizeof(T);
        for (uint64_t i = 0; i < n; ++i) dst.data()[first + i] = p.initValue;
    }
}

}  // namespace AscendC
