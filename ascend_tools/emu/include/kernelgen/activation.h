// High-level elementwise APIs (activation and math library): each takes an optional
// sharedTmpBuffer (ignored here: the CPU needs no scratch) and computes in float, rounding to T.
#pragma once

#include "vec_binary.h"
#include "vec_core.h"

namespace kernelgen::op {
inline float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }
// Documented tanh approximation: 0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) = x * sigmoid(2 * ...).
inline float gelu(float x) { return x * sigmoid(1.5957691216057308f * (x + 0.044715f * x * x * x)); }
inline float faster_gelu(float x) { return x * sigmoid(1.702f * x); }
inline float silu(float x) { return x * sigmoid(x); }
inline float sign(float x) { return x > 0 ? 1.0f : (x < 0 ? -1.0f : 0.0f); }
inline float frac(float x) { return x - std::trunc(x); }
}  // namespace kernelgen::op

// Two forms: (dst, src, sharedTmpBuffer, count) and (dst, src, count).
#define KG_MATH_API(NAME, FN)                                                                                          \
    template <class T, bool isReuseSource = false>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&, int64_t count, \
                     KG_LOC) {                                                                                         \
        kernelgen::unary_count(#NAME, dst, src, count, [](auto x) { return FN(static_cast<float>(x)); }, file, line);  \
    }                                                                                                                  \
    template <class T, bool isReuseSource = false>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, KG_LOC) {                  \
        kernelgen::unary_count(#NAME, dst, src, count, [](auto x) { return FN(static_cast<float>(x)); }, file, line);  \
    }

// The math library's whole-tensor forms, (dst, src, sharedTmpBuffer) and (dst, src): the whole
// source tensor takes part ("All source operand tensors are involved in computation"), so the
// count is src's size. Documented for the APIs listed below (CANN 8.0.0 Ascend C API reference:
// Sin atlasascendc_api_07_0499, Cos 07_0508, Tan and Tanh 07_0489, Trunc 07_0536; Log in pyasc's
// asc.language.adv.log prototypes); the activation APIs (Sigmoid, Silu, Gelu, FasterGelu)
// document only the counted forms.
#define KG_MATH_API_WHOLE(NAME)                                                                                        \
    template <class T, bool isReuseSource = false>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                     KG_LOC) {                                                                                         \
        NAME<T, isReuseSource>(dst, src, sharedTmpBuffer, static_cast<int64_t>(src.GetSize()), file, line);           \
    }                                                                                                                  \
    template <class T, bool isReuseSource = false>                                                                     \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, KG_LOC) {                                   \
        NAME<T, isReuseSource>(dst, src, static_cast<int64_t>(src.GetSize()), file, line);                            \
    }

namespace AscendC {

// High-level Exp (math library): Exp<T, taylorExpandLevel, isReuseSource>(dst, src, tmp, count).
// The NPU refines exp with a Taylor expansion of that many terms; the emulator computes exp
// exactly, which is what the expansion approaches.
template <class T, uint8_t taylorExpandLevel, bool isReuseSource = false>
inline void Exp(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                int64_t count, KG_LOC) {
    kernelgen::check_vec_operand("Exp", "sharedTmpBuffer", sharedTmpBuffer, 0, file, line);
    kernelgen::unary_count("Exp", dst, src, count, [](auto x) { return std::exp(static_cast<float>(x)); }, file, line);
}

KG_MATH_API(Sigmoid, kernelgen::op::sigmoid)
KG_MATH_API(Tanh, std::tanh)
KG_MATH_API(FasterGelu, kernelgen::op::faster_gelu)
KG_MATH_API(Silu, kernelgen::op::silu)
KG_MATH_API(Erf, std::erf)
KG_MATH_API(Erfc, std::erfc)
KG_MATH_API(Log, std::log)
KG_MATH_API(Log2, std::log2)
KG_MATH_API(Log10, std::log10)
KG_MATH_API(Sin, std::sin)
KG_MATH_API(Cos, std::cos)
KG_MATH_API(Tan, std::tan)
KG_MATH_API(Asin, std::asin)
KG_MATH_API(Acos, std::acos)
KG_MATH_API(Atan, std::atan)
KG_MATH_API(Sinh, std::sinh)
KG_MATH_API(Cosh, std::cosh)
KG_MATH_API(Asinh, std::asinh)
KG_MATH_API(Acosh, std::acosh)
KG_MATH_API(Atanh, std::atanh)
KG_MATH_API(Floor, std::floor)
KG_MATH_API(Ceil, std::ceil)
KG_MATH_API(Trunc, std::trunc)
KG_MATH_API(Round, std::nearbyint)
KG_MATH_API(Sign, kernelgen::op::sign)
KG_MATH_API(Frac, kernelgen::op::frac)
KG_MATH_API_WHOLE(Sin)
KG_MATH_API_WHOLE(Cos)
KG_MATH_API_WHOLE(Tan)
KG_MATH_API_WHOLE(Tanh)
KG_MATH_API_WHOLE(Trunc)
KG_MATH_API_WHOLE(Log)

// Gelu<T, highPrecision, highPerformance>: the tanh approximation (both flags give the same
// result here).
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&, int64_t count,
                 KG_LOC) {
    kernelgen::unary_count("Gelu", dst, src, count, [](auto x) { return kernelgen::op::gelu(static_cast<float>(x)); },
                           file, line);
}
template <class T, bool highPrecision = false, bool highPerformance = false>
inline void Gelu(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, KG_LOC) {
    kernelgen::unary_count("Gelu", dst, src, count, [](auto x) { return kernelgen::op::gelu(static_cast<float>(x)); },
                           file, line);
}

