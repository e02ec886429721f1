// Compare / CompareScalar (bit-mask output, LSB first: bit i of byte i/8 is element i) and
// Select (VSEL_CMPMASK_SPR: the first per-repeat bits reused each repeat; TENSOR_SCALAR and
// TENSOR_TENSOR: one bit per element across the whole count).
#pragma once

#include "vec_core.h"
#include "vec_binary.h"

namespace kernelgen {

using AscendC::CMPMODE;
using AscendC::SELMODE;

template <class A>
inline bool compare(A a, A b, CMPMODE m) {
    switch (m) {
        case CMPMODE::LT: return a < b;
        case CMPMODE::GT: return a > b;
        case CMPMODE::EQ: return a == b;
        case CMPMODE::LE: return a <= b;
        case CMPMODE::GE: return a >= b;
        default: return a != b;
    }
}

inline const char* cmpmode_name(CMPMODE m) {
    static const char* const names[] = {"LT", "GT", "EQ", "LE", "GE", "NE"};
    return names[static_cast<int>(m)];
}

inline void set_bit(uint8_t* bits, uint64_t i, bool v) {
    uint8_t m = static_cast<uint8_t>(1u << (i % 8));
    bits[i / 8] = v ? (bits[i / 8] | m) : (bits[i / 8] & static_cast<uint8_t>(~m));
}
inline bool get_bit(const uint8_t* bits, uint64_t i) { return (bits[i / 8] >> (i % 8)) & 1u; }

// The bit-mask destination must hold ceil(n / 8) bytes.
template <class U>
inline void check_mask_dst(const char* api, const LocalTensor<U>& dst, uint64_t bits, const char* file, int line) {
    check_vec_operand(api, "dst", dst, ceil_div(ceil_div(bits, 8), sizeof(U)), file, line);
}

// Compare's count: the reference asks for whole 256-byte repeats. The NPU runs whole repeats, so
// a count that ends inside one is computed to the repeat's end (Ascend/samples Xlogy compares
// 4912 floats, 76.75 repeats, and passes on the NPU): a warning, and the lanes up to the end of
// that repeat are compared (their sources read past `count`, their bits written past it).
template <class T>
inline uint64_t compare_lanes_of(const char* api, int64_t count, bool aligned256, const char* file, int line) {
    check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    if (!aligned256 || (n * sizeof(T)) % 256 == 0) return n;
    const uint64_t whole = align_up(n * sizeof(T), 256) / sizeof(T);
    warn("param-range",
         format("%s: count %llu x sizeof(%s) = %llu bytes is not a multiple of 256 (the reference asks for whole "
                "repeats); the NPU runs the last repeat whole, so %llu elements are compared and their bits written",
                api, (unsigned long long)n, type_name<T>(), (unsigned long long)(n * sizeof(T)),
                (unsigned long long)whole),
         file, line);
    return whole;
}

template <class T, class U, class F>
inline void compare_count(const char* api, const LocalTensor<U>& dst, const LocalTensor<T>& src0, uint64_t n, F f,
                          const char* file, int line) {
    // Compare's count is whole 256-byte repeats (and CompareScalar callers round theirs up so): a
    // source of fewer elements is read past, a warning while it stays inside UB (check_vec_operand).
    check_vec_operand(api, "src0", src0, n, file, line);
    check_mask_dst(api, dst, n, file, line);
    count_bytes_as_repeats(api, n * sizeof(T));
    auto* bits = reinterpret_cast<uint8_t*>(dst.data());
    for (uint64_t i = 0; i < n; ++i) set_bit(bits, i, f(i));
}

}  // namespace kernelgen

