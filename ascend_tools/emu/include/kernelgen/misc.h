// Remaining vector helpers: Brcb, Gather, GatherMask, CreateVecIndex, Axpy, and DumpTensor (prints).
#pragma once

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api_tmp_sizes.h"
#include "pipe.h"
#include "vec_core.h"

struct UnPadTiling;  // kernel_tiling/kernel_tiling.h
struct PadTiling;    // kernel_tiling/kernel_tiling.h

namespace AscendC {

// Each of 8 source elements per repeat fills one 32-byte block of dst.
template <class T>
inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t repeatTimes, const BrcbRepeatParams& p,
                 KG_LOC) {
    const char* api = "Brcb";
    kernelgen::check_repeat(api, repeatTimes, file, line);
    const uint64_t epb = 32 / sizeof(T), reps = static_cast<uint64_t>(repeatTimes);
    kernelgen::check_vec_operand(api, "src", src, reps * 8, file, line);
    uint64_t need = reps ? ((reps - 1) * p.dstRepStride + 7ull * p.dstBlkStride) * epb + epb : 0;
    kernelgen::check_vec_operand(api, "dst", dst, need, file, line);
    kernelgen::count_repeats(api, reps);
    for (uint64_t r = 0; r < reps; ++r)
        for (uint64_t j = 0; j < 8; ++j) {
            T v = src.data()[r * 8 + j];
            T* out = dst.data() + (r * p.dstRepStride + j * p.dstBlkStride) * epb;
            for (uint64_t e = 0; e < epb; ++e) out[e] = v;
        }
}

// Byte offset `base + offsets[i]` of a Gather/Scatter operand of `limit` bytes, checked to be
// element aligned and inside it (both APIs address the UB side by bytes, not elements).
namespace detail {
template <class T>
inline uint64_t indexed_byte(const char* api, const char* side, uint32_t base, const uint32_t* offsets,
                             uint64_t i, uint64_t limit, const char* file, int line) {
    uint64_t byte = uint64_t(base) + offsets[i];
    if (byte % sizeof(T) != 0 || byte + sizeof(T) > limit)
        kernelgen::failf("count-exceeds-tensor", file, line,
                         "%s: offset %llu bytes (element %llu) is outside the %llu-byte %s or not element aligned",
                         api, (unsigned long long)byte, (unsigned long long)i, (unsigned long long)limit, side);
    return byte;
}
}  // namespace detail

// dst[i] = element at byte offset srcOffset[i] + srcBaseAddr of src.
template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   uint32_t srcBaseAddr, int64_t count, KG_LOC) {
    const char* api = "Gather";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "srcOffset", srcOffset, n, file, line);
    // src is read up to the furthest offset (its extent for the overlap and pipe checks)
    const uint64_t limit = uint64_t(src.GetSize()) * sizeof(T);
    std::vector<uint64_t> bytes(n);
    uint64_t reach = 0;
    for (uint64_t i = 0; i < n; ++i) {
        bytes[i] = detail::indexed_byte<T>(api, "src", srcBaseAddr, srcOffset.data(), i, limit, file, line);
        reach = std::max(reach, bytes[i] / sizeof(T) + 1);
    }
    kernelgen::check_vec_operand(api, "src", src, reach, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    for (uint64_t i = 0; i < n; ++i)
        std::memcpy(dst.data() + i, reinterpret_cast<const uint8_t*>(src.data()) + bytes[i], sizeof(T));
}

// The mask forms ("tensor high-dimension split"): each repeat gathers 256 / sizeof(T) lanes,
// lane k of repeat r taking the element at byte srcBaseAddr + srcOffset[r * lanes + k] of src
// (the offsets are read contiguously, one repeat's worth per repeat, as the vgather intrinsic
// reads N addresses per repeat) and landing at dst r * dstRepStride 32-byte blocks + k; only the
// lanes the mask selects are gathered and written.
namespace detail {
template <class T>
inline void gather_lanes(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                         uint32_t srcBaseAddr, const kernelgen::Lanes& l, uint16_t dstRepStride, const char* file,
                         int line) {
    const char* api = "Gather";
    auto sd = kernelgen::stride_of<T>(1, dstRepStride);
    kernelgen::check_strided(api, "dst", dst, l, sd, file, line);
    uint64_t offsets = 0;
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        offsets = std::max<uint64_t>(offsets, uint64_t(r) * l.per_repeat + k + 1);
    });
    kernelgen::check_vec_operand(api, "srcOffset", srcOffset, offsets, file, line);
    const uint64_t limit = uint64_t(src.GetSize()) * sizeof(T);
    uint64_t reach = 0;
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        uint64_t byte = indexed_byte<T>(api, "src", srcBaseAddr, srcOffset.data(), uint64_t(r) * l.per_repeat + k,
                                        limit, file, line);
        reach = std::max(reach, byte / sizeof(T) + 1);
    });
    kernelgen::check_vec_operand(api, "src", src, reach, file, line);
    kernelgen::count_mask_repeats(api, l);
    std::vector<T> picked;  // read every lane before writing any: dst may be src (in place)
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        T v;
        std::memcpy(&v, reinterpret_cast<const uint8_t*>(src.data()) + srcBaseAddr +
                            srcOffset.data()[uint64_t(r) * l.per_repeat + k], sizeof(T));
        picked.push_back(v);
    });
    size_t i = 0;
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) { dst.data()[sd.at(r, k)] = picked[i++]; });
}
}  // namespace detail

template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   uint32_t srcBaseAddr, uint64_t mask, uint8_t repeatTime, uint16_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Gather", mask, repeatTime, kernelgen::per_repeat<T>(), true, file, line);
    detail::gather_lanes(dst, src, srcOffset, srcBaseAddr, l, dstRepStride, file, line);
}
template <class T>
inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                   uint32_t srcBaseAddr, const uint64_t mask[], uint8_t repeatTime, uint16_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("Gather", mask, repeatTime, kernelgen::per_repeat<T>(), true, file, line);
    detail::gather_lanes(dst, src, srcOffset, srcBaseAddr, l, dstRepStride, file, line);
}

// ---------------------------------------------------------------- Scatter
// The inverse of Gather: element i of src goes to byte dstBaseAddr + dstOffset[i] of dst.
template <class T>
inline void Scatter(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& dstOffset,
                    uint32_t dstBaseAddr, int64_t count, KG_LOC) {
    const char* api = "Scatter";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "src", src, n, file, line);
    kernelgen::check_vec_operand(api, "dstOffset", dstOffset, n, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, 0, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    const uint64_t limit = uint64_t(dst.GetSize()) * sizeof(T);
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t byte = detail::indexed_byte<T>(api, "dst", dstBaseAddr, dstOffset.data(), i, limit, file, line);
        std::memcpy(reinterpret_cast<uint8_t*>(dst.data()) + byte, src.data() + i, sizeof(T));
    }
}

