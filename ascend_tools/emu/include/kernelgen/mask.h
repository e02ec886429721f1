// The lane model of the mask/repeat forms: one repeat covers 256 bytes = 8 blocks of 32 bytes;
// a mask (continuous count, 128-bit pattern, or the counter mode's element count) picks the
// active lanes; block and repeat strides (in 32-byte blocks) place each operand's lanes.
#pragma once

#include "device.h"
#include "tensor.h"

namespace kernelgen {

// Which lanes a mask form activates, resolved from the call's mask or the SetVectorMask state.
struct Lanes {
    uint32_t per_repeat;  // elements per repeat (256 / sizeof of the widest operand)
    uint32_t repeats;
    bool counter;
    uint64_t count;       // counter mode: total elements
    uint64_t bits[2];     // normal mode: lane k is active if bit k % 128 is set

    bool active(uint32_t r, uint32_t k) const {
        if (counter) return uint64_t(r) * per_repeat + k < count;
        uint32_t b = k % 128;
        return (bits[b / 64] >> (b % 64)) & 1u;
    }
};

inline Lanes lanes_from_count_mask(const char* api, uint64_t mask, int64_t repeat, uint32_t per_repeat, bool is_set,
                                   const char* file, int line) {
    auto& st = block();
    Lanes l{per_repeat, 0, st.mask_counter, 0, {0, 0}};
    if (!is_set) {  // MASK_PLACEHOLDER: the mask set earlier with SetVectorMask
        if (l.counter) {
            l.count = st.mask_lo;
        } else {
            l.bits[0] = st.mask_lo;
            l.bits[1] = st.mask_hi;
        }
    } else if (l.counter) {
        l.count = mask;
    } else {
        uint32_t limit = per_repeat < 128 ? per_repeat : 128;
        if (mask < 1 || mask > limit)
            failf("mask-range", file, line, "%s: mask is %llu, must be in [1, %u] for %u elements per repeat", api,
                  (unsigned long long)mask, limit, per_repeat);
        l.bits[0] = mask >= 64 ? ~uint64_t(0) : ((uint64_t(1) << mask) - 1);
        l.bits[1] = mask >= 128 ? ~uint64_t(0) : mask <= 64 ? 0 : ((uint64_t(1) << (mask - 64)) - 1);
    }
    if (l.counter) {
        l.repeats = static_cast<uint32_t>(ceil_div(l.count, per_repeat));
    } else {
        check_repeat(api, repeat, file, line);
        l.repeats = static_cast<uint32_t>(repeat);
    }
    return l;
}

inline Lanes lanes_from_bit_mask(const char* api, const uint64_t* mask, int64_t repeat, uint32_t per_repeat,
                                 bool is_set, const char* file, int line) {
    if (!is_set || block().mask_counter) return lanes_from_count_mask(api, mask ? mask[0] : 0, repeat, per_repeat, is_set, file, line);
    // 32- and 64-bit types take a one-element mask array: mask[1] is not read.
    Lanes l{per_repeat, 0, false, 0, {mask[0], per_repeat > 64 ? mask[1] : 0}};
    if (per_repeat < 64 && (l.bits[0] >> per_repeat) != 0)
        failf("mask-range", file, line, "%s: mask[0] 0x%llx sets bits beyond the %u elements of a repeat", api,
              (unsigned long long)l.bits[0], per_repeat);
    if (l.bits[0] == 0 && l.bits[1] == 0)
        failf("mask-range", file, line, "%s: mask is all zero", api);
    check_repeat(api, repeat, file, line);
    l.repeats = static_cast<uint32_t>(repeat);
    return l;
}

// Placement of one operand: element offset of lane k of repeat r.
struct Stride {
    uint32_t epb;  // elements per 32-byte block of this operand's type
    uint32_t blk;  // block stride (blocks)
    uint32_t rep;  // repeat stride (blocks)
    uint64_t at(uint32_t r, uint32_t k) const {
        return uint64_t(r) * rep * epb + uint64_t(k / epb) * blk * epb + k % epb;
    }
};

template <class T>
inline Stride stride_of(uint32_t blk, uint32_t rep) {
    return Stride{static_cast<uint32_t>(elems_in<T>(32)), blk, rep};  // int4b_t: 64 a block
}

// Largest element index + 1 that the active lanes touch through `s` (for the size check).
inline uint64_t extent(const Lanes& l, const Stride& s) {
    uint64_t hi = 0;
    for (uint32_t r = 0; r < l.repeats; ++r)
        for (uint32_t k = 0; k < l.per_repeat; ++k)
            if (l.active(r, k)) {
                uint64_t e = s.at(r, k) + 1;
                if (e > hi) hi = e;
            }
    return hi;
}

template <class F>
inline void for_lanes(const Lanes& l, F f) {
    for (uint32_t r = 0; r < l.repeats; ++r)
        for (uint32_t k = 0; k < l.per_repeat; ++k)
            if (l.active(r, k)) f(r, k);
}

}  // namespace kernelgen
