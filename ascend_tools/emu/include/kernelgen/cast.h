// Cast between float, half, bfloat16 and integer types with every RoundMode, rounding exactly:
// the value is held in a double (exact for all sources but int64 beyond 2^53) and rounded once
// to the destination's precision and exponent range. Out-of-range values saturate (the API
// reference's precision-conversion rules). Only the (src, dst, RoundMode) combinations the chip
// documents are accepted (cast_table.h, generated from ascend_tools/catalog/tables).
#pragma once

#include "cast_table.h"
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

inline double max_finite(FloatFormat f) { return (2.0 - std::ldexp(1.0, 1 - f.p)) * std::ldexp(1.0, f.emax); }

inline double round_to_format(double x, FloatFormat f, RoundMode m) {
    if (std::isnan(x) || std::isinf(x) || x == 0.0) return x;
    int e;
    std::frexp(std::fabs(x), &e);  // |x| = frac * 2^e, frac in [0.5, 1)
    int unit = e - 1 < f.emin ? f.emin : e - 1;
    double q = std::ldexp(1.0, unit - (f.p - 1));  // spacing of representable values near x
    double r = round_integral(x / q, m) * q;
    double maxf = max_finite(f);
    if (std::fabs(r) <= maxf) return r;
    return x > 0 ? maxf : -maxf;  // overflow saturates (infinite sources stay infinite)
}

template <class S>
inline double to_double(S v) {
    if constexpr (is_float_like_v<S>) return static_cast<double>(static_cast<float>(v));
    else return static_cast<double>(v);
}