namespace AscendC {

template <class T, class U>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    int64_t count, KG_LOC) {
    const uint64_t n = kernelgen::compare_lanes_of<T>("Compare", count, true, file, line);
    kernelgen::check_vec_operand("Compare", "src1", src1, n, file, line);
    const T *a = src0.data(), *b = src1.data();
    kernelgen::compare_count("Compare", dst, src0, n,
                             [&](uint64_t i) { return kernelgen::compare(kernelgen::widen(a[i]), kernelgen::widen(b[i]), mode); },
                             file, line);
}

template <class T, class U>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const kernelgen::nd_t<T>& scalar,
                          CMPMODE mode, int64_t count, KG_LOC) {
    kernelgen::check_mode_limit<T>("CompareScalar", kernelgen::cmpmode_name(mode), file, line);
    const T* a = src0.data();
    auto s = kernelgen::widen(static_cast<T>(scalar));
    kernelgen::compare_count("CompareScalar", dst, src0, kernelgen::compare_lanes_of<T>("CompareScalar", count, false, file, line),
                             [&](uint64_t i) { return kernelgen::compare(kernelgen::widen(a[i]), s, mode); }, file, line);
}

namespace detail {
// Mask form: repeat r writes its per-repeat bits contiguously at bit r * perRepeat.
template <class U, class F>
inline void compare_mask(const char* api, const LocalTensor<U>& dst, const kernelgen::Lanes& l, F f, const char* file,
                         int line) {
    kernelgen::check_mask_dst(api, dst, uint64_t(l.repeats) * l.per_repeat, file, line);
    kernelgen::count_mask_repeats(api, l);
    auto* bits = reinterpret_cast<uint8_t*>(dst.data());
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) { kernelgen::set_bit(bits, uint64_t(r) * l.per_repeat + k, f(r, k)); });
}

// The count-mask and bit-mask overloads differ only in how the lanes are read from the mask.
template <class T, class U>
inline void compare_lanes(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                          CMPMODE mode, const kernelgen::Lanes& l, const BinaryRepeatParams& p, const char* file,
                          int line) {
    auto s0 = kernelgen::stride_of<T>(p.src0BlkStride, p.src0RepStride), s1 = kernelgen::stride_of<T>(p.src1BlkStride, p.src1RepStride);
    kernelgen::check_strided("Compare", "src0", src0, l, s0, file, line);
    kernelgen::check_strided("Compare", "src1", src1, l, s1, file, line);
    compare_mask("Compare", dst, l, [&](uint32_t r, uint32_t k) {
        return kernelgen::compare(kernelgen::widen(src0.data()[s0.at(r, k)]), kernelgen::widen(src1.data()[s1.at(r, k)]), mode);
    }, file, line);
}

template <class T, class U>
inline void compare_scalar_lanes(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const kernelgen::nd_t<T>& scalar,
                                 CMPMODE mode, const kernelgen::Lanes& l, const UnaryRepeatParams& p, const char* file,
                                 int line) {
    kernelgen::check_mode_limit<T>("CompareScalar", kernelgen::cmpmode_name(mode), file, line);
    auto s0 = kernelgen::stride_of<T>(p.srcBlkStride, p.srcRepStride);
    kernelgen::check_strided("CompareScalar", "src0", src0, l, s0, file, line);
    auto s = kernelgen::widen(static_cast<T>(scalar));
    compare_mask("CompareScalar", dst, l, [&](uint32_t r, uint32_t k) {
        return kernelgen::compare(kernelgen::widen(src0.data()[s0.at(r, k)]), s, mode);
    }, file, line);
}
}  // namespace detail

template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    uint64_t mask, int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {
    detail::compare_lanes(dst, src0, src1, mode,
                          kernelgen::lanes_from_count_mask("Compare", mask, repeatTimes, kernelgen::per_repeat<T>(),
                                                           isSetMask, file, line),
                          p, file, line);
}
template <class T, class U, bool isSetMask = true>
inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode,
                    const uint64_t mask[], int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {
    detail::compare_lanes(dst, src0, src1, mode,
                          kernelgen::lanes_from_bit_mask("Compare", mask, repeatTimes, kernelgen::per_repeat<T>(),
                                                         isSetMask, file, line),
                          p, file, line);
}

