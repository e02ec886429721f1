// Engines shared by the elementwise vector APIs: the continuous (count) form and the
// mask/repeat form, for one and two sources. Each checks its operands, counts repeats and
// applies `op` in the compute type (float for half/bf16, rounded to T per op).
#pragma once

#include "mask.h"

namespace kernelgen {

using AscendC::BinaryRepeatParams;
using AscendC::LocalTensor;
using AscendC::UnaryRepeatParams;

template <class T, class Op>
inline void binary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                         int64_t count, Op op, const char* file, int line) {
    check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    check_vec_operand(api, "dst", dst, n, file, line);
    check_vec_operand(api, "src0", a, n, file, line);
    check_vec_operand(api, "src1", b, n, file, line);
    count_bytes_as_repeats(api, n * sizeof(T));
    T* d = dst.data();
    const T *x = a.data(), *y = b.data();
    for (uint64_t i = 0; i < n; ++i) d[i] = narrow<T>(op(widen(x[i]), widen(y[i])));
}

template <class T, class Op>
inline void unary_count(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, Op op,
                        const char* file, int line) {
    check_count_nonneg(api, count, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    check_vec_operand(api, "dst", dst, n, file, line);
    check_vec_operand(api, "src", src, n, file, line);
    count_bytes_as_repeats(api, n * sizeof(T));
    T* d = dst.data();
    const T* x = src.data();
    for (uint64_t i = 0; i < n; ++i) d[i] = narrow<T>(op(widen(x[i])));
}

// The 32-byte blocks of one operand a mask form touches: (repeat, UB address), repeat by repeat.
struct BlockUse {
    uint32_t rep;
    uintptr_t addr;
};

inline std::vector<BlockUse> blocks_of(const Lanes& l, const Stride& s, uintptr_t base) {
    std::vector<BlockUse> out;
    const uint32_t nblk = (l.per_repeat + s.epb - 1) / s.epb;
    for (uint32_t r = 0; r < l.repeats; ++r)
        for (uint32_t b = 0; b < nblk; ++b) {
            bool any = false;
            for (uint32_t k = b * s.epb; k < (b + 1) * s.epb && k < l.per_repeat && !any; ++k) any = l.active(r, k);
            if (any) out.push_back({r, base + (uint64_t(r) * s.rep + uint64_t(b) * s.blk) * 32});
        }
    return out;
}

// The documented overlap rule of the mask/repeat forms: within one repeat a source and the
// destination overlap completely or not at all; a repeat's source must not read what an earlier
// repeat's destination wrote, except (`accumulate_ok`) src1 of Add/Sub/Mul/Max/Min/AddRelu/SubRelu
// on half/int32_t/float with src1RepStride or dstRepStride 0.
template <class D, class S>
inline void check_mask_overlap(const char* api, const LocalTensor<D>& dst, const Stride& sd, const char* role,
                               const LocalTensor<S>& src, const Stride& ss, const Lanes& l, bool accumulate_ok,
                               const char* file, int line) {
    if (l.repeats == 0) return;
    const uintptr_t d0 = reinterpret_cast<uintptr_t>(dst.data()), s0 = reinterpret_cast<uintptr_t>(src.data());
    auto hull = [&](uintptr_t base, const Stride& st) {
        uint64_t nblk = (l.per_repeat + st.epb - 1) / st.epb;
        return base + ((uint64_t(l.repeats) - 1) * st.rep + (nblk - 1) * st.blk + 1) * 32;
    };
    if (d0 >= hull(s0, ss) || s0 >= hull(d0, sd)) return;
    const auto db = blocks_of(l, sd, d0), sb = blocks_of(l, ss, s0);
    std::vector<BlockUse> first(db);  // earliest repeat writing each dst block
    std::sort(first.begin(), first.end(), [](const BlockUse& a, const BlockUse& b) {
        return a.addr != b.addr ? a.addr < b.addr : a.rep < b.rep;
    });
    auto set_of = [](const std::vector<BlockUse>& v, uint32_t r) {
        std::vector<uintptr_t> out;
        for (const auto& u : v)
            if (u.rep == r) out.push_back(u.addr);
        std::sort(out.begin(), out.end());
        return out;
    };
    auto ub = [](uintptr_t a, uintptr_t base, uint64_t off) { return (unsigned long long)(a - base + off); };
    for (const auto& u : sb) {
        auto it = std::lower_bound(first.begin(), first.end(), u.addr,
                                   [](const BlockUse& b, uintptr_t a) { return b.addr < a; });
        if (it == first.end() || it->addr != u.addr) continue;
        if (it->rep < u.rep && !accumulate_ok)
            failf("operand-overlap", file, line,
                  "%s: repeat %u of %s reads UB bytes [%llu, %llu) that repeat %u of dst wrote; a later repeat's "
                  "source must not overlap an earlier repeat's destination",
                  api, u.rep, role, ub(u.addr, s0, src.ub_offset()), ub(u.addr, s0, src.ub_offset()) + 32, it->rep);
        if (it->rep == u.rep && set_of(db, u.rep) != set_of(sb, u.rep))
            failf("operand-overlap", file, line,
                  "%s: in repeat %u dst and %s overlap partially (UB bytes [%llu, %llu) shared); within a repeat "
                  "source and destination may overlap only completely",
                  api, u.rep, role, ub(u.addr, s0, src.ub_offset()), ub(u.addr, s0, src.ub_offset()) + 32);
    }
}

template <class T>
inline bool accumulate_overlap_ok(const char* api, const BinaryRepeatParams& p) {
    static const char* const apis[] = {"Add", "Sub", "Mul", "Max", "Min", "AddRelu", "SubRelu"};
    constexpr bool type_ok = std::is_same_v<T, _Float16> || std::is_same_v<T, int32_t> || std::is_same_v<T, float>;
    if (!type_ok || (p.src1RepStride != 0 && p.dstRepStride != 0)) return false;
    for (const char* a : apis)
        if (std::strcmp(a, api) == 0) return true;
    return false;
}

template <class T>
inline void check_strided(const char* api, const char* role, const LocalTensor<T>& t, const Lanes& l, const Stride& s,
                          const char* file, int line) {
    check_vec_operand(api, role, t, extent(l, s), file, line);
}

inline void count_mask_repeats(const char* api, const Lanes& l) { count_repeats(api, l.repeats); }

template <class T, class Op>
inline void binary_mask(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& a, const LocalTensor<T>& b,
                        const Lanes& l, const BinaryRepeatParams& p, Op op, const char* file, int line) {
    Stride sd = stride_of<T>(p.dstBlkStride, p.dstRepStride), s0 = stride_of<T>(p.src0BlkStride, p.src0RepStride),
           s1 = stride_of<T>(p.src1BlkStride, p.src1RepStride);
    OverlapCheckedByEngine exact_below;
    check_strided(api, "dst", dst, l, sd, file, line);
    check_strided(api, "src0", a, l, s0, file, line);
    check_strided(api, "src1", b, l, s1, file, line);
    check_mask_overlap(api, dst, sd, "src0", a, s0, l, false, file, line);
    check_mask_overlap(api, dst, sd, "src1", b, s1, l, accumulate_overlap_ok<T>(api, p), file, line);
    count_mask_repeats(api, l);
    T* d = dst.data();
    const T *x = a.data(), *y = b.data();
    for_lanes(l, [&](uint32_t r, uint32_t k) { d[sd.at(r, k)] = narrow<T>(op(widen(x[s0.at(r, k)]), widen(y[s1.at(r, k)]))); });
}

template <class T, class Op>
inline void unary_mask(const char* api, const LocalTensor<T>& dst, const LocalTensor<T>& src, const Lanes& l,
                       const UnaryRepeatParams& p, Op op, const char* file, int line) {
    Stride sd = stride_of<T>(p.dstBlkStride, p.dstRepStride), ss = stride_of<T>(p.srcBlkStride, p.srcRepStride);
    OverlapCheckedByEngine exact_below;
    check_strided(api, "dst", dst, l, sd, file, line);
    check_strided(api, "src", src, l, ss, file, line);
    check_mask_overlap(api, dst, sd, "src", src, ss, l, false, file, line);
    count_mask_repeats(api, l);
    T* d = dst.data();
    const T* x = src.data();
    for_lanes(l, [&](uint32_t r, uint32_t k) { d[sd.at(r, k)] = narrow<T>(op(widen(x[ss.at(r, k)]))); });
}

template <class T>
constexpr uint32_t per_repeat() {
    return static_cast<uint32_t>(256 / sizeof(T));
}

}  // namespace kernelgen