// ---------------------------------------------------------------- ArithProgression
// dst[i] = firstValue + i * diffValue for i < count (computed in float for half).
template <class T>
inline void ArithProgression(const LocalTensor<T>& dst, const T firstValue, const T diffValue, const int32_t count,
                             KG_LOC) {
    const char* api = "ArithProgression";
    kernelgen::check_count_nonneg(api, count, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, uint64_t(count), file, line);
    kernelgen::count_bytes_as_repeats(api, uint64_t(count) * sizeof(T));
    const auto first = kernelgen::widen(firstValue);
    const auto diff = kernelgen::widen(diffValue);
    for (int32_t i = 0; i < count; ++i) dst.data()[i] = kernelgen::narrow<T>(first + static_cast<decltype(first)>(i) * diff);
}

// ---------------------------------------------------------------- GatherMask
// API reference, GatherMask (hiascend atlasascendc_api_07_0071; the same text in asc-devkit
// docs/zh/api/SIMD-API/基础API/Memory矢量计算/比较与选择/GatherMask.md):
// - reduceMode false (Normal mode): every repeat works on 256 bytes, repeatTimes * 256 bytes in
//   all, the last repeat included; mask is not used.
// - reduceMode true (Counter mode): mask in [1, 2^32 - 1], read one of two ways by chip:
//   "configuration one" (Atlas A2/A3, Atlas 200I/500 A2, Ascend 950): every repeat works on `mask`
//   elements, repeatTimes * mask in all (the reference's example: mask 70 on 4-byte elements, more
//   than the 64 a 256-byte repeat holds, 2 repeats, src0RepeatStride 4 blocks);
//   "configuration two" (Atlas inference AI Core, 310P): mask elements in all, repeatTimes
//   ignored, the repeats inferred from mask and the source (256 bytes each, the last one holding
//   what remains).
// - Both: src0BlockStride/src0RepeatStride place the source (32-byte blocks); a pattern tensor is
//   consumed bit after bit within a repeat, and src1RepeatStride (32-byte blocks) moves it between
//   repeats (0: every repeat starts at its first bit); built-in patterns repeat in every repeat.
// - Built-in src1Pattern 1..7 (1 even, 2 odd, 3..6 lane 0..3 of every 4, 7 all); the 310P has 1..6.
// - The call leaves the mask mode Normal ("if Counter mode was set before the call, set it again
//   after": the API switches to Normal when it finishes).
// Lanes past 256 bytes in a configuration-one repeat continue with src0BlockStride, block after
// block (the reference's example has stride 1, contiguous).
enum class GatherMaskMode : uint8_t { VERSION_V1 = 0, VERSION_V2 = 1 };
inline constexpr GatherMaskMode defaultGatherMaskMode = GatherMaskMode::VERSION_V1;

struct GatherMaskParams {
    uint8_t src0BlockStride = 1;
    uint16_t repeatTimes = 1;
    uint16_t src0RepeatStride = 8;  // 32-byte blocks between repeats of src0
    uint8_t src1RepeatStride = 0;   // 32-byte blocks between repeats of a pattern tensor (0: reuse)
    GatherMaskParams() = default;
    GatherMaskParams(uint8_t blk, uint16_t rep, uint16_t rep0, uint8_t rep1)
        : src0BlockStride(blk), repeatTimes(rep), src0RepeatStride(rep0), src1RepeatStride(rep1) {}
};

