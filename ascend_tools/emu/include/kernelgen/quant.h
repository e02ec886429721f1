// The AscendDequant high-level API (AscendC API reference, AscendDequant, atlasascendc_api_07_0820:
// https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0820.html),
// written from the documented behaviour.
//
// Documented: srcTensor is int32_t of shape [m, n] (DequantParams {m, n, calCount}), each row
// n * 4 bytes, a multiple of 32; dstTensor has shape [m, n_dst], n_dst being n rounded up so that
// n_dst * sizeof(dstT) is a multiple of 32 bytes; 1 <= calCount <= n, and for a vector deqScale
// calCount <= its element count. Of each row, the first calCount elements are computed:
// dst[r][j] = src[r][j] * deqScale[j] (or * the scalar deqScale); the algorithm converts src and
// deqScale to fp32, multiplies in fp32 and converts the product to dstT. Elements calCount ..
// n_dst - 1 of each dst row are "undetermined values". With mode DEQUANT_WITH_SINGLE_ROW (the
// default), {1, n, calCount} with calCount a multiple of 32 / sizeof(dstT) and n % calCount == 0
// is computed as {n / calCount, calCount, calCount}; DEQUANT_WITH_MULTI_ROW keeps it one row.
// A uint64_t deqScale element carries the float scale in its low 32 bits (its high 32 bits are
// control fields this API does not use). Type combinations (dst, deqScale): tensor deqScale
// half/uint64_t, float/float, float/bfloat16_t, bfloat16_t/bfloat16_t, bfloat16_t/float; scalar
// deqScale bfloat16_t or float with a bfloat16_t or float dst; the Atlas inference series AI Core
// has no bfloat16_t. Chips: Atlas A2/A3 and the Atlas inference series AI Core. Source and
// destination must not overlap at all.
//
// The emulator's choices where the reference is silent:
// - the undetermined elements of each dst row are written with the harness's padding poison
//   (kernelgen::poison_of), so a kernel that reads them gets values no NPU run promises;
// - the fp32 -> dstT conversion rounds to nearest even (Cast's CAST_RINT), as does int32 -> fp32;
//   a product past half's range saturates to +-65504, as Cast does (cast.h);
// - the deprecated forms without DequantParams (calCount only, or neither; CANN 7.0.0's
//   AscendDequant, atlasascendc_api_07_0286: calCount in [0, srcTensor.GetSize()], a multiple of
//   deqScale's element count) read src as flat: dst[i] = src[i] * deqScale[i % deqScale.GetSize()]
//   for i < calCount (the whole src when calCount is not given), dst unpadded;
// - sharedTmpBuffer is checked as a UB operand; the emulator needs no scratch, so not its size.
#pragma once

#include <cstring>
#include <type_traits>

#include "cast.h"
#include "vec_core.h"

namespace AscendC {

enum class DeQuantMode : uint8_t {
    DEQUANT_WITH_SINGLE_ROW = 0,  // {1, n, calCount} may be computed as n / calCount rows
    DEQUANT_WITH_MULTI_ROW,       // {1, n, calCount} stays one row
};

struct DequantParams {
    uint32_t m;         // rows of srcTensor
    uint32_t n;         // elements per srcTensor row
    uint32_t calCount;  // leading elements of each row that are dequantized
};

}  // namespace AscendC