// Stamps the three forms of a one-source API (count, count-mask + repeats, bit-mask + repeats).
#define KG_UNARY_API(NAME, OP)                                                                                     \
    template <class T, bool isReuseSource = false>                                                                \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, KG_LOC) {              \
        kernelgen::unary_count(#NAME, dst, src, count, OP, file, line);                                           \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, int64_t repeatTimes,   \
                     const UnaryRepeatParams& p, KG_LOC) {                                                         \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                     \
        kernelgen::unary_mask(#NAME, dst, src, l, p, OP, file, line);                                              \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                \
                     int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {                                    \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,   \
                                                file, line);                                                       \
        kernelgen::unary_mask(#NAME, dst, src, l, p, OP, file, line);                                              \
    }

// Stamps the three forms of a tensor-scalar API; the scalar is converted to T first.
#define KG_SCALAR_API(NAME, OPS)                                                                                   \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& scalar,      \
                     int64_t count, KG_LOC) {                                                                      \
        auto s = kernelgen::widen(static_cast<T>(scalar));                                                         \
        kernelgen::unary_count(#NAME, dst, src, count, OPS, file, line);                                           \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& scalar,      \
                     uint64_t mask, int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {                     \
        auto s = kernelgen::widen(static_cast<T>(scalar));                                                         \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                     \
        kernelgen::unary_mask(#NAME, dst, src, l, p, OPS, file, line);                                             \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::nd_t<T>& scalar,      \
                     const uint64_t mask[], int64_t repeatTimes, const UnaryRepeatParams& p, KG_LOC) {             \
        auto s = kernelgen::widen(static_cast<T>(scalar));                                                         \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,   \
                                                file, line);                                                       \
        kernelgen::unary_mask(#NAME, dst, src, l, p, OPS, file, line);                                             \
    }

// Stamps the three forms of a two-source API.
#define KG_BINARY_API(NAME, OP)                                                                                    \
    template <class T>                                                                                             \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     int64_t count, KG_LOC) {                                                                      \
        kernelgen::binary_count(#NAME, dst, src0, src1, count, OP, file, line);                                   \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     uint64_t mask, int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {                    \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                     \
        kernelgen::binary_mask(#NAME, dst, src0, src1, l, p, OP, file, line);                                      \
    }                                                                                                              \
    template <class T, bool isSetMask = true>                                                                      \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,          \
                     const uint64_t mask[], int64_t repeatTimes, const BinaryRepeatParams& p, KG_LOC) {            \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,   \
                                                file, line);                                                       \
        kernelgen::binary_mask(#NAME, dst, src0, src1, l, p, OP, file, line);                                      \
    }