// CompareScalar's mask forms (AscendC API reference, CompareScalar: "tensor high-dimension split"
// with a count or bit mask, repeatTimes and UnaryRepeatParams): bits as Compare's mask form.
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const kernelgen::nd_t<T>& scalar,
                          CMPMODE mode, uint64_t mask, int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {
    detail::compare_scalar_lanes(dst, src0, scalar, mode,
                                 kernelgen::lanes_from_count_mask("CompareScalar", mask, repeatTimes,
                                                                  kernelgen::per_repeat<T>(), isSetMask, file, line),
                                 p, file, line);
}
template <class T, class U, bool isSetMask = true>
inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const kernelgen::nd_t<T>& scalar,
                          CMPMODE mode, const uint64_t mask[], int64_t repeatTimes, const UnaryRepeatParams& p,
                          KG_LOC) {
    detail::compare_scalar_lanes(dst, src0, scalar, mode,
                                 kernelgen::lanes_from_bit_mask("CompareScalar", mask, repeatTimes,
                                                                kernelgen::per_repeat<T>(), isSetMask, file, line),
                                 p, file, line);
}

// Register form: one repeat, result in the CMPMASK register (read by GetCmpMask / Select mode 0).
template <class T, bool isSetMask = true>
inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE mode, uint64_t mask,
                    const BinaryRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Compare", mask, 1, kernelgen::per_repeat<T>(), isSetMask, file, line);
    l.repeats = 1;
    auto s0 = kernelgen::stride_of<T>(p.src0BlkStride, p.src0RepStride), s1 = kernelgen::stride_of<T>(p.src1BlkStride, p.src1RepStride);
    kernelgen::check_strided("Compare", "src0", src0, l, s0, file, line);
    kernelgen::check_strided("Compare", "src1", src1, l, s1, file, line);
    kernelgen::count_mask_repeats("Compare", l);
    uint8_t* bits = kernelgen::block().cmpmask;
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        kernelgen::set_bit(bits, k, kernelgen::compare(kernelgen::widen(src0.data()[s0.at(r, k)]), kernelgen::widen(src1.data()[s1.at(r, k)]), mode));
    });
}

template <class U>
inline void GetCmpMask(const LocalTensor<U>& dst, KG_LOC) {
    kernelgen::check_vec_operand("GetCmpMask", "dst", dst, kernelgen::ceil_div(16, sizeof(U)), file, line);
    std::memcpy(dst.data(), kernelgen::block().cmpmask, 16);
}
template <class U>
inline void SetCmpMask(const LocalTensor<U>& src, KG_LOC) {
    kernelgen::check_vec_operand("SetCmpMask", "src", src, kernelgen::ceil_div(16, sizeof(U)), file, line);
    std::memcpy(kernelgen::block().cmpmask, src.data(), 16);
}

// ---------------------------------------------------------------- Select
namespace detail {
template <class T, class U, class Pick>
inline void select_count(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                         SELMODE mode, int64_t count, Pick other, const char* file, int line) {
    const char* api = "Select";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    const uint64_t per = kernelgen::per_repeat<T>();
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "src0", src0, n, file, line);
    uint64_t mask_bits = mode == SELMODE::VSEL_CMPMASK_SPR ? (n < per ? n : per) : n;
    kernelgen::check_vec_operand(api, "selMask", selMask, kernelgen::ceil_div(kernelgen::ceil_div(mask_bits, 8), sizeof(U)),
                                 file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    const auto* bits = reinterpret_cast<const uint8_t*>(selMask.data());
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? i % per : i;
        dst.data()[i] = kernelgen::get_bit(bits, b) ? src0.data()[i] : other(i);
    }
}
}  // namespace detail