namespace kernelgen {

// Chips whose product-support table lists AscendDequant, by __CCE_AICORE__: Atlas A2/A3
// (dav-c220) and the Atlas inference series AI Core (dav-m200).
inline constexpr uint32_t kDequantChips[] = {220, 200};

// The (dstT, scaleT) combinations of the reference's tables 3 (tensor deqScale) and 4 (scalar).
template <class D, class S, bool tensor_scale>
inline constexpr bool dequant_types_documented() {
    constexpr bool dst_float = std::is_same_v<D, float>, dst_bf16 = std::is_same_v<D, bfloat16_t>;
    constexpr bool s_float = std::is_same_v<S, float>, s_bf16 = std::is_same_v<S, bfloat16_t>;
    if constexpr (tensor_scale)
        if (std::is_same_v<D, half> && std::is_same_v<S, uint64_t>) return true;
    return (dst_float || dst_bf16) && (s_float || s_bf16);
}

// A deqScale element as fp32: a uint64_t holds the float in its low 32 bits.
template <class S>
inline float dequant_scale_value(S s) {
    if constexpr (std::is_same_v<S, uint64_t>) {
        const uint32_t low = static_cast<uint32_t>(s & 0xFFFFFFFFu);
        float f;
        std::memcpy(&f, &low, sizeof f);
        return f;
    } else {
        return static_cast<float>(s);
    }
}

// Chip, types and the DequantParams rules common to every form; returns the shape computed
// (after DEQUANT_WITH_SINGLE_ROW's reinterpretation).
template <class D, class S, bool tensor_scale, AscendC::DeQuantMode mode>
inline AscendC::DequantParams check_dequant_call(AscendC::DequantParams p, const char* file, int line) {
    const char* api = "AscendDequant";
    const uint32_t arch = chip().cce_aicore;
    if (std::find(std::begin(kDequantChips), std::end(kDequantChips), arch) == std::end(kDequantChips))
        failf("chip-support", file, line,
              "%s: not on %s (the API reference lists Atlas A2/A3 and the Atlas inference series AI Core)", api,
              chip().name.c_str());
    if (!dequant_types_documented<D, S, tensor_scale>())
        failf("dtype-support", file, line,
              "%s: dstTensor %s with a %s deqScale %s is not a documented combination (tensor deqScale: half/uint64_t, "
              "float/float, float/bfloat16_t, bfloat16_t/bfloat16_t, bfloat16_t/float; scalar: bfloat16_t or float "
              "into bfloat16_t or float)",
              api, type_name<D>(), tensor_scale ? "tensor" : "scalar", type_name<S>());
    check_dtype_on_chip<D>(api, file, line);
    check_dtype_on_chip<S>(api, file, line);
    if (p.n % (32 / sizeof(int32_t)) != 0)
        failf("param-range", file, line,
              "%s: DequantParams.n is %u; a srcTensor row (n int32_t elements) must be a multiple of 32 bytes", api,
              p.n);
    if (p.calCount < 1 || p.calCount > p.n)
        failf("param-range", file, line, "%s: DequantParams.calCount is %u; it must be in [1, n = %u]", api,
              p.calCount, p.n);
    constexpr uint32_t dst_block = 32 / sizeof(D);
    if (mode == AscendC::DeQuantMode::DEQUANT_WITH_SINGLE_ROW && p.m == 1 && p.calCount % dst_block == 0 &&
        p.n % p.calCount == 0)
        return {p.n / p.calCount, p.calCount, p.calCount};
    return p;
}

// dst rows of n_dst elements: n rounded up to whole 32-byte blocks of D.
template <class D>
inline uint64_t dequant_dst_cols(uint64_t n) {
    constexpr uint64_t block = 32 / sizeof(D);
    return (n + block - 1) / block * block;
}

// Computes rows of the [m, n] src into the [m, n_dst] dst: the first calCount elements of each
// row, scale element j (or the scalar, scale == nullptr) for column j; the rest poisoned.
template <class D, class S>
inline void dequant_rows(D* dst, const int32_t* src, const S* scale, S scalar, uint64_t m, uint64_t n,
                         uint64_t dst_cols, uint64_t cal) {
    const float fixed = dequant_scale_value(scalar);
    for (uint64_t r = 0; r < m; ++r) {
        for (uint64_t j = 0; j < cal; ++j) {
            const float s = scale ? dequant_scale_value(scale[j]) : fixed;
            const float x = cast_exact<float>(src[r * n + j], AscendC::RoundMode::CAST_RINT);
            // fp32 -> fp32 is the product itself (a float Cast with CAST_RINT would round to an integer)
            if constexpr (std::is_same_v<D, float>)
                dst[r * dst_cols + j] = x * s;
            else
                dst[r * dst_cols + j] = cast_exact<D>(x * s, AscendC::RoundMode::CAST_RINT);
        }
        for (uint64_t j = cal; j < dst_cols; ++j) dst[r * dst_cols + j] = poison_of<D>(r * dst_cols + j);
    }
}

// Every DequantParams form: deqScale a tensor (scale_t) or a scalar (scale_t == nullptr).
template <class D, class S, AscendC::DeQuantMode mode>
inline void ascend_dequant(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<int32_t>& src,
                           const AscendC::LocalTensor<S>* scale_t, S scalar,
                           const AscendC::LocalTensor<uint8_t>* tmp, AscendC::DequantParams params, const char* file,
                           int line) {
    const char* api = "AscendDequant";
    AscendC::DequantParams p = scale_t ? check_dequant_call<D, S, true, mode>(params, file, line)
                                       : check_dequant_call<D, S, false, mode>(params, file, line);
    const uint64_t m = p.m, n = p.n, cal = p.calCount, cols = dequant_dst_cols<D>(n);
    check_vec_operand(api, "srcTensor", src, m * n, file, line);
    if (scale_t) {
        if (cal > scale_t->GetSize())
            failf("param-range", file, line,
                  "%s: DequantParams.calCount is %u but deqScale holds %u elements; calCount must not exceed them",
                  api, p.calCount, scale_t->GetSize());
        check_vec_operand(api, "deqScale", *scale_t, cal, file, line);
    }
    if (tmp) check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    check_vec_operand(api, "dstTensor", dst, m * cols, file, line);
    check_operands_disjoint(api, "dstTensor", dst, m * cols, "srcTensor", src, m * n, file, line);
    if (scale_t) check_operands_disjoint(api, "dstTensor", dst, m * cols, "deqScale", *scale_t, cal, file, line);
    count_bytes_as_repeats(api, m * n * sizeof(int32_t));
    dequant_rows(dst.data(), src.data(), scale_t ? scale_t->data() : nullptr, scalar, m, n, cols, cal);
}

// The deprecated forms (no DequantParams): calCount elements of src read flat, deqScale repeating.
template <class D, class S, AscendC::DeQuantMode mode>
inline void ascend_dequant_flat(const AscendC::LocalTensor<D>& dst, const AscendC::LocalTensor<int32_t>& src,
                                const AscendC::LocalTensor<S>& scale, const AscendC::LocalTensor<uint8_t>* tmp,
                                const uint32_t* calCount, const char* file, int line) {
    const char* api = "AscendDequant";
    const uint64_t count = calCount ? *calCount : src.GetSize(), period = scale.GetSize();
    check_dequant_call<D, S, true, mode>({1, 8, 1}, file, line);  // chip and types only
    if (period == 0 || count % period != 0)
        failf("param-range", file, line,
              "%s: calCount %llu must be a multiple of deqScale's %llu elements (the deprecated form without "
              "DequantParams)",
              api, (unsigned long long)count, (unsigned long long)period);
    check_vec_operand(api, "srcTensor", src, count, file, line);
    check_vec_operand(api, "deqScale", scale, period, file, line);
    if (tmp) check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    check_vec_operand(api, "dstTensor", dst, count, file, line);
    check_operands_disjoint(api, "dstTensor", dst, count, "srcTensor", src, count, file, line);
    check_operands_disjoint(api, "dstTensor", dst, count, "deqScale", scale, period, file, line);
    count_bytes_as_repeats(api, count * sizeof(int32_t));
    // count / period rows of period elements, back to back in src and dst alike.
    dequant_rows(dst.data(), src.data(), scale.data(), S{}, count / period, period, period, period);
}

}  // namespace kernelgen