template <class D, class S>
inline D cast_exact(S v, RoundMode m) {
    // Fast paths where the hardware conversion of the host is the exact answer: widening float
    // conversions, and round-to-nearest-even into a float type from at most 32-bit sources.
    if constexpr (is_float_like_v<D> && (is_float_like_v<S> || sizeof(S) <= 4)) {
        constexpr bool widening = is_float_like_v<S> && (std::is_same_v<D, float> || std::is_same_v<S, D>);
        constexpr bool same = std::is_same_v<S, D>;  // float -> float rounds to an integer value
        if (!same && (widening || m == RoundMode::CAST_NONE || m == RoundMode::CAST_RINT)) {
            D r;
            if constexpr (std::is_same_v<D, bfloat16_t>) r = bfloat16_t(static_cast<float>(v));
            else if constexpr (is_float_like_v<S>) r = static_cast<D>(static_cast<float>(v));
            else r = static_cast<D>(v);
            float fr = static_cast<float>(r);
            if (!std::isinf(fr) || std::isinf(static_cast<float>(v))) return r;
            // a finite source past the largest finite value saturates
            double maxf = max_finite(format_of<D>());
            return static_cast<D>(static_cast<float>(fr > 0 ? maxf : -maxf));
        }
        if constexpr (same) {
            double x = to_double(v);
            if (std::isnan(x) || std::isinf(x)) return v;
            return static_cast<D>(static_cast<float>(round_integral(x, m)));
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

// `v` converted to D with `m` (an int4b_t source converts as its int value).
template <class D, class S>
inline D cast_value(S v, RoundMode m) {
    if constexpr (is_int4_v<D>) {
        // Rounded by the mode as into any integer, then saturated to [-8, 7] (precision
        // conversion rules: half -> int4b_t rounds to an integer; overflow saturates by default).
        const int8_t r = cast_exact<int8_t>(v, m);
        return AscendC::int4b_t(r < -8 ? -8 : r > 7 ? 7 : r);
    } else if constexpr (is_int4_v<S>) {
        return cast_exact<D>(static_cast<int8_t>(int(v)), m);
    } else {
        return cast_exact<D>(v, m);
    }
}

// The chip's documented Cast table (cast_table.h): a (src, dst) pair it lacks does not build for
// the NPU, a RoundMode the pair lacks is rejected there. Chips without a table are not checked.
// Returns whether the pair converts through the DEQSCALE register (int32_t -> half on 910B and
// 310P: the result is src x the scale SetDeqScale(half) set, and roundMode has no effect).
inline bool check_cast_support(const char* src, const char* dst, RoundMode m, const char* file, int line) {
    unsigned core = chip().cce_aicore, mode = static_cast<unsigned>(m);
    bool listed = false;
    const CastSupport* row = nullptr;
    std::string dsts;
    for (const auto& r : kCastSupport) {
        if (r.cce_aicore != core) continue;
        listed = true;
        if (std::strcmp(r.src, src) != 0) continue;
        if (std::strcmp(r.dst, dst) == 0) row = &r;
        dsts += dsts.empty() ? r.dst : std::string(", ") + r.dst;
    }
    if (!listed) return false;
    if (!row)
        failf("dtype-support", file, line,
              "Cast has no %s -> %s conversion on %s (documented from %s: %s); convert through a supported "
              "type",
              src, dst, chip().name.c_str(), src, dsts.empty() ? "none" : dsts.c_str());
    if (mode < 7 && (row->modes >> mode & 1u)) return row->deq_scale;
    std::string ok;
    for (unsigned i = 0; i < 7; ++i)
        if (row->modes >> i & 1u) ok += ok.empty() ? kRoundModeNames[i] : std::string(", ") + kRoundModeNames[i];
    failf("dtype-support", file, line, "Cast %s -> %s on %s supports RoundMode %s, not %s", src, dst,
          chip().name.c_str(), ok.c_str(), mode < 7 ? kRoundModeNames[mode] : "(out of range)");
}

// The DEQSCALE register as SetDeqScale(half) sets it, per block (each block is a thread); the
// NPU does not define its value before the first SetDeqScale.
struct DeqScaleRegister {
    bool set = false;
    float scale = 1.0f;
};
inline DeqScaleRegister& deq_scale_register() {
    static thread_local DeqScaleRegister r;
    return r;
}

// Whether the chip's Cast table has a conversion through DEQSCALE (SetDeqScale's API page lists
// the same chips: 910B/910_93 and 310P have it, 310B and 910 do not).
inline bool chip_has_deq_scale() {
    for (const auto& r : kCastSupport)
        if (r.cce_aicore == chip().cce_aicore && r.deq_scale) return true;
    return false;
}

// The scale a DEQSCALE conversion multiplies by; one the block never set is a failure.
inline float deq_scale_for(const char* src, const char* dst, const char* file, int line) {
    const DeqScaleRegister& r = deq_scale_register();
    if (!r.set)
        failf("dtype-support", file, line,
              "Cast %s -> %s on %s multiplies by the DEQSCALE register, which this block never set: call "
              "SetDeqScale(half scale) before it (1.0 for a plain conversion); roundMode has no effect here",
              src, dst, chip().name.c_str());
    return r.scale;
}

// Element i of a Cast operand, and its store: packed int4b_t elements by nibble (types.h).
template <class T>
inline T cast_load(const AscendC::LocalTensor<T>& t, uint64_t i) {
    if constexpr (is_int4_v<T>) return int4_load(t.data(), i);
    else return t.data()[i];
}
template <class T>
inline void cast_store(const AscendC::LocalTensor<T>& t, uint64_t i, T v) {
    if constexpr (is_int4_v<T>) int4_store(t.data(), i, v);
    else t.data()[i] = v;
}

// A Cast operand of `need` elements; an int4b_t one through its bytes, from a whole byte.
template <class T>
inline void check_cast_operand(const char* role, const AscendC::LocalTensor<T>& t, uint64_t need, const char* file,
                               int line) {
    if constexpr (is_int4_v<T>) check_int4_operand("Cast", role, t, need, file, line);
    else check_vec_operand("Cast", role, t, need, file, line);
}

// With an int4b_t operand two elements share a byte, so the count form's count must be even,
// and the mask forms' masks must pick whole bytes: an even continuous mask, bit pairs (0-1,
// 2-3, ...) equal in the bit mask (API reference, Cast, constraints). Counter mode's element
// count is held to the count form's rule.
inline void check_int4_count(uint64_t count, const char* file, int line) {
    if (count % 2 != 0)
        failf("param-range", file, line,
              "Cast with an int4b_t operand: count is %llu, which must be even (two int4b_t elements share a byte; API "
              "reference, Cast constraints)",
              (unsigned long long)count);
}
inline void check_int4_lanes(const Lanes& l, const char* file, int line) {
    if (l.counter) {
        if (l.count % 2 != 0)
            failf("mask-range", file, line,
                  "Cast with an int4b_t operand: the counter-mode mask is %llu elements, which must be even (two "
                  "int4b_t elements share a byte)",
                  (unsigned long long)l.count);
        return;
    }
    for (int w = 0; w < 2; ++w) {
        const uint64_t b = l.bits[w];
        if (((b ^ (b >> 1)) & 0x5555555555555555ull) != 0)
            failf("mask-range", file, line,
                  "Cast with an int4b_t operand: mask[%d] 0x%llx sets one element of a byte without the other; a "
                  "continuous mask must be even and bits 0-1, 2-3, ... of a bit mask equal (API reference, Cast "
                  "constraints)",
                  w, (unsigned long long)b);
    }
}

// One element: through DEQSCALE (x * scale rounded to nearest even, as CAST_NONE does for an
// inexact result) when `deq`, else with the RoundMode.
template <class D, class S>
inline D cast_element(S v, RoundMode m, bool deq, float scale) {
    if (deq) return cast_value<D>(static_cast<float>(v) * scale, RoundMode::CAST_RINT);
    return cast_value<D>(v, m);
}

}  // namespace kernelgen

namespace AscendC {

// Sets the DEQSCALE register's scale for the int32_t -> half Cast (and AddDeqRelu/CastDequant's
// s322fp16 forms); the other overloads serve CastDequant, which the emulator does not have.
inline void SetDeqScale(half scale, KG_LOC) {
    if (!kernelgen::chip_has_deq_scale())
        kernelgen::failf("chip-support", file, line, "SetDeqScale is not supported on %s",
                         kernelgen::chip().name.c_str());
    kernelgen::deq_scale_register() = {true, static_cast<float>(scale)};
}

template <class D, class S>
inline void Cast(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, int64_t count, KG_LOC) {
    const char* api = "Cast";
    kernelgen::check_count_nonneg(api, count, file, line);
    const bool deq =
        kernelgen::check_cast_support(kernelgen::type_name<S>(), kernelgen::type_name<D>(), mode, file, line);
    const float scale = deq ? kernelgen::deq_scale_for(kernelgen::type_name<S>(), kernelgen::type_name<D>(), file, line)
                            : 1.0f;
    uint64_t n = static_cast<uint64_t>(count);
    if constexpr (kernelgen::is_int4_v<D> || kernelgen::is_int4_v<S>) kernelgen::check_int4_count(n, file, line);
    kernelgen::check_cast_operand("dst", dst, n, file, line);
    kernelgen::check_cast_operand("src", src, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * (sizeof(D) > sizeof(S) ? sizeof(D) : sizeof(S)));
    for (uint64_t i = 0; i < n; ++i)
        kernelgen::cast_store(dst, i, kernelgen::cast_element<D>(kernelgen::cast_load(src, i), mode, deq, scale));
}

namespace detail {
template <class D, class S>
inline void cast_mask(const LocalTensor<D>& dst, const LocalTensor<S>& src, RoundMode mode, const kernelgen::Lanes& l,
                      const UnaryRepeatParams& p, const char* file, int line) {
    const bool deq =
        kernelgen::check_cast_support(kernelgen::type_name<S>(), kernelgen::type_name<D>(), mode, file, line);
    const float scale = deq ? kernelgen::deq_scale_for(kernelgen::type_name<S>(), kernelgen::type_name<D>(), file, line)
                            : 1.0f;
    auto sd = kernelgen::stride_of<D>(p.dstBlkStride, p.dstRepStride);
    auto ss = kernelgen::stride_of<S>(p.srcBlkStride, p.srcRepStride);
    if constexpr (kernelgen::is_int4_v<D> || kernelgen::is_int4_v<S>) kernelgen::check_int4_lanes(l, file, line);
    kernelgen::OverlapCheckedByEngine exact_below;
    kernelgen::check_cast_operand("dst", dst, kernelgen::extent(l, sd), file, line);
    kernelgen::check_cast_operand("src", src, kernelgen::extent(l, ss), file, line);
    kernelgen::check_mask_overlap("Cast", dst, sd, "src", src, ss, l, false, file, line);
    kernelgen::count_mask_repeats("Cast", l);
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        kernelgen::cast_store(dst, sd.at(r, k),
                              kernelgen::cast_element<D>(kernelgen::cast_load(src, ss.at(r, k)), mode, deq, scale));
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

// ScalarCast<T, U, roundMode>(valueIn): one scalar converted by Cast's precision rules. The
// reference documents float -> half with CAST_ODD and float -> int32_t with CAST_ROUND,
// CAST_CEIL, CAST_FLOOR or CAST_RINT only (CANN 8.0.0 API reference, ScalarCast,
// atlasascendc_api_07_0018); another combination does not build.
template <class T, class U, RoundMode roundMode>
inline U ScalarCast(T valueIn) {
    static_assert(std::is_same_v<T, float>, "ScalarCast: the source type must be float (API reference)");
    static_assert((std::is_same_v<U, half> && roundMode == RoundMode::CAST_ODD) ||
                      (std::is_same_v<U, int32_t> &&
                       (roundMode == RoundMode::CAST_ROUND || roundMode == RoundMode::CAST_CEIL ||
                        roundMode == RoundMode::CAST_FLOOR || roundMode == RoundMode::CAST_RINT)),
                  "ScalarCast converts float to half with CAST_ODD, or float to int32_t with CAST_ROUND, "
                  "CAST_CEIL, CAST_FLOOR or CAST_RINT (API reference)");
    return kernelgen::cast_value<U>(valueIn, roundMode);
}

}  // namespace AscendC
