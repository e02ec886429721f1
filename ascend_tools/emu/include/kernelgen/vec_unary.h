// One-source elementwise APIs (Exp Ln Abs Reciprocal Sqrt Rsqrt Relu Not), tensor-scalar APIs
// (Adds Muls Maxs Mins LeakyRelu ShiftLeft ShiftRight) and Duplicate.
#pragma once

#include "vec_core.h"

namespace kernelgen::op {
inline constexpr auto exp = [](auto a) { return std::exp(a); };
inline constexpr auto ln = [](auto a) { return std::log(a); };
inline constexpr auto abs = [](auto a) { return a < decltype(a)(0) ? -a : a; };
inline constexpr auto reciprocal = [](auto a) { return decltype(a)(1) / a; };
inline constexpr auto sqrt = [](auto a) { return std::sqrt(a); };
inline constexpr auto rsqrt = [](auto a) { return decltype(a)(1) / std::sqrt(a); };
inline constexpr auto relu = [](auto a) { return a > decltype(a)(0) ? a : decltype(a)(0); };
inline constexpr auto bnot = [](auto a) { return ~a; };
}  // namespace kernelgen::op

namespace AscendC {

KG_UNARY_API(Exp, kernelgen::op::exp)
KG_UNARY_API(Ln, kernelgen::op::ln)
KG_UNARY_API(Abs, kernelgen::op::abs)
KG_UNARY_API(Reciprocal, kernelgen::op::reciprocal)
KG_UNARY_API(Sqrt, kernelgen::op::sqrt)
KG_UNARY_API(Rsqrt, kernelgen::op::rsqrt)
KG_UNARY_API(Relu, kernelgen::op::relu)
KG_UNARY_API(Not, kernelgen::op::bnot)

KG_SCALAR_API(Adds, [s](auto a) { return a + s; })
KG_SCALAR_API(Muls, [s](auto a) { return a * s; })
KG_SCALAR_API(Maxs, [s](auto a) { return a > s ? a : s; })
KG_SCALAR_API(Mins, [s](auto a) { return a < s ? a : s; })
KG_SCALAR_API(LeakyRelu, [s](auto a) { return a >= decltype(a)(0) ? a : a * s; })
KG_SCALAR_API(ShiftLeft, [s](auto a) { return a << s; })
KG_SCALAR_API(ShiftRight, [s](auto a) { return a >> s; })

// ---------------------------------------------------------------- Duplicate
template <class T>
inline void Duplicate(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& scalar, int64_t count, KG_LOC) {
    const char* api = "Duplicate";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    T v = static_cast<T>(scalar);
    for (uint64_t i = 0; i < n; ++i) dst.data()[i] = v;
}

namespace detail {
template <class T>
inline void duplicate_mask(const LocalTensor<T>& dst, T v, const kernelgen::Lanes& l, uint32_t blk, uint32_t rep,
                           const char* file, int line) {
    auto s = kernelgen::stride_of<T>(blk, rep);
    kernelgen::check_strided("Duplicate", "dst", dst, l, s, file, line);
    kernelgen::count_mask_repeats("Duplicate", l);
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) { dst.data()[s.at(r, k)] = v; });
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& scalar, uint64_t mask, int64_t repeatTimes,
                      uint16_t dstBlkStride, uint8_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Duplicate", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file,
                                              line);
    detail::duplicate_mask(dst, static_cast<T>(scalar), l, dstBlkStride, dstRepStride, file, line);
}
template <class T, bool isSetMask = true>
inline void Duplicate(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& scalar, const uint64_t mask[],
                      int64_t repeatTimes, uint16_t dstBlkStride, uint8_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("Duplicate", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file,
                                            line);
    detail::duplicate_mask(dst, static_cast<T>(scalar), l, dstBlkStride, dstRepStride, file, line);
}

}  // namespace AscendC