template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE mode, int64_t count, KG_LOC) {
    kernelgen::check_vec_operand("Select", "src1", src1, static_cast<uint64_t>(count < 0 ? 0 : count), file, line);
    const T* b = src1.data();
    detail::select_count(dst, selMask, src0, mode, count, [b](uint64_t i) { return b[i]; }, file, line);
}
template <class T, class U>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const kernelgen::nd_t<T>& scalar, SELMODE mode, int64_t count, KG_LOC) {
    T s = static_cast<T>(scalar);
    detail::select_count(dst, selMask, src0, mode, count, [s](uint64_t) { return s; }, file, line);
}

namespace detail {
template <class T, class U, class Other>
inline void select_mask(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                        SELMODE mode, const kernelgen::Lanes& l, const BinaryRepeatParams& p, Other other,
                        const char* file, int line) {
    auto sd = kernelgen::stride_of<T>(p.dstBlkStride, p.dstRepStride), s0 = kernelgen::stride_of<T>(p.src0BlkStride, p.src0RepStride);
    kernelgen::check_strided("Select", "dst", dst, l, sd, file, line);
    kernelgen::check_strided("Select", "src0", src0, l, s0, file, line);
    kernelgen::count_mask_repeats("Select", l);
    const uint8_t* bits = selMask.valid() ? reinterpret_cast<const uint8_t*>(selMask.data()) : kernelgen::block().cmpmask;
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        uint64_t b = mode == SELMODE::VSEL_CMPMASK_SPR ? k : uint64_t(r) * l.per_repeat + k;
        dst.data()[sd.at(r, k)] = kernelgen::get_bit(bits, b) ? src0.data()[s0.at(r, k)] : other(r, k);
    });
}
}  // namespace detail

template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const LocalTensor<T>& src1, SELMODE mode, uint64_t mask, int64_t repeatTimes,
                   const BinaryRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Select", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    auto s1 = kernelgen::stride_of<T>(p.src1BlkStride, p.src1RepStride);
    kernelgen::check_strided("Select", "src1", src1, l, s1, file, line);
    detail::select_mask(dst, selMask, src0, mode, l, p, [&](uint32_t r, uint32_t k) { return src1.data()[s1.at(r, k)]; },
                        file, line);
}
template <class T, class U, bool isSetMask = true>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0,
                   const kernelgen::nd_t<T>& scalar, SELMODE mode, uint64_t mask, int64_t repeatTimes,
                   const BinaryRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Select", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    T s = static_cast<T>(scalar);
    detail::select_mask(dst, selMask, src0, mode, l, p, [s](uint32_t, uint32_t) { return s; }, file, line);
}
// Mode 0 with the CMPMASK register (set by the register form of Compare or SetCmpMask).
template <class T, SELMODE mode = SELMODE::VSEL_CMPMASK_SPR>
inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                   int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {
    auto& st = kernelgen::block();
    kernelgen::Lanes l{kernelgen::per_repeat<T>(), 0, st.mask_counter, st.mask_lo, {st.mask_lo, st.mask_hi}};
    if (l.counter) {
        l.repeats = static_cast<uint32_t>(kernelgen::ceil_div(l.count, l.per_repeat));
    } else {
        kernelgen::check_repeat("Select", repeatTimes, file, line);
        l.repeats = static_cast<uint32_t>(repeatTimes);
    }
    auto s1 = kernelgen::stride_of<T>(p.src1BlkStride, p.src1RepStride);
    kernelgen::check_strided("Select", "src1", src1, l, s1, file, line);
    detail::select_mask(dst, LocalTensor<uint8_t>(), src0, SELMODE::VSEL_CMPMASK_SPR, l, p,
                        [&](uint32_t r, uint32_t k) { return src1.data()[s1.at(r, k)]; }, file, line);
}

// ---------------------------------------------------------------- SelectWithBytesMask
// One mask element (not bit) per source element, over [firstAxis, srcLastAxis] with mask rows of
// maskLastAxis: a zero mask value takes src0, any other value src1 (either may be the scalar).
struct SelectWithBytesMaskShapeInfo {
    uint32_t firstAxis = 0, srcLastAxis = 0, maskLastAxis = 0;
};

