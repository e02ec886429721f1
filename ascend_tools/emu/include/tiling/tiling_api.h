// Host tiling helpers of the high-level APIs: matmul_tiling::MatmulApiTiling /
// MultiCoreMatmulTiling fill a TCubeTiling for the emulator's Matmul; the SoftMax helpers size
// the temporary buffer and split a [M, K] softmax into row groups; Get<Api>MaxMinTmpSize size
// the elementwise APIs' temporary buffers.
//
// The split is deliberately simple (one base block shape that fits L0A/L0B/L0C with double
// buffering, single-step L1 loads); it is valid, not tuned.
#pragma once

#include <algorithm>
#include <cstdint>

#include "graph/types.h"
#include "kernel_tiling/kernel_tiling.h"
#include "kernelgen/api_tmp_sizes.h"
#include "kernelgen/host_log.h"
#include "kernelgen/host_topk.h"
#include "tiling/platform/platform_ascendc.h"

namespace matmul_tiling {

enum class TPosition { GM, A1, A2, B1, B2, C1, C2, CO1, CO2, VECIN, VECOUT, VECCALC, LCM = VECCALC, TSCM, MAX };
enum class CubeFormat { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };
enum class MatrixTraverse { NOSET = 0, FIRSTM = 1, FIRSTN = 2 };
using DataType = ge::DataType;

struct MatmulOperand {
    bool set = false;
    TPosition pos = TPosition::GM;
    CubeFormat format = CubeFormat::ND;
    DataType dtype = ge::DT_FLOAT16;
    bool trans = false;
};

class MatmulApiTilingBase {
  public:
    MatmulApiTilingBase() = default;
    explicit MatmulApiTilingBase(const platform_ascendc::PlatformAscendC&) {}
    virtual ~MatmulApiTilingBase() = default;

    int32_t SetAType(TPosition p, CubeFormat f, DataType t, bool trans = false) { return set(a_, p, f, t, trans); }
    int32_t SetBType(TPosition p, CubeFormat f, DataType t, bool trans = false) { return set(b_, p, f, t, trans); }
    int32_t SetCType(TPosition p, CubeFormat f, DataType t) { return set(c_, p, f, t, false); }
    int32_t SetBiasType(TPosition p, CubeFormat f, DataType t) { return set(bias_, p, f, t, false); }
    int32_t SetShape(int32_t m, int32_t n, int32_t k) {
        m_ = m;
        n_ = n;
        k_ = k;
        return 0;
    }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t k) { return SetOrgShape(m, n, k, k); }
    int32_t SetOrgShape(int32_t m, int32_t n, int32_t ka, int32_t kb) {
        org_m_ = m;
        org_n_ = n;
        org_ka_ = ka;
        org_kb_ = kb;
        return 0;
    }
    int32_t SetBias(bool on = true) { return (bias_on_ = on), 0; }
    int32_t EnableBias(bool isBiasIn = false) { return SetBias(isBiasIn); }  // SetBias's newer name
    int32_t SetBufferSpace(int32_t l1 = -1, int32_t l0c = -1, int32_t ub = -1, int32_t bt = -1) {
        (void)ub;
        (void)bt;
        l1_limit_ = l1;
        l0c_limit_ = l0c;
        return 0;
    }
    int32_t SetFixSplit(int32_t base_m = -1, int32_t base_n = -1, int32_t base_k = -1) {
        fix_m_ = base_m;
        fix_n_ = base_n;
        fix_k_ = base_k;
        return 0;
    }
    int32_t SetTraverse(MatrixTraverse t) { return (traverse_ = t), 0; }