namespace detail {
// How Counter mode reads `mask`, per chip (cce_aicore), and the built-in patterns the chip has:
// the reference's per-product lines (GatherMask, function description and src1Pattern).
enum class GatherMaskCounter : uint8_t { PerRepeat, Total };
struct GatherMaskChipRow {
    uint32_t cce_aicore;
    GatherMaskCounter counter;
    uint8_t max_builtin_pattern;
};
inline constexpr GatherMaskChipRow kGatherMaskChips[] = {
    {220, GatherMaskCounter::PerRepeat, 7},  // Atlas A2/A3 training and inference (910B, 910_93)
    {300, GatherMaskCounter::PerRepeat, 7},  // Atlas 200I/500 A2 inference (310B)
    {200, GatherMaskCounter::Total, 6},      // Atlas inference AI Core (310P)
};

inline const GatherMaskChipRow& gather_mask_chip(const char* file, int line) {
    for (const auto& r : kGatherMaskChips)
        if (r.cce_aicore == kernelgen::chip().cce_aicore) return r;
    kernelgen::failf("chip-support", file, line, "GatherMask: not on %s (the API reference lists no Atlas training series)",
                     kernelgen::chip().name.c_str());
}

// The repeats a call makes and how many lanes each considers.
struct GatherMaskPlan {
    bool normal = true;       // reduceMode false
    uint64_t repeats = 0;
    uint64_t lanes = 0;       // lanes of every repeat but the last
    uint64_t last_lanes = 0;  // lanes of the last repeat
    uint64_t lanes_of(uint64_t r) const { return r + 1 == repeats ? last_lanes : lanes; }
};

template <class T>
inline GatherMaskPlan gather_mask_plan(bool reduceMode, uint32_t mask, const GatherMaskParams& p, const char* file, int line) {
    const char* api = "GatherMask";
    const uint64_t per = kernelgen::per_repeat<T>();
    const GatherMaskChipRow& chip = gather_mask_chip(file, line);
    if (!reduceMode) {
        kernelgen::check_repeat(api, p.repeatTimes, file, line);
        return {true, p.repeatTimes, per, per};
    }
    if (mask == 0) kernelgen::failf("mask-range", file, line, "%s: Counter-mode mask 0 outside [1, 2^32 - 1]", api);
    if (chip.counter == GatherMaskCounter::PerRepeat) {
        kernelgen::check_repeat(api, p.repeatTimes, file, line);
        return {false, p.repeatTimes, mask, mask};
    }
    const uint64_t reps = kernelgen::ceil_div(uint64_t(mask), per);
    return {false, reps, per, mask - (reps - 1) * per};
}

// Keeps the lanes `keep(r, k)` selects, packed into dst in order; rsvdCnt = how many.
template <class T, class Keep>
inline void gather_mask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const GatherMaskPlan& plan,
                        const GatherMaskParams& p, uint64_t& rsvdCnt, Keep keep, const char* file, int line) {
    const char* api = "GatherMask";
    auto ss = kernelgen::stride_of<T>(p.src0BlockStride, p.src0RepeatStride);
    uint64_t reach = 0;  // src0's extent: the last lane of a repeat is its furthest
    for (uint64_t r = 0; r < plan.repeats; ++r)
        if (plan.lanes_of(r)) reach = std::max(reach, ss.at(uint32_t(r), uint32_t(plan.lanes_of(r) - 1)) + 1);
    // Normal mode works on whole repeats (the reference: repeatTimes * 256 bytes), so a source
    // whose length is no whole number of repeats is read past its end within the last one, and
    // what it keeps from there may run past dst: the NPU reads and writes the UB bytes that follow
    // (another buffer's, if the kernel placed one there), and so does the emulator, with one
    // warning. A read further past is the general rule's (check_vec_operand: a warning inside UB);
    // a keep past dst beyond that last repeat, or in Counter mode, is an error.
    const uint64_t size = src0.GetSize(), per = kernelgen::per_repeat<T>();
    auto in_ub = [](const auto& t, uint64_t n) {
        return t.valid() && t.ub_offset() + n * sizeof(T) <= kernelgen::chip().ub_bytes;
    };
    std::string tail;
    if (plan.normal && reach > size && reach - size < per && in_ub(src0, reach)) {
        tail = kernelgen::format("reads %llu elements of src0, a LocalTensor<%s> of %llu: its last repeat reads the %llu "
                                 "elements that follow it in UB (lanes kept from there hold whatever lies there)",
                                 (unsigned long long)reach, kernelgen::type_name<T>(), (unsigned long long)size,
                                 (unsigned long long)(reach - size));
        kernelgen::check_vec_operand(api, "src0", src0, size, file, line);
    } else {
        kernelgen::check_vec_operand(api, "src0", src0, reach, file, line);
    }
    uint64_t kept = 0, kept_inside = 0;  // dst's extent: the lanes kept (in all, those read inside src0)
    for (uint64_t r = 0; r < plan.repeats; ++r)
        for (uint64_t k = 0, n = plan.lanes_of(r); k < n; ++k)
            if (keep(r, k)) {
                ++kept;
                kept_inside += ss.at(uint32_t(r), uint32_t(k)) < size ? 1 : 0;
            }
    const uint64_t room = dst.GetSize();
    if (!tail.empty() && kept > room && kept_inside <= room && in_ub(dst, kept)) {
        tail += kernelgen::format("%skeeps %llu elements, %llu past dst (a LocalTensor<%s> of %llu), all read past src0: "
                                  "they overwrite the UB bytes that follow dst, so what the kernel keeps there "
                                  "must not be needed any more",
                                  tail.empty() ? "" : "; ", (unsigned long long)kept, (unsigned long long)(kept - room),
                                  kernelgen::type_name<T>(), (unsigned long long)room);
        kernelgen::check_vec_operand(api, "dst", dst, room, file, line);
    } else {
        if (kept > room)
            kernelgen::failf("count-exceeds-tensor", file, line, "%s: keeps %llu elements, more than the %llu of dst", api,
                             (unsigned long long)kept, (unsigned long long)room);
        kernelgen::check_vec_operand(api, "dst", dst, kept, file, line);
    }
    if (!tail.empty())
        kernelgen::warn("count-exceeds-tensor",
                        kernelgen::format("%s in Normal mode (every repeat works on 256 bytes) %s", api, tail.c_str()),
                        file, line);
    kernelgen::count_repeats(api, plan.repeats);
    // Gathered first, then written: dst may be src0 itself (the reference's own example).
    std::vector<T> out;
    out.reserve(kept);
    for (uint64_t r = 0; r < plan.repeats; ++r)
        for (uint64_t k = 0, n = plan.lanes_of(r); k < n; ++k)
            if (keep(r, k)) out.push_back(src0.data()[ss.at(uint32_t(r), uint32_t(k))]);
    std::copy(out.begin(), out.end(), dst.data());
    rsvdCnt = out.size();
    kernelgen::block().mask_counter = false;
}
}  // namespace detail

template <class T, GatherMaskMode mode = defaultGatherMaskMode>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern, const bool reduceMode,
                       const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt, KG_LOC) {
    const uint8_t top = detail::gather_mask_chip(file, line).max_builtin_pattern;
    if (src1Pattern < 1 || src1Pattern > top)
        kernelgen::failf("param-range", file, line, "GatherMask: built-in src1Pattern %u outside [1, %u] on %s", src1Pattern, top,
                         kernelgen::chip().name.c_str());
    auto keep = [src1Pattern](uint64_t, uint64_t k) {
        if (src1Pattern == 7) return true;
        if (src1Pattern <= 2) return k % 2 == uint64_t(src1Pattern - 1);
        return k % 4 == uint64_t(src1Pattern - 3);
    };
    const auto plan = detail::gather_mask_plan<T>(reduceMode, mask, gatherMaskParams, file, line);
    detail::gather_mask(dst, src0, plan, gatherMaskParams, rsvdCnt, keep, file, line);
}
// Pattern tensor: bit k of repeat r's pattern (little-endian words of U) keeps lane k; repeat r's
// pattern starts src1RepeatStride * 256 bits after repeat r - 1's.
template <class T, class U, GatherMaskMode mode = defaultGatherMaskMode,
          std::enable_if_t<std::is_integral_v<U> && std::is_unsigned_v<U>, int> = 0>
inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<U>& src1Pattern,
                       const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt,
                       KG_LOC) {
    const auto plan = detail::gather_mask_plan<T>(reduceMode, mask, gatherMaskParams, file, line);
    const uint64_t rep_bits = uint64_t(gatherMaskParams.src1RepeatStride) * 256;
    uint64_t need_bits = 0;
    for (uint64_t r = 0; r < plan.repeats; ++r) need_bits = std::max(need_bits, r * rep_bits + plan.lanes_of(r));
    kernelgen::check_vec_operand("GatherMask", "src1Pattern", src1Pattern, kernelgen::ceil_div(need_bits, 8 * sizeof(U)), file,
                                 line);
    const U* words = src1Pattern.data();
    auto keep = [&](uint64_t r, uint64_t k) {
        uint64_t bit = r * rep_bits + k;
        return ((words[bit / (8 * sizeof(U))] >> (bit % (8 * sizeof(U)))) & 1u) != 0;
    };
    detail::gather_mask(dst, src0, plan, gatherMaskParams, rsvdCnt, keep, file, line);
}