namespace detail {
template <class T, class U, class S0, class S1>
inline void select_bytes(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<U>& mask,
                         const SelectWithBytesMaskShapeInfo& info, S0 pick0, S1 pick1, const char* file, int line) {
    const char* api = "SelectWithBytesMask";
    if (info.maskLastAxis < info.srcLastAxis)
        kernelgen::failf("param-range", file, line, "%s: maskLastAxis %u is shorter than srcLastAxis %u", api,
                         info.maskLastAxis, info.srcLastAxis);
    uint64_t n = uint64_t(info.firstAxis) * info.srcLastAxis;
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "src", src, n, file, line);
    kernelgen::check_vec_operand(api, "mask", mask, uint64_t(info.firstAxis) * info.maskLastAxis, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    for (uint32_t r = 0; r < info.firstAxis; ++r)
        for (uint32_t j = 0; j < info.srcLastAxis; ++j) {
            uint64_t i = uint64_t(r) * info.srcLastAxis + j;
            bool nz = mask.data()[uint64_t(r) * info.maskLastAxis + j] != U(0);
            dst.data()[i] = nz ? pick1(i) : pick0(i);
        }
}
}  // namespace detail

template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const kernelgen::nd_t<T>& src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>&,
                                const SelectWithBytesMaskShapeInfo& info, KG_LOC) {
    T s = static_cast<T>(src1);
    detail::select_bytes(dst, src0, mask, info, [&](uint64_t i) { return src0.data()[i]; }, [s](uint64_t) { return s; },
                         file, line);
}
template <class T, class U, bool isReuseMask = true>
inline void SelectWithBytesMask(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& src0, const LocalTensor<T>& src1,
                                const LocalTensor<U>& mask, const LocalTensor<uint8_t>&,
                                const SelectWithBytesMaskShapeInfo& info, KG_LOC) {
    T s = static_cast<T>(src0);
    detail::select_bytes(dst, src1, mask, info, [s](uint64_t) { return s; }, [&](uint64_t i) { return src1.data()[i]; },
                         file, line);
}

}  // namespace AscendC

namespace kernelgen {

// `dst = a < b` etc. (Compare over the whole tensor): applied when assigned to the uint8_t
// LocalTensor of result bits, over every element of the left operand.
template <class T>
struct CompareExpr : TensorExprTag {
    const LocalTensor<T>& a;
    const LocalTensor<T>& b;
    AscendC::CMPMODE mode;
    const char* file;
    int line;
    CompareExpr(const LocalTensor<T>& x, const SitedOperand<T>& y, AscendC::CMPMODE m)
        : a(x), b(y.tensor), mode(m), file(y.file), line(y.line) {}
    template <class U>
    void assign(const LocalTensor<U>& dst) const {
        AscendC::Compare(dst, a, b, mode, static_cast<int64_t>(a.GetSize()), file, line);
    }
};

}  // namespace kernelgen

namespace AscendC {

#define KG_CMP_OPERATOR(SYM, MODE)                                                                            \
    template <class T>                                                                                        \
    inline auto operator SYM(const LocalTensor<T>& a,                                                         \
                             const typename kernelgen::same_type<kernelgen::SitedOperand<T>>::type& b) {     \
        return kernelgen::CompareExpr<T>(a, b, CMPMODE::MODE);                                                \
    }
KG_CMP_OPERATOR(<, LT)
KG_CMP_OPERATOR(>, GT)
KG_CMP_OPERATOR(<=, LE)
KG_CMP_OPERATOR(>=, GE)
KG_CMP_OPERATOR(==, EQ)
KG_CMP_OPERATOR(!=, NE)
#undef KG_CMP_OPERATOR

}  // namespace AscendC
