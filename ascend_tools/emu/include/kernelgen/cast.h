// Cast between float, half, bfloat16 and integer types with every RoundMode, rounding exactly:
// the value is held in a double (exact for all sources but int64 beyond 2^53) and rounded once
// to the destination's precision and exponent range.
#pragma once

#include "vec_core.h"

namespace kernelgen {

using AscendC::RoundMode;

// Rounds `s` to an integer-valued double with `m` (CAST_NONE = to nearest even).
inline double round_integral(double s, RoundMode m) {
    switch (m) {
        case RoundMode::CAST_FLOOR: return std::floor(s);
        case RoundMode::CAST_CEIL: return std::ceil(s);
        case RoundMode::CAST_ROUND: return std::round(s);
        case RoundMode::CAST_TRUNC: return std::trunc(s);
        case RoundMode::CAST_ODD: {
            double t = std::trunc(s);
            if (t != s && std::fmod(t, 2.0) == 0.0) t += s > 0 ? 1.0 : -1.0;
            return t;
        }
        default: return std::nearbyint(s);  // ties to even in the default FP environment
    }
}

// A binary floating format: p significand bits (with the hidden one), normal exponents [emin, emax].
struct FloatFormat {
    int p, emin, emax;
};

template <class T>
constexpr FloatFormat format_of() {
    if constexpr (std::is_same_v<T, _Float16>) return {11, -14, 15};
    else if constexpr (std::is_same_v<T, bfloat16_t>) return {8, -126, 127};
    else return {24, -126, 127};
}

inline double round_to_format(double x, FloatFormat f, RoundMode m) {
    if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
    int e;
    std::frexp(std::fabs(x), &e);  // |x| = frac * 2^e, frac in [0.5, 1)
    int unit = e - 1 < f.emin ? f.emin : e - 1;
    double q = std::ldexp(1.0, unit - (f.p - 1));  // spacing of representable values near x
    double r = round_integral(x / q, m) * q;
    double maxf = (2.0 - std::ldexp(1.0, 1 - f.p)) * std::ldexp(1.0, f.emax);
    if (std::fabs(r) <= maxf) return r;
    double inf = std::numeric_limits<double>::infinity();
    bool pos = x > 0;
    switch (m) {  // overflow follows IEEE 754 directed rounding
        case RoundMode::CAST_TRUNC:
        case RoundMode::CAST_ODD: return pos ? maxf : -maxf;
        case RoundMode::CAST_FLOOR: return pos ? maxf : -inf;
        case RoundMode::CAST_CEIL: return pos ? inf : -maxf;
        default: return pos ? inf : -inf;
    }
}

template <class S>
inline double to_double(S v) {
    if constexpr (is_float_like_v<S>) return static_cast<double>(static_cast<float>(v));
    else return static_cast<double>(v);
}

template <class D, class S>
inline D cast_value(S v, RoundMode m) {
    // Fast paths where the hardware conversion of the host is the exact answer: widening float
    // conversions, and round-to-nearest-even into a float type from at most 32-bit sources.
    if constexpr (is_float_like_v<D> && (is_float_like_v<S> || sizeof(S) <= 4)) {
        constexpr bool widening = is_float_like_v<S> && (std::is_same_v<D, float> || std::is_same_v<S, D>);
        if (widening || m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT) {
            if constexpr (std::is_same_v<D, bfloat16_t>) return bfloat16_t(static_cast<float>(v));
            else if constexpr (is_float_like_v<S>) return static_cast<D>(static_cast<float>(v));
            else return static_cast<D>(v);
        }
    }
    double x = to_double(v);
    if constexpr (is_float_like_v<D>) {
        double r = round_to_format(x, format_of<D>(), m);
        if constexpr (std::is_same_v<D, bfloat16_t>) {
            float fr = static_cast<float>(r);  // exact: r is representable in bf16
            uint32_t u;
            std::memcpy(&u, &fr, 4);
            return bfloat16_t::from_bits(static_cast<uint16_t>(u >> 16));
        } else {
            return static_cast<D>(r);
        }
    } else {
        if (std::isnan(x)) return D(0);
        double r = round_integral(x, m);
        constexpr double lo = static_cast<double>(std::numeric_limits<D>::min());
        constexpr double hi = static_cast<double>(std::numeric_limits<D>::max());
        if (r <= lo) return std::numeric_limits<D>::min();  // saturate
        if (r >= hi) return std::numeric_limits<D>::max();
        return static_cast<D>(r);
    }
}

}  // namespace kernelgen

namespace AscendC {

template <class D, class S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, int64_t count, KG_LOC) {
    const char* api = "Cast";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "src", src, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)));
    if constexpr (std::is_same_v<D, S>) {
        std::memmove(dst.data(), src.data(), n * sizeof(D));
    } else {
        for (uint64_t i = 0; i < n; ++i) dst.data()[i] = kernelgen::cast_value<D>(src.data()[i], mode);
    }
}

namespace detail {
template <class D, class S>
inline void cast_mask(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, const kernelgen::Lanes& l,
                      const UnaryRepeatParams& p, const char* file, int line) {
    auto sd = kernelgen::stride_of<D>(p.dstBlkStride, p.dstRepStride);
    auto ss = kernelgen::stride_of<S>(p.srcBlkStride, p.srcRepStride);
    kernelgen::check_strided("Cast", "dst", dst, l, sd, file, line);
    kernelgen::check_strided("Cast", "src", src, l, ss, file, line);
    kernelgen::count_mask_repeats("Cast", l);
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        dst.data()[sd.at(r, k)] = kernelgen::cast_value<D>(src.data()[ss.at(r, k)], mode);
    });
}
template <class D, class S>
constexpr uint32_t cast_per_repeat() {
    return static_cast<uint32_t>(256 / (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)));
}
}  // namespace detail

template <class D, class S, bool isSetMask = true>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, uint64_t mask,
                 int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Cast", mask, repeatTimes, detail::cast_per_repeat<D, S>(), isSetMask, file,
                                              line);
    detail::cast_mask(dst, src, mode, l, p, file, line);
}
template <class D, class S, bool isSetMask = true>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, const uint64_t mask[],
                 int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("Cast", mask, repeatTimes, detail::cast_per_repeat<D, S>(), isSetMask, file,
                                            line);
    detail::cast_mask(dst, src, mode, l, p, file, line);
}

}  // namespace AscendC