// dst[i] = firstValue + i.
template <class T>
inline void CreateVecIndex(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& firstValue, int64_t count, KG_LOC) {
    const char* api = "CreateVecIndex";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * sizeof(T));
    auto base = kernelgen::widen(static_cast<T>(firstValue));
    for (uint64_t i = 0; i < n; ++i) dst.data()[i] = kernelgen::narrow<T>(base + static_cast<decltype(base)>(i));
}

// The high-dimension forms, CreateVecIndex(dst, firstValue, mask | mask[], repeatTime,
// dstBlkStride, dstRepStride) (API reference, CreateVecIndex, atlasascendc_api_07_0090): lane k
// of repeat r gets firstValue + r * (elements per repeat) + k, the index of the element in the
// run the repeats cover. The reference states the values only where that equals the element's
// ordinal among those written (counter mode, a prefix of lanes in one repeat, or whole repeats);
// any other mask stops as not emulated rather than guess.
namespace detail {
template <class T>
inline void create_vec_index_mask(const LocalTensor<T>& dst, T first, const kernelgen::Lanes& l, uint32_t blk,
                                  uint32_t rep, const char* file, int line) {
    const char* api = "CreateVecIndex";
    if (!l.counter) {
        uint32_t n = 0;
        while (n < l.per_repeat && l.active(0, n)) ++n;
        bool prefix = true;
        for (uint32_t k = n; k < l.per_repeat; ++k) prefix = prefix && !l.active(0, k);
        if (!prefix || (l.repeats > 1 && n != l.per_repeat))
            kernelgen::failf("param-range", file, line,
                             "%s: a mask that is not a prefix of lanes, or a partial mask over %u repeats, is not "
                             "emulated (the API reference does not give the index each element then holds)",
                             api, l.repeats);
    }
    auto s = kernelgen::stride_of<T>(blk, rep);
    kernelgen::check_strided(api, "dst", dst, l, s, file, line);
    kernelgen::count_mask_repeats(api, l);
    auto base = kernelgen::widen(first);
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
        uint64_t i = uint64_t(r) * l.per_repeat + k;
        dst.data()[s.at(r, k)] = kernelgen::narrow<T>(base + static_cast<decltype(base)>(i));
    });
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void CreateVecIndex(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& firstValue, uint64_t mask,
                           int64_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("CreateVecIndex", mask, repeatTime, kernelgen::per_repeat<T>(),
                                              isSetMask, file, line);
    detail::create_vec_index_mask(dst, static_cast<T>(firstValue), l, dstBlkStride, dstRepStride, file, line);
}
template <class T, bool isSetMask = true>
inline void CreateVecIndex(const LocalTensor<T>& dst, const kernelgen::nd_t<T>& firstValue, const uint64_t mask[],
                           int64_t repeatTime, uint16_t dstBlkStride, uint8_t dstRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("CreateVecIndex", mask, repeatTime, kernelgen::per_repeat<T>(),
                                            isSetMask, file, line);
    detail::create_vec_index_mask(dst, static_cast<T>(firstValue), l, dstBlkStride, dstRepStride, file, line);
}

// dst[i] += src[i] * scalar (dst may be wider than src, e.g. float += half * half).
template <class T, class U>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const kernelgen::nd_t<U>& scalar, int64_t count,
                 KG_LOC) {
    const char* api = "Axpy";
    kernelgen::check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    kernelgen::check_vec_operand(api, "dst", dst, n, file, line);
    kernelgen::check_vec_operand(api, "src", src, n, file, line);
    kernelgen::count_bytes_as_repeats(api, n * (sizeof(T) > sizeof(U) ? sizeof(T) : sizeof(U)));
    float s = static_cast<float>(static_cast<U>(scalar));
    for (uint64_t i = 0; i < n; ++i)
        dst.data()[i] = kernelgen::narrow<T>(static_cast<float>(dst.data()[i]) + static_cast<float>(src.data()[i]) * s);
}

namespace detail {
// Axpy's mask forms ("tensor high-dimension split", AscendC API reference): dst += src * scalar
// over the lanes of each repeat, strides as UnaryRepeatParams. Same-type operands only: which
// lanes a mixed-precision (float += half) repeat covers is not documented.
template <class T, class U>
inline void axpy_mask(const LocalTensor<T>& dst, const LocalTensor<U>& src, const kernelgen::nd_t<U>& scalar,
                      const kernelgen::Lanes& l, const UnaryRepeatParams& p, const char* file, int line) {
    const char* api = "Axpy";
    if constexpr (!std::is_same_v<T, U>) {
        kernelgen::failf("param-range", file, line,
                         "%s: the mask form with dst %s and src %s is not emulated (same-type operands only)", api,
                         kernelgen::type_name<T>(), kernelgen::type_name<U>());
    } else {
        auto sd = kernelgen::stride_of<T>(p.dstBlkStride, p.dstRepStride);
        auto ss = kernelgen::stride_of<T>(p.srcBlkStride, p.srcRepStride);
        kernelgen::check_strided(api, "dst", dst, l, sd, file, line);
        kernelgen::check_strided(api, "src", src, l, ss, file, line);
        kernelgen::count_mask_repeats(api, l);
        const float s = static_cast<float>(static_cast<U>(scalar));
        T* d = dst.data();
        const U* x = src.data();
        kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) {
            d[sd.at(r, k)] = kernelgen::narrow<T>(static_cast<float>(d[sd.at(r, k)]) + static_cast<float>(x[ss.at(r, k)]) * s);
        });
    }
}
}  // namespace detail

template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const kernelgen::nd_t<U>& scalar, uint64_t mask,
                 int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {
    detail::axpy_mask(dst, src, scalar,
                      kernelgen::lanes_from_count_mask("Axpy", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,
                                                       file, line),
                      p, file, line);
}
template <class T, class U, bool isSetMask = true>
inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const kernelgen::nd_t<U>& scalar,
                 const uint64_t mask[], int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {
    detail::axpy_mask(dst, src, scalar,
                      kernelgen::lanes_from_bit_mask("Axpy", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,
                                                     file, line),
                      p, file, line);
}

// UB -> UB copy in the mask/repeat form; strides in 32-byte blocks.
struct CopyRepeatParams {
    uint16_t dstStride = 1, srcStride = 1, dstRepeatSize = 8, srcRepeatSize = 8;
    CopyRepeatParams() = default;
    CopyRepeatParams(uint16_t ds, uint16_t ss, uint16_t dr, uint16_t sr)
        : dstStride(ds), srcStride(ss), dstRepeatSize(dr), srcRepeatSize(sr) {}
};