    // Fills `t`; -1 (and an error line) when the shape or the operand types are missing.
    int64_t GetTiling(TCubeTiling& t) {
        if (!a_.set || !b_.set || !c_.set) {
            KERNELGEN_HOST_LOG_("ERROR", true, "MatmulApiTiling", "GetTiling: SetAType, SetBType and SetCType must be called first");
            return -1;
        }
        if (m_ <= 0 || n_ <= 0 || k_ <= 0) {
            KERNELGEN_HOST_LOG_("ERROR", true, "MatmulApiTiling", "GetTiling: SetShape(M, N, K) needs positive sizes, got %d %d %d", m_, n_, k_);
            return -1;
        }
        const auto& chip = kernelgen::chip();
        const int32_t sa = std::max<int32_t>(1, ge::GetSizeByDataType(a_.dtype));
        const int32_t sb = std::max<int32_t>(1, ge::GetSizeByDataType(b_.dtype));
        const int32_t c0 = 32 / std::min(sa, sb);  // K elements per 32-byte fractal row

        int32_t m_dim = 1, n_dim = 1;
        split_cores(m_dim, n_dim);
        t = TCubeTiling();
        t.M = org_m_ > 0 ? org_m_ : m_;
        t.N = org_n_ > 0 ? org_n_ : n_;
        t.Ka = org_ka_ > 0 ? org_ka_ : k_;
        t.Kb = org_kb_ > 0 ? org_kb_ : k_;
        t.singleCoreM = single_m_ > 0 ? single_m_ : ceil_div(m_, m_dim);
        t.singleCoreN = single_n_ > 0 ? single_n_ : ceil_div(n_, n_dim);
        t.singleCoreK = single_k_ > 0 ? single_k_ : k_;
        t.usedCoreNum = ceil_div(m_, t.singleCoreM) * ceil_div(n_, t.singleCoreN);

        t.baseM = fix_m_ > 0 ? fix_m_ : std::min<int32_t>(128, align(t.singleCoreM, 16));
        t.baseN = fix_n_ > 0 ? fix_n_ : std::min<int32_t>(128, align(t.singleCoreN, 16));
        const int64_t l0_half = static_cast<int64_t>(std::min(chip.l0a_bytes, chip.l0b_bytes)) / 2;
        int32_t k_fit = static_cast<int32_t>(l0_half / (std::max(t.baseM * sa, t.baseN * sb)));
        // At most four C0 fractals (128 B) of K per block, even when half of L0 would hold more:
        // Ascend/samples 14_matmul_api_constant fixes baseK 64 for 128 x 128 half blocks in its
        // kernel and states that the host tiling computes the same (GetMatmulApiTiling requires
        // the two to agree); inferred from that sample, CANN's algorithm is not documented.
        k_fit = std::max(c0, std::min(k_fit, 4 * c0) / c0 * c0);
        t.baseK = fix_k_ > 0 ? fix_k_ : std::min<int32_t>(k_fit, align(t.singleCoreK, c0));

        t.stepM = t.stepN = t.stepKa = t.stepKb = 1;
        t.depthA1 = t.depthB1 = 2;
        t.isBias = bias_on_ ? 1 : 0;
        t.iterateOrder = traverse_ == MatrixTraverse::FIRSTN ? 1 : 0;
        t.dbL0A = t.dbL0B = 2;
        t.dbL0C = 1;
        t.batchM = t.batchN = t.singleBatchM = t.singleBatchN = t.BatchNum = 1;
        t.shareL1Size = t.depthA1 * t.baseM * t.baseK * sa + t.depthB1 * t.baseN * t.baseK * sb +
                        (bias_on_ ? t.baseN * 4 : 0);
        t.shareL0CSize = t.baseM * t.baseN * 4;
        const int64_t l1 = l1_limit_ > 0 ? l1_limit_ : static_cast<int64_t>(chip.l1_bytes);
        const int64_t l0c = l0c_limit_ > 0 ? l0c_limit_ : static_cast<int64_t>(chip.l0c_bytes);
        if (t.shareL1Size > l1 || t.shareL0CSize > l0c) {
            KERNELGEN_HOST_LOG_("ERROR", true, "MatmulApiTiling", "GetTiling: base block %dx%dx%d does not fit L1/L0C", t.baseM, t.baseN, t.baseK);
            return -1;
        }
        return 0;
    }

  protected:
    virtual void split_cores(int32_t& m_dim, int32_t& n_dim) const {
        m_dim = 1;
        n_dim = 1;
    }
    static int32_t ceil_div(int32_t a, int32_t b) { return b > 0 ? (a + b - 1) / b : a; }
    static int32_t align(int32_t a, int32_t b) { return ceil_div(a, b) * b; }

    int32_t m_ = 0, n_ = 0, k_ = 0;
    int32_t single_m_ = -1, single_n_ = -1, single_k_ = -1;
    int32_t fix_m_ = -1, fix_n_ = -1, fix_k_ = -1;