namespace AscendC {

// deqScale a tensor, with and without sharedTmpBuffer.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params, KG_LOC) {
    kernelgen::ascend_dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, scaleT{}, &sharedTmpBuffer, params,
                                                  file, line);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, DequantParams params, KG_LOC) {
    kernelgen::ascend_dequant<dstT, scaleT, mode>(dstTensor, srcTensor, &deqScale, scaleT{}, nullptr, params, file,
                                                  line);
}

// deqScale a scalar, with and without sharedTmpBuffer (a LocalTensor argument picks the forms
// above, which are more specialised).
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename = std::enable_if_t<kernelgen::is_float_like_v<scaleT>>>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params,
                          KG_LOC) {
    kernelgen::ascend_dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, deqScale, &sharedTmpBuffer, params,
                                                  file, line);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW,
          typename = std::enable_if_t<kernelgen::is_float_like_v<scaleT>>>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const scaleT deqScale, DequantParams params, KG_LOC) {
    kernelgen::ascend_dequant<dstT, scaleT, mode>(dstTensor, srcTensor, nullptr, deqScale, nullptr, params, file,
                                                  line);
}

// The deprecated forms the reference still lists ("not recommended"): calCount, or the whole src.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const uint32_t calCount, KG_LOC) {
    kernelgen::ascend_dequant_flat<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, &sharedTmpBuffer, &calCount,
                                                       file, line);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer, KG_LOC) {
    kernelgen::ascend_dequant_flat<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, &sharedTmpBuffer, nullptr, file,
                                                       line);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, const uint32_t calCount, KG_LOC) {
    kernelgen::ascend_dequant_flat<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, nullptr, &calCount, file, line);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dstTensor, const LocalTensor<int32_t>& srcTensor,
                          const LocalTensor<scaleT>& deqScale, KG_LOC) {
    kernelgen::ascend_dequant_flat<dstT, scaleT, mode>(dstTensor, srcTensor, deqScale, nullptr, nullptr, file, line);
}

}  // namespace AscendC
