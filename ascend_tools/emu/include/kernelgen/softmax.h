// Row softmax high-level APIs on an [M, K] tile (K padded to 32 bytes, oriSrcK valid columns):
// SoftMax (normalised) and SoftmaxFlashV2 (the online form: unnormalised exp, running max and
// sum, optional update from the previous max/sum). Row statistics are stored one 32-byte block
// per row (the value repeated), as the documented [M, 32B/sizeof(T)] layout. Any tiling struct
// with srcM/srcK members works; the shape info wins when it is filled.
#pragma once

#include "vec_core.h"

namespace kernelgen {

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

}  // namespace kernelgen

namespace AscendC {

template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const Tiling& tiling, const SoftMaxShapeInfo& info = {}, KG_LOC) {
    auto s = kernelgen::row_shape(tiling, info);
    kernelgen::check_rows("SoftMax", s, dst, src, {&sumTensor, &maxTensor}, file, line);
    for (uint32_t r = 0; r < s.m; ++r) {
        const T* x = src.data() + uint64_t(r) * s.k;
        T* y = dst.data() + uint64_t(r) * s.k;
        float mx = -std::numeric_limits<float>::infinity();
        for (uint32_t j = 0; j < s.valid; ++j) mx = std::max(mx, static_cast<float>(x[j]));
        float sum = 0;
        for (uint32_t j = 0; j < s.valid; ++j) sum += std::exp(static_cast<float>(x[j]) - mx);
        for (uint32_t j = 0; j < s.valid; ++j) y[j] = kernelgen::narrow<T>(std::exp(static_cast<float>(x[j]) - mx) / sum);
        kernelgen::put_row_stat(maxTensor, r, mx);
        kernelgen::put_row_stat(sumTensor, r, sum);
    }
}
template <class T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false, class Tiling>
inline void SoftMax(const LocalTensor<T>& dst, const LocalTensor<T>& sumTensor, const LocalTensor<T>& maxTensor,
                    const LocalTensor<T>& src, const LocalTensor<uint8_t>&, const Tiling& tiling,
                    const SoftMaxShapeInfo& info = {}, KG_LOC) {
    SoftMax<T, isReuseSource, isBasicBlock, isDataFormatNZ>(dst, sumTensor, maxTensor, src, tiling, info, file, line);
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
                           const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>&, const Tiling& tiling,
                           const SoftMaxShapeInfo& info = {}, KG_LOC) {
    SoftmaxFlashV2<T, isUpdate, isReuseSource, isBasicBlock, isDataFormatNZ>(
        dst, expSumTensor, maxTensor, src, expMaxTensor, inExpSumTensor, inMaxTensor, tiling, info, file, line);
}

}  // namespace AscendC