// Swish(x) = x * sigmoid(beta * x).
template <class T, bool isReuseSource = false>
inline void Swish(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, const kernelgen::nd_t<T>& beta,
                  KG_LOC) {
    float b = static_cast<float>(static_cast<T>(beta));
    kernelgen::unary_count("Swish", dst, src, count,
                           [b](auto x) { return static_cast<float>(x) * kernelgen::op::sigmoid(b * static_cast<float>(x)); },
                           file, line);
}

// Power: tensor^tensor, tensor^scalar, scalar^tensor (optional sharedTmpBuffer before count).
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, int64_t count,
                  KG_LOC) {
    kernelgen::binary_count("Power", dst, src0, src1, count,
                            [](auto a, auto b) { return std::pow(static_cast<float>(a), static_cast<float>(b)); }, file, line);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                  const LocalTensor<uint8_t>&, int64_t count, KG_LOC) {
    Power<T, isReuseSource>(dst, src0, src1, count, file, line);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& exponent, int64_t count,
                  KG_LOC) {
    float e = static_cast<float>(static_cast<T>(exponent));
    kernelgen::unary_count("Power", dst, src, count, [e](auto a) { return std::pow(static_cast<float>(a), e); }, file, line);
}
template <class T, bool isReuseSource = false>
inline void Power(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& base, const LocalTensor<T>& src, int64_t count,
                  KG_LOC) {
    float b = static_cast<float>(static_cast<T>(base));
    kernelgen::unary_count("Power", dst, src, count, [b](auto a) { return std::pow(b, static_cast<float>(a)); }, file, line);
}

// Fmod: the remainder of a / b element-wise, a - Trunc(a / b) * b as the reference defines it
// (Fmod(2.0, 1.5) = 0.5, Fmod(-3.0, 1.1) = -0.8), computed in float; the forms without count
// take the whole src0 (CANN 8.0.0 Ascend C API reference, Fmod, atlasascendc_api_07_0607).
template <class T, bool isReuseSource = false>
inline void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, int64_t count,
                 KG_LOC) {
    kernelgen::binary_count("Fmod", dst, src0, src1, count, [](auto a, auto b) {
        float x = static_cast<float>(a), y = static_cast<float>(b);
        return x - std::trunc(x / y) * y;
    }, file, line);
}
template <class T, bool isReuseSource = false>
inline void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                 const LocalTensor<uint8_t>&, int64_t count, KG_LOC) {
    Fmod<T, isReuseSource>(dst, src0, src1, count, file, line);
}
template <class T, bool isReuseSource = false>
inline void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                 const LocalTensor<uint8_t>&, KG_LOC) {
    Fmod<T, isReuseSource>(dst, src0, src1, static_cast<int64_t>(src0.GetSize()), file, line);
}
template <class T, bool isReuseSource = false>
inline void Fmod(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, KG_LOC) {
    Fmod<T, isReuseSource>(dst, src0, src1, static_cast<int64_t>(src0.GetSize()), file, line);
}

// ClampMax(x) = min(x, s), ClampMin(x) = max(x, s) (high-level; the scratch buffer is optional:
// without it the API takes its own).
template <class T, bool isReuseSource = false>
inline void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
                     const kernelgen::nd_t<T>& scalar, int64_t count, KG_LOC) {
    auto s = kernelgen::widen(static_cast<T>(scalar));
    kernelgen::unary_count("ClampMax", dst, src, count, [s](auto a) { return a < s ? a : s; }, file, line);
}
template <class T, bool isReuseSource = false>
inline void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&,
                     const kernelgen::nd_t<T>& scalar, int64_t count, KG_LOC) {
    auto s = kernelgen::widen(static_cast<T>(scalar));
    kernelgen::unary_count("ClampMin", dst, src, count, [s](auto a) { return a > s ? a : s; }, file, line);
}
template <class T, bool isReuseSource = false>
inline void ClampMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& scalar,
                     int64_t count, KG_LOC) {
    auto s = kernelgen::widen(static_cast<T>(scalar));
    kernelgen::unary_count("ClampMax", dst, src, count, [s](auto a) { return a < s ? a : s; }, file, line);
}
template <class T, bool isReuseSource = false>
inline void ClampMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& scalar,
                     int64_t count, KG_LOC) {
    auto s = kernelgen::widen(static_cast<T>(scalar));
    kernelgen::unary_count("ClampMin", dst, src, count, [s](auto a) { return a > s ? a : s; }, file, line);
}

// Xor of integer tensors (high-level; the scratch buffer is optional).
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, int64_t count,
                KG_LOC) {
    kernelgen::binary_count("Xor", dst, src0, src1, count, [](auto a, auto b) { return a ^ b; }, file, line);
}
template <class T, bool isReuseSource = false>
inline void Xor(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                const LocalTensor<uint8_t>&, int64_t count, KG_LOC) {
    Xor<T, isReuseSource>(dst, src0, src1, count, file, line);
}

// dst[i] = firstValue + i * diffValue.
template <class T>
inline void Arange(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& firstValue, const kernelgen::nd_t<T>& diffValue,
                   int64_t count, KG_LOC) {
    kernelgen::check_count_nonneg("Arange", count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand("Arange", "dst", dst, n, file, line);
    kernelgen::count_bytes_as_repeats("Arange", n * sizeof(T));
    auto a = kernelgen::widen(static_cast<T>(firstValue));
    auto d = kernelgen::widen(static_cast<T>(diffValue));
    for (uint64_t i = 0; i < n; ++i) dst.data()[i] = kernelgen::narrow<T>(a + static_cast<decltype(a)>(i) * d);
}

}  // namespace AscendC
