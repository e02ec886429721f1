// Normalisation high-level APIs over the last axis of a [B, S, H] tile: LayerNorm (output,
// mean and variance) and RmsNorm. Shapes come from the tiling struct the host helpers fill
// (kernel_tiling.h LayerNormTiling / RmsNormTiling, the only types accepted: hLength
// is the 32-byte padded row, originalHLength the valid columns); rows are computed in double from the element values and rounded once to T. Only the valid
// columns of each output row are written.
#pragma once

#include "api_tmp_sizes.h"
#include "vec_core.h"

struct LayerNormTiling;  // kernel_tiling/kernel_tiling.h
struct RmsNormTiling;

namespace kernelgen {

template <class Tiling, class Want>
constexpr void require_norm_tiling() {
    static_assert(std::is_same_v<Tiling, Want>,
                  "LayerNorm takes a LayerNormTiling and RmsNorm an RmsNormTiling (kernel_tiling/kernel_tiling.h), "
                  "filled on the host by GetLayerNormNDTilingInfo / GetRmsNormTilingInfo, not another struct");
}

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

// A sharedTmpBuffer must hold what the tiling was made for: `group` rows of H at a time
// (bsCurLength for LayerNorm, mainBsLength for RmsNorm), at least one row.
inline void check_norm_tmp(const char* api, const AscendC::LocalTensor<uint8_t>* tmp, uint64_t group, uint64_t h,
                           const char* file, int line) {
    if (!tmp) return;
    check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    uint64_t rows = group ? group : 1, need = norm_rows_tmp_bytes(rows, h);
    if (tmp->GetSize() < need)
        failf("workspace-size", file, line,
              "%s: sharedTmpBuffer holds %u bytes; the tiling processes %llu row(s) of H=%llu at a time, which needs "
              "%llu bytes (pass the tiling helper the size of the buffer you give the call)",
              api, tmp->GetSize(), (unsigned long long)rows, (unsigned long long)h, (unsigned long long)need);
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
    check_norm_tmp(api, tmp, t.bsCurLength, s.h, file, line);
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
    check_norm_tmp(api, tmp, t.mainBsLength, s.h, file, line);
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
    kernelgen::require_norm_tiling<Tiling, ::LayerNormTiling>();
    kernelgen::layer_norm(output, outputMean, outputVariance, inputX, gamma, beta, &sharedTmpBuffer, static_cast<T>(epsilon),
                          tiling, file, line);
}
template <class T, bool isReuseSource = false, class Tiling>
inline void LayerNorm(const LocalTensor<T>& output, const LocalTensor<T>& outputMean, const LocalTensor<T>& outputVariance,
                      const LocalTensor<T>& inputX, const LocalTensor<T>& gamma, const LocalTensor<T>& beta,
                      const kernelgen::nd_t<T>& epsilon, const Tiling& tiling, KG_LOC) {
    kernelgen::require_norm_tiling<Tiling, ::LayerNormTiling>();
    kernelgen::layer_norm(output, outputMean, outputVariance, inputX, gamma, beta, nullptr, static_cast<T>(epsilon), tiling,
                          file, line);
}

template <class T, bool isBasicBlock = false, class Tiling>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const LocalTensor<uint8_t>& sharedTmpBuffer, const kernelgen::nd_t<T>& epsilon, const Tiling& tiling,
                    KG_LOC) {
    kernelgen::require_norm_tiling<Tiling, ::RmsNormTiling>();
    kernelgen::rms_norm(dst, src, gamma, &sharedTmpBuffer, static_cast<T>(epsilon), tiling, file, line);
}
template <class T, bool isBasicBlock = false, class Tiling>
inline void RmsNorm(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& gamma,
                    const kernelgen::nd_t<T>& epsilon, const Tiling& tiling, KG_LOC) {
    kernelgen::require_norm_tiling<Tiling, ::RmsNormTiling>();
    kernelgen::rms_norm(dst, src, gamma, nullptr, static_cast<T>(epsilon), tiling, file, line);
}

}  // namespace AscendC