  private:
    static int32_t set(MatmulOperand& o, TPosition p, CubeFormat f, DataType t, bool trans) {
        o = MatmulOperand{true, p, f, t, trans};
        return 0;
    }

    MatmulOperand a_, b_, c_, bias_;
    int32_t org_m_ = -1, org_n_ = -1, org_ka_ = -1, org_kb_ = -1;
    bool bias_on_ = false;
    int32_t l1_limit_ = -1, l0c_limit_ = -1;
    MatrixTraverse traverse_ = MatrixTraverse::FIRSTM;
};

// Single-core tiling: the whole problem is one core's block.
class MatmulApiTiling : public MatmulApiTilingBase {
  public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
};

// Splits M and N over up to SetDim(n) cores (the split with the smallest per-core block).
class MultiCoreMatmulTiling : public MatmulApiTilingBase {
  public:
    using MatmulApiTilingBase::MatmulApiTilingBase;
    int32_t SetDim(int32_t dim) { return (dim_ = dim > 0 ? dim : 1), 0; }
    int32_t SetSingleShape(int32_t m = -1, int32_t n = -1, int32_t k = -1) {
        single_m_ = m;
        single_n_ = n;
        single_k_ = k;
        return 0;
    }
    int32_t GetSingleShape(int32_t& m, int32_t& n, int32_t& k) const {
        int32_t md = 1, nd = 1;
        split_cores(md, nd);
        m = single_m_ > 0 ? single_m_ : ceil_div(m_, md);
        n = single_n_ > 0 ? single_n_ : ceil_div(n_, nd);
        k = single_k_ > 0 ? single_k_ : k_;
        return 0;
    }

  protected:
    void split_cores(int32_t& m_dim, int32_t& n_dim) const override {
        int64_t best = -1;
        for (int32_t md = 1; md <= dim_; ++md) {
            int32_t nd = dim_ / md;
            // A core's block is whole base blocks when SetFixSplit fixed them (a base block is
            // never larger than the core's: Ascend/samples MatmulLeakyRelu copies each baseN-wide
            // block out with the row stride N - baseN).
            int32_t sm = dim_ > 1 ? align(ceil_div(m_, md), fix_m_ > 0 ? fix_m_ : 16) : m_;
            int32_t sn = dim_ > 1 ? align(ceil_div(n_, nd), fix_n_ > 0 ? fix_n_ : 16) : n_;
            // A rows + B columns each core loads; a split whose blocks leave a tail loses to one
            // that divides M and N evenly (kernels written for the library's tiling, such as the
            // MatmulLeakyRelu sample, copy whole base blocks out without a tail case).
            const bool tail = m_ % sm != 0 || n_ % sn != 0;
            int64_t cost = static_cast<int64_t>(sm) + sn + (tail ? (int64_t{1} << 40) : 0);
            if (best < 0 || cost < best) {
                best = cost;
                m_dim = ceil_div(m_, sm);
                n_dim = ceil_div(n_, sn);
            }
        }
    }

  private:
    int32_t dim_ = 1;
};

}  // namespace matmul_tiling

namespace kernelgen {

// SoftMax temp-buffer sizes (kernelgen/api_tmp_sizes.h). Max: all rows at once; min: one row.
inline void softmax_mk(const ge::Shape& s, uint32_t& m, uint32_t& k) {
    k = s.GetDimNum() ? static_cast<uint32_t>(s.GetDim(s.GetDimNum() - 1)) : 0;
    int64_t total = s.GetShapeSize();
    m = k ? static_cast<uint32_t>(total / k) : 0;
}

// Sizes for an API that has no published formula and whose emulation needs no scratch: ones a
// kernel can allocate, at most one 32-byte-aligned image of the source, at least one 256-byte
// repeat of it (0 for an empty source).
inline void source_image_tmp_size(const ge::Shape& srcShape, uint32_t typeSize, uint32_t& maxValue,
                                  uint32_t& minValue) {
    const uint64_t bytes = uint64_t(std::max<int64_t>(0, srcShape.GetShapeSize())) * typeSize;
    maxValue = static_cast<uint32_t>(std::min<uint64_t>((bytes + 31) / 32 * 32, UINT32_MAX));
    minValue = std::min<uint32_t>(maxValue, 256u);
}

}  // namespace kernelgen