template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, int64_t repeatTimes,
                 const CopyRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("Copy", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    kernelgen::unary_mask("Copy", dst, src, l, UnaryRepeatParams(p.dstStride, p.srcStride, static_cast<uint8_t>(p.dstRepeatSize),
                                                                 static_cast<uint8_t>(p.srcRepeatSize)),
                          [](auto a) { return a; }, file, line);
}
template <class T, bool isSetMask = true>
inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[], int64_t repeatTimes,
                 const CopyRepeatParams& p, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("Copy", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    kernelgen::unary_mask("Copy", dst, src, l, UnaryRepeatParams(p.dstStride, p.srcStride, static_cast<uint8_t>(p.dstRepeatSize),
                                                                 static_cast<uint8_t>(p.srcRepeatSize)),
                          [](auto a) { return a; }, file, line);
}

// 16 x 16 transpose of a 2-byte matrix (the basic Transpose).
template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, KG_LOC) {
    static_assert(sizeof(T) == 2, "Transpose (16x16) takes 2-byte types");
    kernelgen::check_vec_operand("Transpose", "src", src, 256, file, line);
    kernelgen::check_vec_operand("Transpose", "dst", dst, 256, file, line);
    kernelgen::count_repeats("Transpose", 2);
    T tmp[256];
    std::memcpy(tmp, src.data(), sizeof tmp);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) dst.data()[j * 16 + i] = tmp[i * 16 + j];
}

// The enhanced Transpose's layouts (API reference, Transpose, table 3). Only TRANSPOSE_ND2ND_B16,
// TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW are supported; the NZ/ND ones are reserved.
enum class TransposeType : uint8_t {
    TRANSPOSE_TYPE_NONE,
    TRANSPOSE_NZ2ND_0213,
    TRANSPOSE_NZ2NZ_0213,
    TRANSPOSE_NZ2NZ_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITH_N,
    TRANSPOSE_NZ2ND_012_WITHOUT_N,
    TRANSPOSE_NZ2NZ_012_WITHOUT_N,
    TRANSPOSE_ND2ND_ONLY,
    TRANSPOSE_ND_UB_GM,
    TRANSPOSE_GRAD_ND_UB_GM,
    TRANSPOSE_ND2ND_B16,
    TRANSPOSE_NCHW2NHWC,
    TRANSPOSE_NHWC2NCHW,
};

struct TransposeParamsExt {
    uint16_t nSize = 0;
    uint16_t cSize = 0;
    uint16_t hSize = 0;
    uint16_t wSize = 0;
    TransposeType transposeType = TransposeType::TRANSPOSE_ND2ND_B16;
    TransposeParamsExt() = default;
    TransposeParamsExt(uint16_t n, uint16_t c, uint16_t h, uint16_t w, TransposeType type)
        : nSize(n), cSize(c), hSize(h), wSize(w), transposeType(type) {}
};

// Enhanced Transpose: TRANSPOSE_ND2ND_B16 is the 16 x 16 transpose of uint16_t; NCHW2NHWC and
// NHWC2NCHW convert an [N, C, H, W] tensor to [N, H, W, C] and back, for 1-, 2- and 4-byte types,
// with dst and src apart (the API reference allows no reuse there). sharedTmpBuffer's size is not
// checked: the reference gives it per product, and some need none (real kernels pass src).
template <class T>
inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                      const TransposeParamsExt& p, KG_LOC) {
    const char* api = "Transpose";
    if (p.transposeType == TransposeType::TRANSPOSE_ND2ND_B16) {
        if (!std::is_same_v<T, uint16_t>)
            kernelgen::failf("dtype-support", file, line,
                             "%s with TRANSPOSE_ND2ND_B16 takes uint16_t; %s given (documented element types)", api,
                             kernelgen::type_name<T>());
        if constexpr (sizeof(T) == 2) Transpose(dst, src, file, line);
        return;
    }
    bool to_nhwc = p.transposeType == TransposeType::TRANSPOSE_NCHW2NHWC;
    if (!to_nhwc && p.transposeType != TransposeType::TRANSPOSE_NHWC2NCHW)
        kernelgen::failf("param-range", file, line,
                         "%s: transposeType %d is reserved; the documented ones are TRANSPOSE_ND2ND_B16, "
                         "TRANSPOSE_NCHW2NHWC and TRANSPOSE_NHWC2NCHW",
                         api, static_cast<int>(p.transposeType));
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "Transpose (NCHW/NHWC) takes 1-, 2- or 4-byte types");
    uint64_t n = p.nSize, c = p.cSize, hw = uint64_t(p.hSize) * p.wSize, total = n * c * hw;
    kernelgen::check_vec_operand(api, "src", src, total, file, line);
    kernelgen::check_vec_operand(api, "sharedTmpBuffer", sharedTmpBuffer, 0, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, total, file, line);
    const T* s = src.data();
    T* d = dst.data();
    if (total && d < s + total && s < d + total)
        kernelgen::failf("operand-overlap", file, line,
                         "%s: dst and src overlap; TRANSPOSE_NCHW2NHWC/NHWC2NCHW do not allow reusing src as dst", api);
    kernelgen::count_bytes_as_repeats(api, total * sizeof(T));
    for (uint64_t b = 0; b < n; ++b)
        for (uint64_t ch = 0; ch < c; ++ch)
            for (uint64_t i = 0; i < hw; ++i) {
                uint64_t nchw = (b * c + ch) * hw + i, nhwc = (b * hw + i) * c + ch;
                if (to_nhwc)
                    d[nhwc] = s[nchw];
                else
                    d[nchw] = s[nhwc];
            }
}

// TransDataTo5HD (API reference page atlasascendc_api_07_0200; the same instruction as TIK's
// vec_trans_scatter, atlastikapi_07_0097): each repeat gathers from 16 source 32-byte blocks
// into 16 destination blocks, by element width:
//  - 2 bytes: dst[e][k] = src[k][e]      (e, k < 16: a 16 x 16 transpose)
//  - 4 bytes: dst[2e][k] = src[k][e], dst[2e + 1][k] = src[k + 8][e]   (e, k < 8)
//  - 1 byte:  dst[e][k + 16 dstHighHalf] = src[k][e + 16 srcHighHalf]  (e, k < 16)
// Repeat r moves every address r * RepStride blocks on, except that a single repeat already
// starts one stride on (the reference's note on repeatTimes: with repeatTimes 1 the valid start
// is the listed address plus the stride).
constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;

struct TransDataTo5HDParams {
    TransDataTo5HDParams() = default;
    TransDataTo5HDParams(bool dstHigh, bool srcHigh, uint8_t repeat, uint16_t dstRep, uint16_t srcRep)
        : dstHighHalf(dstHigh), srcHighHalf(srcHigh), repeatTimes(repeat), dstRepStride(dstRep), srcRepStride(srcRep) {}
    bool dstHighHalf = false;
    bool srcHighHalf = false;
    uint8_t repeatTimes = 1;
    uint16_t dstRepStride = 0;
    uint16_t srcRepStride = 0;
};

}  // namespace AscendC

