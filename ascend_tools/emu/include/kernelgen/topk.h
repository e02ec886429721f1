// The TopK high-level API (AscendC API reference, TopK:
// https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0836.html),
// written from the documented behaviour: the k largest (isLargest) or smallest values of each of
// outter rows of inner elements (a multiple of 32; the kernel pads the n valid ones), sorted, with
// their indices. Normal mode (TOPK_NORMAL) writes each row's k values at a stride of k_pad (k
// rounded up to 32 bytes) and its indices at a stride of kpad_index (int32_t: k rounded up to 8);
// the lanes past k are not filled ("random values"), so they keep what they held. Small mode
// (TOPK_NSMALL, inner 32) writes the rows back to back, k each. Documented order: equal values
// in source order (the earlier one first), +inf the largest, NaN first in either direction.
// Indices: the srcIndexLocal entries with isInitIndex (Normal: one row of inner shared by every
// row; Small: outter rows), else the positions 0..inner-1 the API generates (the reference's
// algorithm: ArithProgression/Arange of 0..inner-1; the 8.x pages also say the output indices
// are "not usable" without isInitIndex, the older pages that TopK generates them). With
// isHasfinish (Normal mode only) a row whose finishLocal is true gets every index set to n.
//
// The TopkTiling must come from TopKTilingFunc (`tiling-mismatch` when unfilled, or made for
// another k_pad). What the API sorts is the tiling's shape: xLLM-AI/xllm-ops beam_search states
// that on the NPU "TopK will use the block_size from topkTilingData" when topKInfo.inner is
// smaller, sorting the stale lanes past it, so a topKInfo that differs from the tiling is a
// warning and the tiling's inner and outter are used. tmpLocal (VECCALC) must hold what the
// tiling's shape needs (GetTopKMaxMinTmpSize's minimum, `workspace-size`).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "topk_tiling.h"
#include "vec_core.h"

