// Row softmax high-level APIs on an [M, K] tile (K padded to 32 bytes, oriSrcK valid columns):
// SoftMax (normalised; with or without the row max/sum outputs) and SoftmaxFlashV2 (the online
// form: unnormalised exp, running max and sum, optional update from the previous max/sum). Row statistics are stored one 32-byte block
// per row (the value repeated), as the documented [M, 32B/sizeof(T)] layout. The tiling must be
// the documented SoftMaxTiling, filled on the host by SoftMaxTilingFunc for the call's shape
// (`tiling-mismatch` otherwise), and a sharedTmpBuffer must hold what that tiling was made for
// (`workspace-size`); the shape info wins when it is filled.
#pragma once

#include "api_tmp_sizes.h"
#include "vec_core.h"

struct SoftMaxTiling;  // kernel_tiling/kernel_tiling.h

namespace kernelgen {

template <class Tiling>
constexpr void require_tiling_type() {
    static_assert(std::is_same_v<Tiling, ::SoftMaxTiling>,
                  "SoftMax/SoftmaxFlashV2 take a SoftMaxTiling (kernel_tiling/kernel_tiling.h) filled on the host by "
                  "SoftMaxTilingFunc, not another struct");
}

// The tiling must come from SoftMaxTilingFunc for this shape: on the NPU the API walks the rows
// by the tiling's split (splitM rows at a time, rangeM rounds and a tail of tailM rows).
template <class Tiling>
inline void check_softmax_tiling(const char* api, const Tiling& t, const AscendC::SoftMaxShapeInfo& info,
                                 const char* file, int line) {
    if (t.srcK == 0 && info.srcK == 0) return;  // nothing given: the shape check reports it
    if (t.splitM == 0 || t.srcK == 0)
        failf("tiling-mismatch", file, line,
              "%s: the SoftMaxTiling is not filled (srcM %u, srcK %u, splitM %u): compute it on the host with "
              "SoftMaxTilingFunc for the source shape and pass it through the tiling data",
              api, t.srcM, t.srcK, t.splitM);
    if (info.srcK != 0 && (info.srcK != t.srcK || info.srcM > t.srcM))
        failf("tiling-mismatch", file, line,
              "%s: the SoftMaxTiling was made for a [%u, %u] source but the call's shape is [%u, %u]", api, t.srcM,
              t.srcK, info.srcM, info.srcK);
}

template <class Tiling>
inline void check_softmax_tmp(const char* api, const AscendC::LocalTensor<uint8_t>& tmp, const Tiling& t,
                              const char* file, int line) {
    check_vec_operand(api, "sharedTmpBuffer", tmp, 0, file, line);
    uint64_t need = softmax_rows_tmp_bytes(t.splitM, t.srcK);
    if (tmp.GetSize() < need)
        failf("workspace-size", file, line,
              "%s: sharedTmpBuffer holds %u bytes; the SoftMaxTiling splits the rows %u at a time over K=%u, which "
              "needs %llu bytes (pass SoftMaxTilingFunc the size of the buffer you give the call)",
              api, tmp.GetSize(), t.splitM, t.srcK, (unsigned long long)need);
}

struct RowShape {
    uint32_t m, k, valid;
};

template <class Tiling>
inline RowShape row_shape(const Tiling& tiling, const AscendC::SoftMaxShapeInfo& info) {
    RowShape s{info.srcM, info.srcK, info.oriSrcK};
    if (s.m == 0 || s.k == 0) s = RowShape{tiling.srcM, tiling.srcK, 0};
    if (s.valid == 0 || s.valid > s.k) s.valid = s.k;
    return s;
}

template <class T>
inline void check_rows(const char* api, const RowShape& s, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                       std::initializer_list<const LocalTensor<T>*> stats, const char* file, int line) {
    const uint64_t epb = 32 / sizeof(T);
    if (s.m == 0 || s.k == 0)
        failf("param-range", file, line, "%s: the shape is %u x %u; give SoftMaxShapeInfo or a filled tiling", api, s.m, s.k);
    if ((uint64_t(s.k) * sizeof(T)) % 32 != 0)
        failf("param-range", file, line, "%s: srcK %u x sizeof(%s) is not 32-byte aligned", api, s.k, type_name<T>());
    check_vec_operand(api, "src", src, uint64_t(s.m) * s.k, file, line);
    check_vec_operand(api, "dst", dst, uint64_t(s.m) * s.k, file, line);
    for (const auto* t : stats) check_vec_operand(api, "row statistics", *t, uint64_t(s.m) * epb, file, line);
    count_bytes_as_repeats(api, uint64_t(s.m) * s.k * sizeof(T));
}

template <class T>
inline void put_row_stat(const LocalTensor<T>& t, uint32_t row, float v) {
    const uint32_t epb = 32 / sizeof(T);
    for (uint32_t e = 0; e < epb; ++e) t.data()[uint64_t(row) * epb + e] = narrow<T>(v);
}

// SoftMax's rows: dst = exp(x - rowmax) / rowsum over the valid columns; the row max and sum go
// to maxTensor and sumTensor when the form has them.
template <class T>
inline void softmax_rows(const RowShape& s, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const LocalTensor<T>* sumTensor, const LocalTensor<T>* maxTensor) {
    for (uint32_t r = 0; r < s.m; ++r) {
        const T* x = src.data() + uint64_t(r) * s.k;
        T* y = dst.data() + uint64_t(r) * s.k;
        float mx = -std::numeric_limits<float>::infinity();
        for (uint32_t j = 0; j < s.valid; ++j) mx = std::max(mx, static_cast<float>(x[j]));
        float sum = 0;
        for (uint32_t j = 0; j < s.valid; ++j) sum += std::exp(static_cast<float>(x[j]) - mx);
        for (uint32_t j = 0; j < s.valid; ++j) y[j] = narrow<T>(std::exp(static_cast<float>(x[j]) - mx) / sum);
        if (maxTensor) put_row_stat(*maxTensor, r, mx);
        if (sumTensor) put_row_stat(*sumTensor, r, sum);
    }
}

}  // namespace kernelgen