namespace kernelgen {

// The block offset (in 32-byte blocks) of repeat r from a listed address.
inline uint64_t trans5hd_step(uint32_t reps, uint32_t r, uint16_t stride) {
    return uint64_t(reps == 1 ? 1 : r) * stride;
}

// Blocks from a listed address up to the end of its last repeat's block.
inline uint64_t trans5hd_reach_blocks(uint32_t reps, uint16_t stride) {
    return reps == 0 ? 0 : trans5hd_step(reps, reps - 1, stride) + 1;
}

template <class T>
inline void trans5hd_run(T* const dst[16], const T* const src[16], const AscendC::TransDataTo5HDParams& p) {
    constexpr uint32_t epb = 32 / sizeof(T);
    const uint32_t reps = p.repeatTimes;
    count_repeats("TransDataTo5HD", reps);
    for (uint32_t r = 0; r < reps; ++r) {
        // The 16 source blocks are read before any destination block is written: the lists may
        // name the same blocks (an in-place transpose).
        T in[16][epb];
        for (int i = 0; i < 16; ++i)
            std::memcpy(in[i], src[i] + trans5hd_step(reps, r, p.srcRepStride) * epb, 32);
        T* out[16];
        for (int i = 0; i < 16; ++i) out[i] = dst[i] + trans5hd_step(reps, r, p.dstRepStride) * epb;
        if constexpr (sizeof(T) == 2) {
            for (int e = 0; e < 16; ++e)
                for (int k = 0; k < 16; ++k) out[e][k] = in[k][e];
        } else if constexpr (sizeof(T) == 4) {
            for (int e = 0; e < 8; ++e)
                for (int k = 0; k < 8; ++k) {
                    out[2 * e][k] = in[k][e];
                    out[2 * e + 1][k] = in[k + 8][e];
                }
        } else {
            const int dh = p.dstHighHalf ? 16 : 0, sh = p.srcHighHalf ? 16 : 0;
            for (int e = 0; e < 16; ++e)
                for (int k = 0; k < 16; ++k) out[e][k + dh] = in[k][e + sh];
        }
    }
}

// An address of the uint64_t list form (LocalTensor::GetPhyAddr(), or a UB byte address): the
// start of a 32-byte block in this block's UB, with `blocks` blocks from it inside the UB.
template <class T>
inline T* trans5hd_address(const char* role, int i, uint64_t addr, uint64_t blocks, bool write, const char* file,
                           int line) {
    T* p = ub_ptr<T>(addr, file, line);
    const AscendC::TPipe* pipe = AscendC::GetTPipePtr();
    const uint8_t* base = pipe ? pipe->ub_base() : nullptr;
    const auto* b = reinterpret_cast<const uint8_t*>(p);
    if (base == nullptr || b < base || b + blocks * 32 > base + chip().ub_bytes)
        failf("ub-overflow", file, line,
              "TransDataTo5HD: %s[%d] (address %#llx, %llu blocks) is not inside this block's UB; the list takes "
              "LocalTensor::GetPhyAddr() of UB tensors",
              role, i, (unsigned long long)addr, (unsigned long long)blocks);
    if ((b - base) % 32 != 0)
        failf("ub-offset-align", file, line, "TransDataTo5HD: %s[%d] starts at UB offset %llu, which is not 32-byte aligned",
              role, i, (unsigned long long)(b - base));
    pipe_model().access(Pipe::V, "TransDataTo5HD", p, blocks * 32, write, file, line);
    return p;
}

}  // namespace kernelgen

namespace AscendC {

template <class T>
inline void TransDataTo5HD(const LocalTensor<T> (&dstLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const LocalTensor<T> (&srcLocalList)[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams, KG_LOC) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD takes 1-, 2- or 4-byte types");
    constexpr uint64_t epb = 32 / sizeof(T);
    const auto& p = nchwconvParams;
    const uint64_t dst_need = kernelgen::trans5hd_reach_blocks(p.repeatTimes, p.dstRepStride) * epb;
    const uint64_t src_need = kernelgen::trans5hd_reach_blocks(p.repeatTimes, p.srcRepStride) * epb;
    T* dst[16];
    const T* src[16];
    {
        // The lists are 32 operands whose extents are strided hulls: no pairwise overlap check.
        kernelgen::OverlapCheckedByEngine exact;
        for (int i = 0; i < 16; ++i) {
            kernelgen::check_vec_operand("TransDataTo5HD", "srcLocalList", srcLocalList[i], src_need, file, line);
            kernelgen::check_vec_operand("TransDataTo5HD", "dstLocalList", dstLocalList[i], dst_need, file, line);
            src[i] = srcLocalList[i].data();
            dst[i] = dstLocalList[i].data();
        }
    }
    kernelgen::trans5hd_run<T>(dst, src, p);
}

template <class T>
inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                           const TransDataTo5HDParams& nchwconvParams, KG_LOC) {
    static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4, "TransDataTo5HD takes 1-, 2- or 4-byte types");
    const auto& p = nchwconvParams;
    const uint64_t dst_blocks = kernelgen::trans5hd_reach_blocks(p.repeatTimes, p.dstRepStride);
    const uint64_t src_blocks = kernelgen::trans5hd_reach_blocks(p.repeatTimes, p.srcRepStride);
    T* dst[16];
    const T* src[16];
    for (int i = 0; i < 16; ++i) {
        src[i] = kernelgen::trans5hd_address<T>("srcList", i, srcList[i], src_blocks, false, file, line);
        dst[i] = kernelgen::trans5hd_address<T>("dstList", i, dstList[i], dst_blocks, true, file, line);
    }
    kernelgen::trans5hd_run<T>(dst, src, p);
}

