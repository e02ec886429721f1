// TopK's host tiling helpers (TopK Tiling, AscendC API reference:
// https://www.hiascend.com/document/detail/zh/canncommercial/latest/API/ascendcopapi/atlasascendc_api_07_0837.html):
// GetTopKMaxMinTmpSize sizes tmpLocal, TopKTilingFunc fills the TopkTiling the kernel passes to
// TopK. Both return false for a shape the API refuses (documented: inner a multiple of 32, Small
// mode inner 32, Normal mode inner at most 4096; 1 <= k; element size 2 or 4) and leave the
// outputs as they were; the kernel then reports the unfilled tiling. The documented MERGE_SORT
// forms only: the TopKConfig overload (RADIX_SELECT, Ascend 950) is not modelled.
#pragma once

#include <cstdint>

#include "kernelgen/host_log.h"
#include "kernelgen/topk_tiling.h"
#include "tiling/platform/platform_ascendc.h"

namespace kernelgen {

inline bool topk_host_shape_ok(const char* api, int32_t inner, int32_t outter, AscendC::TopKMode mode,
                               uint32_t type_bytes) {
    if (const char* why = topk_shape_error(inner, outter, mode)) {
        KERNELGEN_HOST_LOG_("ERROR", true, api, "inner %d, outter %d: %s", inner, outter, why);
        return false;
    }
    if (type_bytes != 2 && type_bytes != 4) {
        KERNELGEN_HOST_LOG_("ERROR", true, api, "dataTypeSize %u: TopK sorts half (2) or float (4)", type_bytes);
        return false;
    }
    return true;
}

}  // namespace kernelgen

namespace AscendC {

// Sizes in bytes; the emulator's TopK needs the same at least and at most (kernelgen/topk_tiling.h).
inline bool GetTopKMaxMinTmpSize(const platform_ascendc::PlatformAscendC& /*ascendcPlatform*/, const int32_t inner,
                                 const int32_t outter, const bool /*isReuseSource*/, const bool isInitIndex,
                                 enum TopKMode mode, const bool isLargest, const uint32_t dataTypeSize,
                                 uint32_t& maxValue, uint32_t& minValue) {
    if (!kernelgen::topk_host_shape_ok("GetTopKMaxMinTmpSize", inner, outter, mode, dataTypeSize)) return false;
    maxValue = minValue = kernelgen::topk_tmp_bytes(inner, outter, isInitIndex, mode, isLargest, dataTypeSize);
    return true;
}

inline bool TopKTilingFunc(const platform_ascendc::PlatformAscendC& /*ascendcPlatform*/, const int32_t inner,
                           const int32_t outter, const int32_t k, const uint32_t dataTypeSize,
                           const bool isInitIndex, enum TopKMode mode, const bool isLargest,
                           TopkTiling& topKTiling) {
    if (!kernelgen::topk_host_shape_ok("TopKTilingFunc", inner, outter, mode, dataTypeSize)) return false;
    if (k < 1 || k > inner) {
        KERNELGEN_HOST_LOG_("ERROR", true, "TopKTilingFunc", "k %d: must be in [1, inner %d]", k, inner);
        return false;
    }
    TopkTiling t;
    t.tmpLocalSize =
        static_cast<int32_t>(kernelgen::topk_tmp_bytes(inner, outter, isInitIndex, mode, isLargest, dataTypeSize));
    t.allDataSize = inner * outter;
    t.innerDataSize = inner;
    t.kAlignFourBytes = kernelgen::topk_k_pad(k, 4);
    t.kAlignTwoBytes = kernelgen::topk_k_pad(k, 2);
    topKTiling = t;
    return true;
}

}  // namespace AscendC