namespace AscendC {

template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const Tiling& tiling, const SoftMaxShapeInfo& info = {}, KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftMax", tiling, info, file, line);
    auto s = kernelgen::row_shape(tiling, info);
    kernelgen::check_rows("SoftMax", s, dst, src, {&sumTensor, &maxTensor}, file, line);
    kernelgen::softmax_rows(s, dst, src, &sumTensor, &maxTensor);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, const Tiling& tiling,
                    const SoftMaxShapeInfo& info = {}, KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftMax", tiling, info, file, line);
    kernelgen::check_softmax_tmp("SoftMax", sharedTmpBuffer, tiling, file, line);
    SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ>(dst, sumTensor, maxTensor, src, tiling, info, file, line);
}

// The forms without the sum and max outputs (API reference, SoftMax: "without sumTensor and
// maxTensor"): template parameters T, isReuseSource, isBasicBlock (and a SoftmaxConfig the
// emulator does not take); the same row softmax, the row statistics kept to the API.
template <class T, bool isReuseSource = false, bool isBasicBlock = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const Tiling& tiling,
                    const SoftMaxShapeInfo& info = {}, KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftMax", tiling, info, file, line);
    auto s = kernelgen::row_shape(tiling, info);
    kernelgen::check_rows("SoftMax", s, dst, src, {}, file, line);
    kernelgen::softmax_rows<T>(s, dst, src, nullptr, nullptr);
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                    const Tiling& tiling, const SoftMaxShapeInfo& info = {}, KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftMax", tiling, info, file, line);
    kernelgen::check_softmax_tmp("SoftMax", sharedTmpBuffer, tiling, file, line);
    SoftMax<T, isReuseSource, isBasicBlock>(dst, src, tiling, info, file, line);
}

// isUpdate = false: max = rowmax(x), dst = exp(x - max), expSum = rowsum(dst).
// isUpdate = true:  max = max(inMax, rowmax(x)), dst = exp(x - max), expMax = exp(inMax - max),
//                   expSum = expMax * inExpSum + rowsum(dst).
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, class Tiling>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const Tiling& tiling, const SoftMaxShapeInfo& info = {},
                           KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftmaxFlashV2", tiling, info, file, line);
    auto s = kernelgen::row_shape(tiling, info);
    const uint32_t epb = 32 / sizeof(T);
    if (isUpdate)
        kernelgen::check_rows("SoftmaxFlashV2", s, dst, src,
                              {&expSumTensor, &maxTensor, &expMaxTensor, &inExpSumTensor, &inMaxTensor}, file, line);
    else
        kernelgen::check_rows("SoftmaxFlashV2", s, dst, src, {&expSumTensor, &maxTensor}, file, line);
    for (uint32_t r = 0; r < s.m; ++r) {
        const T* x = src.data() + uint64_t(r) * s.k;
        T* y = dst.data() + uint64_t(r) * s.k;
        float mx = -std::numeric_limits<float>::infinity();
        for (uint32_t j = 0; j < s.valid; ++j) mx = std::max(mx, static_cast<float>(x[j]));
        float in_max = 0, in_sum = 0;
        if (isUpdate) {
            in_max = static_cast<float>(inMaxTensor.data()[uint64_t(r) * epb]);
            in_sum = static_cast<float>(inExpSumTensor.data()[uint64_t(r) * epb]);
            mx = std::max(mx, in_max);
        }
        float sum = 0;
        for (uint32_t j = 0; j < s.valid; ++j) {
            T e = kernelgen::narrow<T>(std::exp(static_cast<float>(x[j]) - mx));
            y[j] = e;
            sum += static_cast<float>(e);
        }
        if (isUpdate) {
            float em = std::exp(in_max - mx);
            kernelgen::put_row_stat(expMaxTensor, r, em);
            sum += em * in_sum;
        }
        kernelgen::put_row_stat(maxTensor, r, mx);
        kernelgen::put_row_stat(expSumTensor, r, sum);
    }
}
template <class T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, class Tiling>
inline void SoftmaxFlashV2(const LocalTensor<T>& dst, const LocalTensor<T>& expSumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& src,
                           const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                           const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                           const Tiling& tiling, const SoftMaxShapeInfo& info = {}, KG_LOC) {
    kernelgen::require_tiling_type<Tiling>();
    kernelgen::check_softmax_tiling("SoftmaxFlashV2", tiling, info, file, line);
    kernelgen::check_softmax_tmp("SoftmaxFlashV2", sharedTmpBuffer, tiling, file, line);
    SoftmaxFlashV2<T, isUpdate, isReuseSource, isBasicBlock, isDataFormatNZ>(
        dst, expSumTensor, maxTensor, src, expMaxTensor, inExpSumTensor, inMaxTensor, tiling, info, file, line);
}

}  // namespace AscendC