// numpy-style broadcast of src (a 1 on the broadcast axis) to dst's shape, for dim 1 or 2.
// One API under two names: CANN 8.0's reference spells it BroadCast, the current one Broadcast
// (page atlasascendc_api_07_0853, same template parameters and arguments).
namespace detail {
template <class T, int32_t dim>
inline void broadcast_impl(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                           const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                           const LocalTensor<uint8_t>* tmp, const char* file, int line) {
    static_assert(dim == 1 || dim == 2, "BroadCast/Broadcast supports 1 or 2 dimensions");
    uint32_t rows = dim == 2 ? dstShape[0] : 1, cols = dstShape[dim - 1];
    uint32_t srows = dim == 2 ? srcShape[0] : 1, scols = srcShape[dim - 1];
    if ((srows != rows && srows != 1) || (scols != cols && scols != 1))
        kernelgen::failf("param-range", file, line, "%s: src shape [%u, %u] does not broadcast to [%u, %u]", api, srows, scols,
                         rows, cols);
    // the operand names each page gives (BroadCast: dst/src; Broadcast: dstLocal/srcLocal)
    const bool current = std::strcmp(api, "Broadcast") == 0;
    kernelgen::check_vec_operand(api, current ? "srcLocal" : "src", src, uint64_t(srows) * scols, file, line);
    kernelgen::check_vec_operand(api, current ? "dstLocal" : "dst", dst, uint64_t(rows) * cols, file, line);
    if (tmp) kernelgen::check_vec_operand(api, "sharedTmpBuffer", *tmp, 0, file, line);
    kernelgen::count_bytes_as_repeats(api, uint64_t(rows) * cols * sizeof(T));
    for (uint32_t i = 0; i < rows; ++i)
        for (uint32_t j = 0; j < cols; ++j)
            dst.data()[uint64_t(i) * cols + j] = src.data()[uint64_t(srows == 1 ? 0 : i) * scols + (scols == 1 ? 0 : j)];
}
}  // namespace detail

template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], KG_LOC) {
    detail::broadcast_impl<T, dim>("BroadCast", dst, src, dstShape, srcShape, nullptr, file, line);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void BroadCast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, KG_LOC) {
    detail::broadcast_impl<T, dim>("BroadCast", dst, src, dstShape, srcShape, &sharedTmpBuffer, file, line);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], KG_LOC) {
    detail::broadcast_impl<T, dim>("Broadcast", dst, src, dstShape, srcShape, nullptr, file, line);
}
template <class T, int32_t dim, int32_t axis, bool isReuseSource = false>
inline void Broadcast(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t dstShape[dim],
                      const uint32_t srcShape[dim], const LocalTensor<uint8_t>& sharedTmpBuffer, KG_LOC) {
    detail::broadcast_impl<T, dim>("Broadcast", dst, src, dstShape, srcShape, &sharedTmpBuffer, file, line);
}

// UnPad (high-level, data rearrangement): a [srcHeight, srcWidth] tile whose rows are 32-byte
// aligned loses rightPad columns per row; dst holds the rows packed, srcWidth - rightPad
// elements each (the documented 16 x 16 -> 16 x 15 case). The shape comes from the UnPadTiling
// UnPadTilingFunc fills on the host; the scratch buffer only holds intermediates on the NPU.
struct UnPadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
};

template <class T, class Tiling>
inline void UnPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, UnPadParams& unPadParams, Tiling& tiling,
                  KG_LOC) {
    static_assert(std::is_same_v<std::remove_const_t<Tiling>, ::UnPadTiling>,
                  "UnPad takes an UnPadTiling (kernel_tiling/kernel_tiling.h) filled on the host by UnPadTilingFunc");
    const char* api = "UnPad";
    const uint32_t rows = tiling.srcHeight, width = tiling.srcWidth;
    if (rows == 0 || width == 0)
        kernelgen::failf("tiling-mismatch", file, line,
                         "%s: the UnPadTiling is not filled (srcHeight %u, srcWidth %u): compute it on the host with "
                         "UnPadTilingFunc for the [height, width] source and pass it through the tiling data",
                         api, rows, width);
    if ((uint64_t(width) * sizeof(T)) % 32 != 0)
        kernelgen::failf("param-range", file, line,
                         "%s: srcWidth %u x sizeof(%s) is not 32-byte aligned; UnPad takes rows already aligned to 32 "
                         "bytes",
                         api, width, kernelgen::type_name<T>());
    if (unPadParams.leftPad != 0)
        kernelgen::failf("param-range", file, line,
                         "%s: leftPad %u is not emulated (the documented use removes right padding only)", api,
                         unPadParams.leftPad);
    if (unPadParams.rightPad >= width)
        kernelgen::failf("param-range", file, line, "%s: rightPad %u leaves nothing of a %u-element row", api,
                         unPadParams.rightPad, width);
    const uint32_t keep = width - unPadParams.rightPad;
    kernelgen::check_vec_operand(api, "srcTensor", src, uint64_t(rows) * width, file, line);
    kernelgen::check_vec_operand(api, "dstTensor", dst, uint64_t(rows) * keep, file, line);
    kernelgen::count_bytes_as_repeats(api, uint64_t(rows) * width * sizeof(T));
    for (uint32_t i = 0; i < rows; ++i)
        std::memmove(dst.data() + uint64_t(i) * keep, src.data() + uint64_t(i) * width, keep * sizeof(T));
}
template <class T, class Tiling>
inline void UnPad(const LocalTensor<T>& dst, const LocalTensor<T>& src, UnPadParams& unPadParams,
                  LocalTensor<uint8_t>& sharedTmpBuffer, Tiling& tiling, KG_LOC) {
    kernelgen::check_vec_operand("UnPad", "sharedTmpBuffer", sharedTmpBuffer, 0, file, line);
    UnPad<T>(dst, src, unPadParams, tiling, file, line);
}

// Pad (high-level, data rearrangement; API reference page atlasascendc_api_07_0849): a
// [srcHeight, srcWidth] tile whose last srcWidth - srcOriWidth columns are redundant gets rows
// 32-byte aligned, in the two documented cases:
//  - srcWidth not 32-byte aligned (16 x 15 half): each row widens by rightPad columns of
//    padValue to the aligned width (16 x 16); src holds the rows packed, srcWidth each.
//  - srcWidth aligned with redundant columns (16 x 16, the last two redundant): the shape stays
//    and the last rightPad columns become padValue.
// An aligned tile of valid data only is not supported (the reference says so). The shape comes
// from the PadTiling PadTilingFunc fills on the host; the scratch only holds intermediates on
// the NPU. leftPad is not emulated: the documented cases pad on the right.
struct PadParams {
    uint16_t leftPad = 0;
    uint16_t rightPad = 0;
    int32_t padValue = 0;
};