namespace AscendC {

inline uint32_t GetSoftMaxMaxTmpSize(const ge::Shape& src, uint32_t /*dtype_size*/, bool /*reuse*/) {
    uint32_t m, k;
    kernelgen::softmax_mk(src, m, k);
    return kernelgen::softmax_rows_tmp_bytes(m, k);
}
inline uint32_t GetSoftMaxMinTmpSize(const ge::Shape& src, uint32_t /*dtype_size*/, bool /*reuse*/) {
    uint32_t m, k;
    kernelgen::softmax_mk(src, m, k);
    return kernelgen::softmax_rows_tmp_bytes(m ? 1 : 0, k);
}

// Splits the rows into groups that fit `work_bytes` of temp buffer.
inline void SoftMaxTilingFunc(const ge::Shape& src, uint32_t dtype_size, uint32_t work_bytes,
                              SoftMaxTiling& t) {
    uint32_t m, k;
    kernelgen::softmax_mk(src, m, k);
    const uint32_t block_elems = dtype_size ? 32u / dtype_size : 8u;
    const uint32_t per_row = kernelgen::softmax_rows_tmp_bytes(1, k);
    uint32_t split = per_row ? std::min(m, work_bytes / per_row) : m;
    if (split == 0) split = 1;
    t = SoftMaxTiling();
    t.srcM = m;
    t.srcK = k;
    t.srcSize = m * k;
    t.outMaxM = m;
    t.outMaxK = block_elems;
    t.outMaxSize = m * block_elems;
    t.splitM = split;
    t.splitK = k;
    t.splitSize = split * k;
    t.reduceM = split;
    t.reduceK = block_elems;
    t.reduceSize = split * block_elems;
    t.rangeM = split ? m / split : 0;
    t.tailM = split ? m % split : 0;
    t.tailSplitSize = t.tailM * k;
    t.tailReduceSize = t.tailM * block_elems;
}

// Temporary-buffer sizes of the elementwise high-level APIs (Sigmoid, Tanh, Gelu, ...): they
// compute in float, so the largest buffer holds `float_copies` float images of the source (plus
// the source itself when it may not be reused), the smallest one 256-byte repeat of each.
struct ElementwiseTmpFacts {
    uint32_t float_copies;
};

inline void elementwise_tmp_size(const ge::Shape& src, uint32_t type_size, bool reuse, ElementwiseTmpFacts f,
                                 uint32_t& max_value, uint32_t& min_value) {
    const int64_t n = std::max<int64_t>(0, src.GetShapeSize());
    const uint32_t copies = f.float_copies + (reuse || type_size == 4 ? 0u : 1u);
    const uint64_t bytes = static_cast<uint64_t>(n) * 4u * copies;
    max_value = static_cast<uint32_t>(std::min<uint64_t>(((bytes + 31) / 32) * 32, UINT32_MAX));
    min_value = n ? std::min<uint32_t>(max_value, 256u * copies) : 0u;
}

inline void GetSigmoidMaxMinTmpSize(const ge::Shape& src, uint32_t type_size, bool reuse, uint32_t& max_value,
                                    uint32_t& min_value) {
    elementwise_tmp_size(src, type_size, reuse, {1}, max_value, min_value);
}
inline void GetTanhMaxMinTmpSize(const ge::Shape& src, uint32_t type_size, bool reuse, uint32_t& max_value,
                                 uint32_t& min_value) {
    elementwise_tmp_size(src, type_size, reuse, {1}, max_value, min_value);
}
inline void GetGeluMaxMinTmpSize(const ge::Shape& src, uint32_t type_size, bool reuse, uint32_t& max_value,
                                 uint32_t& min_value) {
    elementwise_tmp_size(src, type_size, reuse, {2}, max_value, min_value);
}

// Sum and Mean reduce each row of n elements in the accumulation type; the emulator needs no
// temporary buffer for them, so both helpers report one 32-byte-aligned row of n accumulators
// (n * accTypeSize), enough for any row-wise reduction, as the minimum and the maximum.
inline void reduce_row_tmp_size(uint32_t n, uint32_t acc_type_size, uint32_t& max_value, uint32_t& min_value) {
    const uint64_t bytes = (uint64_t(n) * acc_type_size + 31) / 32 * 32;
    max_value = min_value = static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX));
}
inline void GetSumMaxMinTmpSize(const uint32_t n, const uint32_t typeSize, const bool /*isReuseSource*/,
                                uint32_t& maxValue, uint32_t& minValue) {
    reduce_row_tmp_size(n, typeSize, maxValue, minValue);
}
inline void GetMeanMaxMinTmpSize(const uint32_t n, const uint32_t /*srcTypeSize*/, const uint32_t accTypeSize,
                                 const bool /*isReuseSource*/, uint32_t& maxValue, uint32_t& minValue) {
    reduce_row_tmp_size(n, accTypeSize, maxValue, minValue);
}

