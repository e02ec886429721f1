// Normalisation high-level APIs over the last axis of a [B, S, H] tile: LayerNorm (output,
// mean and variance) and RmsNorm. Shapes come from the tiling struct the host helpers fill
// (kernel_tiling.h LayerNormTiling / RmsNormTiling, or any struct with their members: hLength
// is the 32-byte padded row, originalHLength the valid columns); rows are computed in double from the element values and rounded once to T. Only the valid
// columns of each output row are written.
#pragma once

#include "vec_core.h"

namespace kernelgen {

struct NormShape {
    uint64_t rows, h, valid;
};

template <class Tiling>
inline NormShape norm_shape(const char* api, const Tiling& t, const char* file, int line) {
    NormShape s{uint64_t(t.bLength) * t.sLength, t.hLength, t.originalHLength ? t.originalHLength : t.hLength};
    if (s.rows == 0 || s.h == 0)
        failf("param-range", file, line, "%s: the tiling's shape is B=%u S=%u H=%u; fill it on the host (Get%sTilingInfo)", api,
              t.bLength, t.sLength, t.hLength, api);
    if (s.valid > s.h)
        failf("param-range", file, line, "%s: originalHLength %llu exceeds hLength %llu", api, (unsigned long long)s.valid,
              (unsigned long long)s.h);
    return s;
}

// Temp bytes the emulator's norms require at least: one float row for each of two working
// copies (what the host helpers report as the minimum).
inline uint64_t norm_min_tmp_bytes(uint64_t h) { return h * 4 * 2; }

inline void check_norm_tmp(const char* api, const AscendC::LocalTensor<uint8_t>* tmp, uint64_t h, const char* file,
                           int line) {
    if (!tmp) return;
    check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    if (tmp->GetSize() < norm_min_tmp_bytes(h))
        failf("count-exceeds-tensor", file, line, "%s: sharedTmpBuffer holds %u bytes, a row of H=%llu needs %llu", api,
              tmp->GetSize(), (unsigned long long)h, (unsigned long long)norm_min_tmp_bytes(h));
}

template <class T, class Tiling>
inline void layer_norm(const AscendC::LocalTensor<T>& out, const AscendC::LocalTensor<T>& mean,
                       const AscendC::LocalTensor<T>& var, const AscendC::LocalTensor<T>& x,
                       const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<T>& beta,
                       const AscendC::LocalTensor<uint8_t>* tmp, T epsilon, const Tiling& t, const char* file,
                       int line) {
    const char* api = "LayerNorm";
    NormShape s = norm_shape(api, t, file, line);
    check_vec_operand(api, "inputX", x, s.rows * s.h, file, line);
    check_vec_operand(api, "output", out, s.rows * s.h, file, line);
    check_vec_operand(api, "outputMean", mean, s.rows, file, line);
    check_vec_operand(api, "outputVariance", var, s.rows, file, line);
    check_vec_operand(api, "gamma", gamma, s.valid, file, line);
    check_vec_operand(api, "beta", beta, s.valid, file, line);
    check_norm_tmp(api, tmp, s.h, file, line);
    count_bytes_as_repeats(api, s.rows * s.h * sizeof(T));
    const double eps = static_cast<double>(widen(epsilon));
    for (uint64_t r = 0; r < s.rows; ++r) {
        const T* row = x.data() + r * s.h;
        double m = 0.0, v = 0.0;
        for (uint64_t j = 0; j < s.valid; ++j) m += widen(row[j]);
        m /= static_cast<double>(s.valid);
        for (uint64_t j = 0; j < s.valid; ++j) v += (widen(row[j]) - m) * (widen(row[j]) - m);
        v /= static_cast<double>(s.valid);
        const double inv = 1.0 / std::sqrt(v + eps);
        for (uint64_t j = 0; j < s.valid; ++j)
            out.data()[r * s.h + j] = narrow<T>(static_cast<float>((widen(row[j]) - m) * inv * widen(gamma.data()[j]) +
                                                                   widen(beta.data()[j])));
        mean.data()[r] = narrow<T>(static_cast<float>(m));
        var.data()[r] = narrow<T>(static_cast<float>(v));
    }
}

template <class T, class Tiling>
inline void rms_norm(const AscendC::LocalTensor<T>& dst, const AscendC::LocalTensor<T>& src,
                     const AscendC::LocalTensor<T>& gamma, const AscendC::LocalTensor<uint8_t>* tmp, T epsilon,
                     const Tiling& t, const char* file, int line) {
    const char* api = "RmsNorm";
    NormShape s = norm_shape(api, t, file, line);
    check_vec_operand(api, "src", src, s.rows * s.h, file, line);
    check_vec_operand(api, "dst", dst, s.rows * s.h, file, line);
    check_vec_operand(api, "gamma", gamma, s.valid, file, line);
    check_norm_tmp(api, tmp, s.h, file, line);
    count_bytes_as_repeats(api, s.rows * s.h * sizeof(T));
    const double eps = static_cast<double>(widen(epsilon));
    for (uint64_t r = 0; r < s.rows; ++r) {
        const T* row = src.data() + r * s.h;
        double sq = 0.0;
        for (uint64_t j = 0; j < s.valid; ++j) sq += widen(row[j]) * static_cast<double>(widen(row[j]));
        const double inv = 1.0 / std::sqrt(sq / static_cast<double>(s.valid) + eps);
        for (uint64_t j = 0; j < s.valid; ++j)
            dst.data()[r * s.h + j] = narrow<T>(static_cast<float>(widen(row[j]) * inv * widen(gamma.data()[j])));
    }
}

}  // namespace kernelgen

namespace AscendC {

template <class T, bool isReuseSource = false, class Tiling>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
                      const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const LocalTensor<uint8_t>& sharedTmpBuffer, const kernelgen::nd_t<T>& epsilon, const Tiling& tiling,
                      KG_LOC) {
    kernelgen::layer_norm(output, outputMean, outputVariance, inputX, gamma, beta, &sharedTmpBuffer, static_cast<T>(epsilon),
                          tiling, file, line);
}
template <class T, bool isReuseSource = false, class Tiling>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
                      const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const kernelgen::nd_t<T>& epsilon, const Tiling& tiling, KG_LOC) {
    kernelgen::layer_norm(output, outputMean, outputVariance, inputX, gamma, beta, nullptr, static_cast<T>(epsilon), tiling,
                          file, line);
}

template <class T, bool isBasicBlock = false, class Tiling>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const kernelgen::nd_t<T>& epsilon, const Tiling& tiling,
                    KG_LOC) {
    kernelgen::rms_norm(dst, src, gamma, &sharedTmpBuffer, static_cast<T>(epsilon), tiling, file, line);
}
template <class T, bool isBasicBlock = false, class Tiling>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const kernelgen::nd_t<T>& epsilon, const Tiling& tiling, KG_LOC) {
    kernelgen::rms_norm(dst, src, gamma, nullptr, static_cast<T>(epsilon), tiling, file, line);
}

}  // namespace AscendC
