// TopK's types shared by the host tiling helpers (kernelgen/host_topk.h, through
// tiling/tiling_api.h) and the device API (kernelgen/topk.h, through kernel_operator.h): the mode
// enum, the shape struct, the TopkTiling struct, and the facts both sides derive from a shape.
//
// Sources (AscendC API reference, written from the documented behaviour):
//   TopK         https://www.hiascend.com/document/detail/zh/canncommercial/850/API/ascendcopapi/atlasascendc_api_07_0836.html
//   TopK Tiling  https://www.hiascend.com/document/detail/zh/canncommercial/latest/API/ascendcopapi/atlasascendc_api_07_0837.html
//
// The reference documents TopkTiling's field list and order but calls its contents internal
// ("pass it to the kernel, no need to look inside"), so the values are the emulator's own: the
// fields whose names say what they hold are filled (the shape, k aligned to 32 bytes, the scratch
// size), the rest stay 0. The scratch figures are the emulator's too: the reference publishes no
// formula, only GetTopKMaxMinTmpSize.
#pragma once

#include <cstdint>

#include "kernelgen/host_tiling_macros.h"

namespace AscendC {

enum class TopKMode {
    TOPK_NORMAL,  // any inner (a multiple of 32, at most 4096); rows one at a time
    TOPK_NSMALL,  // inner fixed at 32; all rows at once
};

// Shape of TopK's source: outter rows of inner elements (a multiple of 32), n of them valid.
struct TopKInfo {
    int32_t outter = 1;
    int32_t inner;
    int32_t n;
};

}  // namespace AscendC

// Field list, types and order as documented (32 fields).
BEGIN_TILING_DATA_DEF(TopkTiling)
TILING_DATA_FIELD_DEF(int32_t, tmpLocalSize);
TILING_DATA_FIELD_DEF(int32_t, allDataSize);
TILING_DATA_FIELD_DEF(int32_t, innerDataSize);
TILING_DATA_FIELD_DEF(uint32_t, sortRepeat);
TILING_DATA_FIELD_DEF(int32_t, mrgSortRepeat);
TILING_DATA_FIELD_DEF(int32_t, kAlignFourBytes);
TILING_DATA_FIELD_DEF(int32_t, kAlignTwoBytes);
TILING_DATA_FIELD_DEF(int32_t, maskOffset);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2FourBytes);
TILING_DATA_FIELD_DEF(int32_t, maskVreducev2TwoBytes);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc1offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc2offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortSrc3offset);
TILING_DATA_FIELD_DEF(int32_t, mrgSortTwoQueueSrc1Offset);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara1);
TILING_DATA_FIELD_DEF(int32_t, mrgFourQueueTailPara2);
TILING_DATA_FIELD_DEF(int32_t, srcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, copyUbToUbBlockCount);
TILING_DATA_FIELD_DEF(int32_t, topkMrgSrc1MaskSizeOffset);
TILING_DATA_FIELD_DEF(int32_t, topkNSmallSrcIndexOffset);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceValMask1);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask0);
TILING_DATA_FIELD_DEF(uint32_t, vreduceIdxMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask0);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask1);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask2);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask3);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask4);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask5);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask6);
TILING_DATA_FIELD_DEF(uint16_t, vreducehalfValMask7);
END_TILING_DATA_DEF;

static_assert(sizeof(TopkTiling) == 24 * 4 + 8 * 2, "TopkTiling is 24 four-byte and 8 two-byte fields");

namespace optiling {
using ::TopkTiling;
}  // namespace optiling

namespace AscendC {
namespace tiling {
using ::TopkTiling;
}  // namespace tiling
}  // namespace AscendC

namespace kernelgen {

// Documented limits of TopKInfo (TopK, parameter topKInfo) and k (1 <= k <= n).
inline constexpr int32_t kTopKInnerAlign = 32;         // inner is a multiple of 32 elements
inline constexpr int32_t kTopKNormalMaxInner = 4096;   // Normal mode: inner at most 4096
inline constexpr int32_t kTopKSmallInner = 32;         // Small mode: inner is exactly 32
inline constexpr int32_t kTopK310pHalfMaxInner = 2048;  // Atlas inference AI Core, half: inner, index values

// k rounded up to 32 bytes of an element of `bytes` bytes: the row length of dstValueLocal
// (k_pad: 8 for float, 16 for half) and of dstIndexLocal (kpad_index: int32_t, 8) in Normal mode.
inline constexpr int32_t topk_k_pad(int32_t k, uint32_t bytes) {
    const int32_t per_block = static_cast<int32_t>(32 / bytes);
    return (k + per_block - 1) / per_block * per_block;
}

// Why a TopK shape is refused, or nullptr: the documented TopKInfo rules (inner a multiple of 32,
// Small mode inner 32, Normal mode inner at most 4096), checked by the host helpers and the API.
inline const char* topk_shape_error(int32_t inner, int32_t outter, AscendC::TopKMode mode) {
    if (outter < 1) return "outter must be at least 1";
    if (inner < kTopKInnerAlign || inner % kTopKInnerAlign != 0) return "inner must be a positive multiple of 32";
    if (mode == AscendC::TopKMode::TOPK_NSMALL && inner != kTopKSmallInner) return "Small mode (TOPK_NSMALL) needs inner 32";
    if (mode == AscendC::TopKMode::TOPK_NORMAL && inner > kTopKNormalMaxInner) return "Normal mode allows inner up to 4096";
    return nullptr;
}

// The emulator's scratch size for one TopK call, in bytes (min == max: more does not help it).
// It mirrors the documented algorithm: Sort32 builds 8-byte (score, index) structures, which
// Normal mode then merges (MrgSort: a second, ping-pong buffer), an index row is generated when
// none is given (isInitIndex false), and the smallest-k form works on a negated copy of the
// scores. Normal mode sorts one row at a time; Small mode sorts all rows at once (Sort32 only,
// its index row copied to every row).
inline uint32_t topk_tmp_bytes(int32_t inner, int32_t outter, bool is_init_index, AscendC::TopKMode mode,
                               bool is_largest, uint32_t type_bytes) {
    const bool small = mode == AscendC::TopKMode::TOPK_NSMALL;
    const uint64_t elems = (small ? uint64_t(outter) : 1u) * uint64_t(inner);
    const uint64_t per_elem = (small ? 8u : 16u) + (is_init_index ? 0u : 4u) + (is_largest ? 0u : type_bytes);
    const uint64_t bytes = elems * per_elem;
    return static_cast<uint32_t>((bytes + 31) / 32 * 32);
}

}  // namespace kernelgen