// BroadCast (API reference, GetBroadCastMaxMinTmpSize): the emulator's BroadCast needs no
// scratch, so the sizes only have to be ones a kernel can allocate: at most one 32-byte-aligned
// image of dst, at least one 32-byte block (0 for an empty dst).
inline void GetBroadCastMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const ge::Shape& /*srcShape*/,
                                      const ge::Shape& dstShape, uint32_t typeSize, bool /*isReuseSource*/,
                                      uint32_t& maxValue, uint32_t& minValue) {
    const uint64_t bytes = uint64_t(std::max<int64_t>(0, dstShape.GetShapeSize())) * typeSize;
    maxValue = static_cast<uint32_t>(std::min<uint64_t>((bytes + 31) / 32 * 32, UINT32_MAX));
    minValue = std::min<uint32_t>(maxValue, 32u);
}

// DropOut (API reference, GetDropOutMaxMinTmpSize atlasascendc_api_07_0863: srcShape, typeSize
// half=2 float=4, isReuseSource reserved): no formula is published and the emulator's DropOut
// needs no scratch, so the sizes are the source-image ones (kernelgen::source_image_tmp_size).
inline void GetDropOutMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool /*isReuseSource*/,
                                    uint32_t& maxValue, uint32_t& minValue) {
    kernelgen::source_image_tmp_size(srcShape, typeSize, maxValue, minValue);
}
inline uint32_t GetDropOutMaxTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    uint32_t maxValue = 0, minValue = 0;
    GetDropOutMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
    return maxValue;
}
inline uint32_t GetDropOutMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, const bool isReuseSource) {
    uint32_t maxValue = 0, minValue = 0;
    GetDropOutMaxMinTmpSize(srcShape, typeSize, isReuseSource, maxValue, minValue);
    return minValue;
}

// AscendDequant (API reference, GetAscendDequantMaxMinTmpSize atlasascendc_api_07_0821: srcShape
// [m, n] of the int32_t source, typeSize 4): no formula is published and the emulator's
// AscendDequant needs no scratch, so the sizes are the source-image ones, as for DropOut.
inline void GetAscendDequantMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                          uint32_t& minValue) {
    kernelgen::source_image_tmp_size(srcShape, typeSize, maxValue, minValue);
}

// Sort (API reference, GetSortTmpSize atlasascendc_api_07_0843: elemCount elements of
// dataTypeSize bytes): no formula is published and the emulator's Sort needs no scratch, so the
// size only has to be one a kernel can allocate: one sorted structure (a score and its uint32
// index, 8 bytes) per element, 32-byte aligned.
inline uint32_t GetSortTmpSize(const platform_ascendc::PlatformAscendC&, const uint32_t elemCount,
                               const uint32_t /*dataTypeSize*/) {
    return static_cast<uint32_t>(std::min<uint64_t>((uint64_t(elemCount) * 8 + 31) / 32 * 32, UINT32_MAX));
}

// ---------------------------------------------------------------- LayerNorm / RmsNorm
// [B, S, H] sources (H the 32-byte padded last axis). Temp buffer: the emulator needs two float
// rows at least (kernelgen/norm.h); the maximum holds two float images of the whole source.
inline bool norm_bsh(const ge::Shape& s, uint32_t& b, uint32_t& sl, uint32_t& h) {
    size_t n = s.GetDimNum();
    if (n < 1) return false;
    h = static_cast<uint32_t>(s.GetDim(n - 1));
    sl = n >= 2 ? static_cast<uint32_t>(s.GetDim(n - 2)) : 1u;
    int64_t rest = 1;
    for (size_t i = 0; i + 2 < n; ++i) rest *= s.GetDim(i);
    b = static_cast<uint32_t>(rest);
    return h > 0;
}
inline void norm_tmp_sizes(const ge::Shape& src, uint32_t& max_value, uint32_t& min_value) {
    uint32_t b = 0, sl = 0, h = 0;
    if (!norm_bsh(src, b, sl, h)) {
        max_value = min_value = 0;
        return;
    }
    min_value = static_cast<uint32_t>(kernelgen::norm_rows_tmp_bytes(1, h));
    max_value = static_cast<uint32_t>(std::min<uint64_t>(uint64_t(b) * sl * min_value, UINT32_MAX));
}