template <class T, class Tiling>
inline void Pad(const LocalTensor<T>& dst, const LocalTensor<T>& src, PadParams& padParams, Tiling& tiling,
                KG_LOC) {
    static_assert(std::is_same_v<std::remove_const_t<Tiling>, ::PadTiling>,
                  "Pad takes a PadTiling (kernel_tiling/kernel_tiling.h) filled on the host by PadTilingFunc");
    const char* api = "Pad";
    const uint32_t rows = tiling.srcHeight, width = tiling.srcWidth, valid = tiling.srcOriWidth;
    if (rows == 0 || width == 0 || valid == 0 || valid > width)
        kernelgen::failf("tiling-mismatch", file, line,
                         "%s: the PadTiling is not filled (srcHeight %u, srcWidth %u, srcOriWidth %u): compute it on "
                         "the host with PadTilingFunc for the [height, width] source and its valid [height, width] "
                         "and pass it through the tiling data",
                         api, rows, width, valid);
    if (padParams.leftPad != 0)
        kernelgen::failf("param-range", file, line,
                         "%s: leftPad %u is not emulated (the documented cases pad on the right only)", api,
                         padParams.leftPad);
    const uint32_t per_block = 32 / sizeof(T);
    const uint32_t aligned = static_cast<uint32_t>(kernelgen::align_up(width, per_block));
    const uint32_t pad = padParams.rightPad;
    if (aligned == width) {
        if (valid == width)
            kernelgen::failf("param-range", file, line,
                             "%s: the [%u, %u] source is 32-byte aligned and all of it valid (srcOriWidth %u); Pad does "
                             "not support that case",
                             api, rows, width, valid);
        if (pad > width - valid)
            kernelgen::failf("param-range", file, line,
                             "%s: rightPad %u would overwrite valid data: only the last %u of the %u columns are "
                             "redundant (PadTilingFunc's oriSrcShape width is %u)",
                             api, pad, width - valid, width, valid);
    } else if (width + pad != aligned) {
        kernelgen::failf("param-range", file, line,
                         "%s: srcWidth %u x sizeof(%s) is not 32-byte aligned; rightPad must widen it to the aligned "
                         "%u columns (rightPad %u), not %u",
                         api, width, kernelgen::type_name<T>(), aligned, aligned - width, pad);
    }
    kernelgen::check_vec_operand(api, "srcTensor", src, uint64_t(rows) * width, file, line);
    kernelgen::check_vec_operand(api, "dstTensor", dst, uint64_t(rows) * aligned, file, line);
    kernelgen::count_bytes_as_repeats(api, uint64_t(rows) * aligned * sizeof(T));
    // A copy first: widening rows in place would overwrite source rows not yet read.
    const std::vector<T> in(src.data(), src.data() + uint64_t(rows) * width);
    const T fill = kernelgen::narrow<T>(padParams.padValue);
    const uint32_t keep = aligned - pad;
    for (uint32_t i = 0; i < rows; ++i) {
        T* out = dst.data() + uint64_t(i) * aligned;
        std::memcpy(out, in.data() + uint64_t(i) * width, keep * sizeof(T));
        std::fill(out + keep, out + aligned, fill);
    }
}
template <class T, class Tiling>
inline void Pad(const LocalTensor<T>& dst, const LocalTensor<T>& src, PadParams& padParams,
                const LocalTensor<uint8_t>& sharedTmpBuffer, Tiling& tiling, KG_LOC) {
    kernelgen::check_vec_operand("Pad", "sharedTmpBuffer", sharedTmpBuffer, 0, file, line);
    // GetPadMaxMinTmpSize's minimum (one padded row) is what the reference says a call needs.
    const uint64_t least = kernelgen::pad_row_tmp_bytes(tiling.srcWidth, sizeof(T));
    if (sharedTmpBuffer.GetSize() < least)
        kernelgen::failf("workspace-size", file, line,
                         "Pad: sharedTmpBuffer holds %u bytes, less than the %llu GetPadMaxMinTmpSize gives as the "
                         "minimum for a %u-column row of %s",
                         sharedTmpBuffer.GetSize(), (unsigned long long)least, tiling.srcWidth,
                         kernelgen::type_name<T>());
    Pad<T>(dst, src, padParams, tiling, file, line);
}

// Prints the first dumpSize elements with a description number, as the CPU debug mode does.
template <class T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize) {
    std::printf("DumpTensor: desc=%u, block=%d, size=%u\n", desc, kernelgen::current_block(), dumpSize);
    for (uint32_t i = 0; i < dumpSize && i < t.GetSize(); ++i) {
        if constexpr (std::is_integral_v<T>) std::printf("%lld ", static_cast<long long>(t.data()[i]));
        else std::printf("%g ", static_cast<double>(static_cast<float>(t.data()[i])));
    }
    std::printf("\n");
}
// How DumpTensor lays the printed elements out (API reference, ShapeInfo): a shape of up to 8
// dimensions; the data format argument only labels the print.
struct ShapeInfo {
    static constexpr uint8_t kMaxDims = 8;
    ShapeInfo() = default;
    ShapeInfo(uint8_t dims, const uint32_t shapeIn[]) : shapeDim(dims > kMaxDims ? kMaxDims : dims) {
        for (uint8_t i = 0; i < shapeDim; ++i) shape[i] = shapeIn[i];
    }
    template <class Format>
    ShapeInfo(uint8_t dims, const uint32_t shapeIn[], Format) : ShapeInfo(dims, shapeIn) {}
    uint8_t shapeDim = 0;
    uint32_t shape[kMaxDims] = {};
};
template <class T>
inline void DumpTensor(const LocalTensor<T>& t, uint32_t desc, uint32_t dumpSize, const ShapeInfo& info) {
    std::printf("DumpTensor shape:");
    for (uint8_t i = 0; i < info.shapeDim; ++i) std::printf(" %u", info.shape[i]);
    std::printf("\n");
    DumpTensor(t, desc, dumpSize);
}
// DumpTensor from element countOff on (API reference, DumpAccChkPoint).
template <class T>
inline void DumpAccChkPoint(const LocalTensor<T>& t, uint32_t index, uint32_t countOff, uint32_t dumpSize) {
    DumpTensor(t[countOff], index, dumpSize);
}
template <class T>
inline void DumpTensor(const GlobalTensor<T>& t, uint32_t desc, uint32_t dumpSize, KG_LOC) {
    t.check_access("DumpTensor", 0, dumpSize, false, file, line);
    std::printf("DumpTensor: desc=%u, block=%d, size=%u\n", desc, kernelgen::current_block(), dumpSize);
    for (uint32_t i = 0; i < dumpSize; ++i) {
        if constexpr (std::is_integral_v<T>) std::printf("%lld ", static_cast<long long>(t.data()[i]));
        else std::printf("%g ", static_cast<double>(static_cast<float>(t.data()[i])));
    }
    std::printf("\n");
}
template <class T>
inline void DumpAccChkPoint(const GlobalTensor<T>& t, uint32_t index, uint32_t countOff, uint32_t dumpSize, KG_LOC) {
    DumpTensor(t[countOff], index, dumpSize, file, line);
}

}  // namespace AscendC
