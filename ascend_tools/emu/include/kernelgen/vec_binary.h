// Two-source elementwise APIs (Add Sub Mul Div Max Min And Or ...) and the operator forms
// `dst = a + b` that apply them over the whole destination.
#pragma once

#include "vec_core.h"

namespace kernelgen::op {
inline constexpr auto add = [](auto a, auto b) { return a + b; };
inline constexpr auto sub = [](auto a, auto b) { return a - b; };
inline constexpr auto mul = [](auto a, auto b) { return a * b; };
inline constexpr auto div = [](auto a, auto b) { return a / b; };
inline constexpr auto max = [](auto a, auto b) { return a > b ? a : b; };
inline constexpr auto min = [](auto a, auto b) { return a < b ? a : b; };
inline constexpr auto band = [](auto a, auto b) { return a & b; };
inline constexpr auto bor = [](auto a, auto b) { return a | b; };
inline constexpr auto addrelu = [](auto a, auto b) { auto s = a + b; return s > decltype(s)(0) ? s : decltype(s)(0); };
inline constexpr auto subrelu = [](auto a, auto b) { auto s = a - b; return s > decltype(s)(0) ? s : decltype(s)(0); };
}  // namespace kernelgen::op

namespace AscendC {

KG_BINARY_API(Add, kernelgen::op::add)
KG_BINARY_API(Sub, kernelgen::op::sub)
KG_BINARY_API(Mul, kernelgen::op::mul)
KG_BINARY_API(Div, kernelgen::op::div)
KG_BINARY_API(Max, kernelgen::op::max)
KG_BINARY_API(Min, kernelgen::op::min)
KG_BINARY_API(And, kernelgen::op::band)
KG_BINARY_API(Or, kernelgen::op::bor)
KG_BINARY_API(AddRelu, kernelgen::op::addrelu)
KG_BINARY_API(SubRelu, kernelgen::op::subrelu)

namespace detail {
// Three-operand forms where the destination is also an input.
template <class T, class F>
inline void ternary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                          const LocalTensor<T>& src1, int64_t count, F f, const char* file, int line) {
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "src0", src0, n, file, line);
    kernelgen::check_vec_operand(api, "src1", src1, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    using kernelgen::widen;
    for (uint64_t i = 0; i < n; ++i)
        dst.data()[i] = kernelgen::narrow<T>(f(widen(src0.data()[i]), widen(src1.data()[i]), widen(dst.data()[i])));
}
// The mask forms (count mask or bit mask, repeats, BinaryRepeatParams): dst is read and written
// at the same lanes.
template <class T, class F>
inline void ternary_mask(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                         const LocalTensor<T>& src1, const kernelgen::Lanes& l, const BinaryRepeatParams& p, F f,
                         const char* file, int line) {
    using kernelgen::stride_of;
    kernelgen::Stride sd = stride_of<T>(p.dstBlkStride, p.dstRepStride),
                      s0 = stride_of<T>(p.src0BlkStride, p.src0RepStride),
                      s1 = stride_of<T>(p.src1BlkStride, p.src1RepStride);
    kernelgen::OverlapCheckedByEngine exact_below;
    kernelgen::check_strided(api, "dst", dst, l, sd, file, line);
    kernelgen::check_strided(api, "src0", src0, l, s0, file, line);
    kernelgen::check_strided(api, "src1", src1, l, s1, file, line);
    kernelgen::check_mask_overlap(api, dst, sd, "src0", src0, s0, l, false, file, line);
    kernelgen::check_mask_overlap(api, dst, sd, "src1", src1, s1, l, false, file, line);
    kernelgen::count_mask_repeats(api, l);
    using kernelgen::widen;
    T* d = dst.data();
    const T *x = src0.data(), *y = src1.data();
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        d[sd.at(r, k)] = kernelgen::narrow<T>(f(widen(x[s0.at(r, k)]), widen(y[s1.at(r, k)]), widen(d[sd.at(r, k)])));
    });
}
}  // namespace detail

// The three forms of a three-operand API whose destination is also an input (API reference:
// MulAddDst, FusedMulAdd: count; count mask + repeats; bit mask + repeats).
#define KG_TERNARY_API(NAME, F)                                                                                    \
    template <class T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     int64_t count, KG_LOC) {                                                                      \
        detail::ternary_count(#NAME, dst, src0, src1, count, F, file, line);                                      \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     uint64_t mask, int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {                    \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                     \
        detail::ternary_mask(#NAME, dst, src0, src1, l, p, F, file, line);                                        \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     const uint64_t mask[], int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {            \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,   \
                                                file, line);                                                       \
        detail::ternary_mask(#NAME, dst, src0, src1, l, p, F, file, line);                                        \
    }

// dst = src0 * src1 + dst.
KG_TERNARY_API(MulAddDst, ([](auto a, auto b, auto d) { return a * b + d; }))
// dst = src0 * dst + src1.
KG_TERNARY_API(FusedMulAdd, ([](auto a, auto b, auto d) { return a * d + b; }))

}  // namespace AscendC

namespace kernelgen {

// The right operand of `a + b`: converting to it records the expression's call site (the
// default arguments of the converting constructor are evaluated where the user wrote the
// expression), so a failure in the operator form names the user's line.
template <class T>
struct SitedOperand {
    const LocalTensor<T>& tensor;
    const char* file;
    int line;
    SitedOperand(const LocalTensor<T>& t, const char* f = __builtin_FILE(), int l = __builtin_LINE())
        : tensor(t), file(f), line(l) {}
};

// Keeps T deduced from the left operand only, so the right one converts to SitedOperand<T>.
template <class T>
struct same_type {
    using type = T;
};

// `a + b` etc.: applied when assigned to a LocalTensor, over the destination's size.
template <class T, class Op>
struct BinaryExpr : TensorExprTag {
    const LocalTensor<T>& a;
    const LocalTensor<T>& b;
    const char* api;
    Op op;
    const char* file;
    int line;
    BinaryExpr(const LocalTensor<T>& x, const SitedOperand<T>& y, const char* name, Op o)
        : a(x), b(y.tensor), api(name), op(o), file(y.file), line(y.line) {}
    void assign(const LocalTensor<T>& dst) const { binary_count(api, dst, a, b, dst.GetSize(), op, file, line); }
};

}  // namespace kernelgen

namespace AscendC {

#define KG_OPERATOR(SYM, NAME, OP)                                                                              \
    template <class T>                                                                                          \
    inline auto operator SYM(const LocalTensor<T>& a,                                                           \
                             const typename kernelgen::same_type<kernelgen::SitedOperand<T>>::type& b) {       \
        return kernelgen::BinaryExpr<T, std::decay_t<decltype(OP)>>(a, b, NAME, OP);                            \
    }
KG_OPERATOR(+, "Add", kernelgen::op::add)
KG_OPERATOR(-, "Sub", kernelgen::op::sub)
KG_OPERATOR(*, "Mul", kernelgen::op::mul)
KG_OPERATOR(/, "Div", kernelgen::op::div)
KG_OPERATOR(&, "And", kernelgen::op::band)
KG_OPERATOR(|, "Or", kernelgen::op::bor)
#undef KG_OPERATOR

}  // namespace AscendC