inline void GetLayerNormMaxMinTmpSize(const ge::Shape& srcShape, uint32_t /*typeSize*/, bool /*isReuseSource*/,
                                      uint32_t& maxValue, uint32_t& minValue) {
    norm_tmp_sizes(srcShape, maxValue, minValue);
}

// Rows per group = what `stackBufferSize` bytes of temp buffer hold (at least one).
inline void GetLayerNormNDTilingInfo(const ge::Shape& srcShape, uint32_t stackBufferSize, uint32_t typeSize,
                                     bool /*isReuseSource*/, LayerNormTiling& tiling) {
    tiling = LayerNormTiling();
    uint32_t b = 0, sl = 0, h = 0;
    if (!norm_bsh(srcShape, b, sl, h)) return;
    const uint32_t rows = b * sl, per_row = static_cast<uint32_t>(kernelgen::norm_rows_tmp_bytes(1, h));
    const uint32_t group = std::max(1u, std::min(rows, stackBufferSize / per_row));
    tiling.bLength = b;
    tiling.sLength = sl;
    tiling.hLength = h;
    tiling.originalHLength = h;
    tiling.inputXSize = rows * h;
    tiling.meanVarSize = rows;
    tiling.numberOfTmpBuf = 2;
    tiling.firstTmpStartPos = 0;
    tiling.secondTmpStartPos = group * h * 4u;
    tiling.thirdTmpStartPos = 2u * group * h * 4u;
    tiling.loopRound = rows / group;
    tiling.inputRoundSize = group * h;
    tiling.inputTailSize = (rows % group) * h;
    tiling.inputTailPos = tiling.loopRound * group * h;
    tiling.meanVarRoundSize = group;
    tiling.meanVarTailSize = rows % group;
    tiling.meanVarTailPos = tiling.loopRound * group;
    tiling.bshCurLength = group * h;
    tiling.bsCurLength = group;
    tiling.lastDimValueBack = 1.0f / static_cast<float>(h);
    (void)typeSize;
}

inline bool GetRmsNormMaxMinTmpSize(const ge::Shape& srcShape, uint32_t /*typeSize*/, uint32_t& maxValue,
                                    uint32_t& minValue, bool /*isBasicBlock*/ = false) {
    norm_tmp_sizes(srcShape, maxValue, minValue);
    return maxValue > 0;
}

// originSrcShape's last axis is the valid H (srcShape's is padded to 32 bytes).
inline bool GetRmsNormTilingInfo(const ge::Shape& srcShape, const ge::Shape& originSrcShape, uint32_t stackBufferByteSize,
                                 uint32_t /*typeSize*/, RmsNormTiling& tiling, bool /*isBasicBlock*/ = false) {
    tiling = RmsNormTiling();
    uint32_t b = 0, sl = 0, h = 0, ob = 0, os = 0, oh = 0;
    if (!norm_bsh(srcShape, b, sl, h) || !norm_bsh(originSrcShape, ob, os, oh) || oh > h) return false;
    const uint32_t rows = b * sl, per_row = static_cast<uint32_t>(kernelgen::norm_rows_tmp_bytes(1, h));
    if (stackBufferByteSize < per_row) return false;
    const uint32_t group = std::min(rows, stackBufferByteSize / per_row);
    tiling.bLength = b;
    tiling.sLength = sl;
    tiling.hLength = h;
    tiling.originalHLength = oh;
    tiling.reciprocalOfHLength = 1.0f / static_cast<float>(oh);
    tiling.mainBsLength = group;
    tiling.mainBsLengthAlign = group;
    tiling.mainBshLength = group * h;
    tiling.loopRound = group ? rows / group : 0;
    tiling.inputTailPos = tiling.loopRound * group * h;
    tiling.tailBsLength = group ? rows % group : 0;
    tiling.tailBshLength = tiling.tailBsLength * h;
    return true;
}