namespace kernelgen {

// Chips whose product-support table lists TopK, by __CCE_AICORE__: Atlas A2/A3 (dav-c220) and
// the Atlas inference series AI Core (dav-m200); not Atlas 200I/500 A2, the inference Vector
// Core or the training series.
inline constexpr uint32_t kTopKChips[] = {220, 200};
// The chip whose half form limits inner (generated indices) and index values to 2048: the Atlas
// inference series AI Core.
inline constexpr uint32_t kTopKHalfLimitedChip = 200;

struct TopKShape {
    int32_t inner, outter, n;
};

template <class T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode>
inline TopKShape check_topk_call(const char* api, const ::TopkTiling& tiling, const AscendC::TopKInfo& info,
                                 int32_t k, const char* file, int line) {
    const uint32_t arch = chip().cce_aicore;
    if (std::find(std::begin(kTopKChips), std::end(kTopKChips), arch) == std::end(kTopKChips))
        failf("chip-support", file, line,
              "%s: not on %s (the API reference lists Atlas A2/A3 and the Atlas inference series AI Core)", api,
              chip().name.c_str());
    const bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
    if (small && isHasfinish)
        failf("param-range", file, line, "%s: isHasfinish must be false in Small mode (TOPK_NSMALL)", api);
    if (const char* why = topk_shape_error(info.inner, info.outter, mode))
        failf("param-range", file, line, "%s: topKInfo has inner %d, outter %d: %s", api, info.inner, info.outter,
              why);
    if (info.n < 1 || info.n > info.inner)
        failf("param-range", file, line, "%s: topKInfo.n is %d, must be in [1, inner %d]", api, info.n, info.inner);
    if (k < 1 || k > info.n)
        failf("param-range", file, line, "%s: k is %d, must be in [1, topKInfo.n %d]", api, k, info.n);
    if (tiling.innerDataSize <= 0 || tiling.allDataSize <= 0 || tiling.kAlignFourBytes <= 0)
        failf("tiling-mismatch", file, line,
              "%s: the TopkTiling is not filled (innerDataSize %d, allDataSize %d): compute it on the host with "
              "TopKTilingFunc (which returns false for a shape it refuses) and pass it through the tiling data",
              api, tiling.innerDataSize, tiling.allDataSize);
    const int32_t tiling_k_pad = sizeof(T) == 4 ? tiling.kAlignFourBytes : tiling.kAlignTwoBytes;
    if (tiling_k_pad != topk_k_pad(k, sizeof(T)))
        failf("tiling-mismatch", file, line,
              "%s: the TopkTiling was made for a k that pads to %d %s elements, the call's k %d pads to %d; pass "
              "TopKTilingFunc the k of the call",
              api, tiling_k_pad, type_name<T>(), k, topk_k_pad(k, sizeof(T)));
    TopKShape s{tiling.innerDataSize, tiling.allDataSize / tiling.innerDataSize, info.n};
    if (s.inner != info.inner || s.outter != info.outter)
        warn("tiling-mismatch",
             std::string(api) + ": topKInfo is [" + std::to_string(info.outter) + ", " + std::to_string(info.inner) +
                 "] but the TopkTiling was made for [" + std::to_string(s.outter) + ", " + std::to_string(s.inner) +
                 "]; the NPU sorts the tiling's shape (xllm-ops beam_search), so the lanes past topKInfo take part",
             file, line);
    if (const char* why = topk_shape_error(s.inner, s.outter, mode))
        failf("tiling-mismatch", file, line, "%s: the TopkTiling's shape [%d, %d] is refused: %s", api, s.outter,
              s.inner, why);
    if (arch == kTopKHalfLimitedChip && std::is_same_v<T, half> && !isInitIndex && s.inner > kTopK310pHalfMaxInner)
        failf("param-range", file, line,
              "%s: half with generated indices allows inner up to %d on the Atlas inference series, got %d", api,
              kTopK310pHalfMaxInner, s.inner);
    return s;
}

// Positions of one row in output order: NaN first, then largest (or smallest) first, equal
// values (and NaNs) in source order.
template <class T>
inline void topk_order(const T* row, int32_t inner, bool largest, std::vector<int32_t>& order) {
    order.resize(inner);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
        const float va = static_cast<float>(row[a]), vb = static_cast<float>(row[b]);
        if (std::isnan(va) || std::isnan(vb)) return std::isnan(va) && !std::isnan(vb);
        return largest ? va > vb : va < vb;
    });
}