// UnPad Tiling. The scratch sizes are the emulator's (it needs none): at most one copy of the
// [height, width] source, at least one row of it.
inline void GetUnPadMaxMinTmpSize(const platform_ascendc::PlatformAscendC&, const ge::Shape& srcShape,
                                  const uint32_t typeSize, uint32_t& maxValue, uint32_t& minValue) {
    const uint64_t rows = srcShape.GetDimNum() == 2 ? srcShape.GetDim(0) : 0;
    const uint64_t width = srcShape.GetDimNum() == 2 ? srcShape.GetDim(1) : 0;
    maxValue = static_cast<uint32_t>(rows * width * typeSize);
    minValue = static_cast<uint32_t>(width * typeSize);
}

// Fills the UnPadTiling of a two-dimensional [height, width] source; the width must already be
// 32-byte aligned (the kernel side checks it). A shape of another rank leaves the tiling empty,
// which the kernel side reports.
inline void UnPadTilingFunc(const ge::Shape srcShape, const uint32_t stackBufferSize, const uint32_t typeSize,
                            UnPadTiling& tiling) {
    tiling = UnPadTiling();
    if (srcShape.GetDimNum() != 2 || typeSize == 0) return;
    tiling.srcHeight = static_cast<uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<uint32_t>(srcShape.GetDim(1));
    const uint32_t row_bytes = tiling.srcWidth * typeSize;
    tiling.tmpBuffer1RowNum = row_bytes ? std::min(tiling.srcHeight, stackBufferSize / row_bytes) : 0;
    tiling.tmpBuffer1BlockNum = tiling.tmpBuffer1RowNum * row_bytes / 32;
    tiling.tmpBuffer2Offset = tiling.tmpBuffer1RowNum * row_bytes;
    tiling.widthTiling = tiling.srcWidth;
    tiling.widthFractal = 32 / typeSize;
    tiling.widthFractalTail = tiling.srcWidth % tiling.widthFractal;
}

// Pad Tiling (API reference page atlasascendc_api_07_0850). The scratch sizes are the
// emulator's (it needs none): at most the [height, width] source widened to 32-byte aligned
// rows, at least one such row. A shape that is not two-dimensional gives 0 for both.
inline void GetPadMaxMinTmpSize(const ge::Shape& srcShape, const uint32_t typeSize, uint32_t& maxValue,
                                uint32_t& minValue) {
    const bool two_d = srcShape.GetDimNum() == 2 && typeSize != 0;
    const uint64_t rows = two_d ? srcShape.GetDim(0) : 0;
    const uint64_t row_bytes = two_d ? kernelgen::pad_row_tmp_bytes(srcShape.GetDim(1), typeSize) : 0;
    maxValue = static_cast<uint32_t>(rows * row_bytes);
    minValue = static_cast<uint32_t>(row_bytes);
}

// Fills the PadTiling of a two-dimensional [height, width] source (valid data and redundant
// columns) whose valid part is oriSrcShape. Shapes of another rank, or heights that differ,
// leave the tiling empty, which the kernel side reports.
inline void PadTilingFunc(const ge::Shape srcShape, const ge::Shape oriSrcShape, const uint32_t stackBufferSize,
                          const uint32_t typeSize, PadTiling& tiling) {
    tiling = PadTiling();
    if (srcShape.GetDimNum() != 2 || oriSrcShape.GetDimNum() != 2 || typeSize == 0 ||
        srcShape.GetDim(0) != oriSrcShape.GetDim(0))
        return;
    tiling.srcHeight = static_cast<uint32_t>(srcShape.GetDim(0));
    tiling.srcWidth = static_cast<uint32_t>(srcShape.GetDim(1));
    tiling.srcOriWidth = static_cast<uint32_t>(oriSrcShape.GetDim(1));
    const uint64_t row_bytes = kernelgen::pad_row_tmp_bytes(tiling.srcWidth, typeSize);
    tiling.tmpBufferRowNum = row_bytes ? static_cast<uint32_t>(std::min<uint64_t>(tiling.srcHeight,
                                                                                   stackBufferSize / row_bytes))
                                       : 0;
}

}  // namespace AscendC

namespace optiling {
using AscendC::SoftMaxTilingFunc;
using AscendC::PadTilingFunc;
using AscendC::UnPadTilingFunc;
}  // namespace optiling