template <class T, bool isInitIndex, bool isHasfinish, AscendC::TopKMode mode>
inline void topk_run(const AscendC::LocalTensor<T>& dstValue, const AscendC::LocalTensor<int32_t>& dstIndex,
                     const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<int32_t>& srcIndex,
                     const AscendC::LocalTensor<bool>& finish, const AscendC::LocalTensor<uint8_t>* tmp, int32_t k,
                     const ::TopkTiling& tiling, const AscendC::TopKInfo& info, bool largest, const char* file,
                     int line) {
    const char* api = "TopK";
    const TopKShape s = check_topk_call<T, isInitIndex, isHasfinish, mode>(api, tiling, info, k, file, line);
    const bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
    const uint64_t all = uint64_t(s.outter) * s.inner;
    const uint64_t val_stride = small ? uint64_t(k) : uint64_t(topk_k_pad(k, sizeof(T)));
    const uint64_t idx_stride = small ? uint64_t(k) : uint64_t(topk_k_pad(k, sizeof(int32_t)));
    const uint64_t index_elems = small ? all : uint64_t(s.inner);
    check_vec_operand(api, "srcLocal", src, all, file, line);
    if (isInitIndex) check_vec_operand(api, "srcIndexLocal", srcIndex, index_elems, file, line);
    if (isHasfinish) check_vec_operand(api, "finishLocal", finish, uint64_t(s.outter), file, line);
    check_vec_operand(api, "dstValueLocal", dstValue, uint64_t(s.outter) * val_stride, file, line);
    check_vec_operand(api, "dstIndexLocal", dstIndex, uint64_t(s.outter) * idx_stride, file, line);
    if (tmp) {
        const uint32_t need = topk_tmp_bytes(s.inner, s.outter, isInitIndex, mode, largest, sizeof(T));
        // Checked here, before the operand check: a scratch at the end of the TPipe's buffers
        // would otherwise only warn, as a write into UB no buffer owns.
        if (tmp->GetSize() < need)
            failf("workspace-size", file, line,
                  "%s: tmpLocal holds %u bytes; the TopkTiling's [%d, %d] %s needs %u (GetTopKMaxMinTmpSize's "
                  "minimum for the same inner, outter, isInitIndex, mode, isLargest and element size)",
                  api, tmp->GetSize(), s.outter, s.inner, type_name<T>(), need);
        // the role name marks the scratch a destination (tensor.h role_writes)
        check_vec_operand(api, "sharedTmpBuffer (tmpLocal)", *tmp, need, file, line);
        if (tmp->GetPosition() != AscendC::TPosition::VECCALC)
            warn("tensor-position",
                 std::string(api) + ": tmpLocal is in position " + AscendC::position_name(tmp->GetPosition()) +
                     "; the API reference allows VECCALC only",
                 file, line);
    }
    const uint64_t dst_v = uint64_t(s.outter) * val_stride, dst_i = uint64_t(s.outter) * idx_stride;
    check_operands_disjoint(api, "dstValueLocal", dstValue, dst_v, "srcLocal", src, all, file, line);
    check_operands_disjoint(api, "dstIndexLocal", dstIndex, dst_i, "srcLocal", src, all, file, line);
    if (isInitIndex) {
        check_operands_disjoint(api, "dstValueLocal", dstValue, dst_v, "srcIndexLocal", srcIndex, index_elems,
                                file, line);
        check_operands_disjoint(api, "dstIndexLocal", dstIndex, dst_i, "srcIndexLocal", srcIndex, index_elems,
                                file, line);
        if (chip().cce_aicore == kTopKHalfLimitedChip && std::is_same_v<T, half>)
            for (uint64_t i = 0; i < index_elems; ++i)
                if (srcIndex.data()[i] > kTopK310pHalfMaxInner)
                    failf("param-range", file, line,
                          "%s: srcIndexLocal[%llu] is %d; with half the Atlas inference series allows indices up to %d",
                          api, (unsigned long long)i, srcIndex.data()[i], kTopK310pHalfMaxInner);
    }
    // Modelled cost: one Sort32 repeat per 32 elements, then (Normal mode) one MrgSort pass over
    // the row per factor of 4 in its runs.
    uint64_t passes = 1;
    for (int32_t run = 32; !small && run < s.inner; run *= 4) ++passes;
    count_repeats(api, all / 32 * passes);

    std::vector<int32_t> order;
    for (int32_t r = 0; r < s.outter; ++r) {
        const T* row = src.data() + uint64_t(r) * s.inner;
        topk_order(row, s.inner, largest, order);
        const int32_t* given = isInitIndex ? srcIndex.data() + (small ? uint64_t(r) * s.inner : 0) : nullptr;
        const bool finished = isHasfinish && finish.data()[r];
        for (int32_t j = 0; j < k; ++j) {
            const int32_t p = order[j];
            dstValue.data()[r * val_stride + j] = row[p];
            dstIndex.data()[r * idx_stride + j] = finished ? s.n : (given ? given[p] : p);
        }
    }
}

}  // namespace kernelgen

namespace AscendC {

// The API takes its scratch from UB the kernel left free (not checked here).
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling,
                 const TopKInfo& topKInfo, const bool isLargest = true, KG_LOC) {
    kernelgen::topk_run<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                               finishLocal, nullptr, k, tilling, topKInfo, isLargest,
                                                               file, line);
}

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                 const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                 const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
                 const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true, KG_LOC) {
    kernelgen::topk_run<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                               finishLocal, &tmpLocal, k, tilling, topKInfo, isLargest,
                                                               file, line);
}

}  // namespace AscendC
