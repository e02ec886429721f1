// Reductions: ReduceSum/Max/Min (whole count -> dst[0], index in dst[1] as integer bits),
// WholeReduceSum/Max/Min and RepeatReduceSum (one result per repeat), PairReduceSum (one per lane pair),
// BlockReduceSum/Max/Min (one per 32-byte block), the high-level Sum over rows, and the pattern form of the
// high-level ReduceSum/Max/Min/Mean/Prod/All/Any (Pattern::Reduce::AR / RA over a 2-D shape). Sums accumulate in
// double and round once.
#pragma once

#include "vec_core.h"

namespace kernelgen {

enum class RedKind { SUM, MAX, MIN };

// Running reduction over values of T; `index` is the position of the first extreme value.
template <class T>
struct Reducer {
    RedKind kind;
    double sum = 0;
    acc_t<T> best{};
    uint64_t index = 0;
    bool any = false;
    void add(T v, uint64_t i) {
        acc_t<T> x = widen(v);
        if (kind == RedKind::SUM) {
            sum += static_cast<double>(x);
        } else if (!any || (kind == RedKind::MAX ? x > best : x < best)) {
            best = x;
            index = i;
        }
        any = true;
    }
    T value() const { return kind == RedKind::SUM ? narrow<T>(sum) : narrow<T>(best); }
};

// Stores an index in a T slot as the unsigned integer of T's width (read back with ReinterpretCast).
template <class T>
inline T index_bits(uint64_t i) {
    T out;
    if constexpr (sizeof(T) == 2) {
        uint16_t v = static_cast<uint16_t>(i);
        std::memcpy(&out, &v, 2);
    } else if constexpr (sizeof(T) == 4) {
        uint32_t v = static_cast<uint32_t>(i);
        std::memcpy(&out, &v, 4);
    } else {
        out = static_cast<T>(i);
    }
    return out;
}

template <class T>
inline void reduce_count(const char* api, RedKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const LocalTensor<T>& tmp, int64_t count, bool calIndex, const char* file, int line) {
    if (count < 1) failf("param-range", file, line, "%s: count is %lld, must be >= 1", api, (long long)count);
    uint64_t n = static_cast<uint64_t>(count);
    check_vec_operand(api, "src", src, n, file, line);
    check_vec_operand(api, "dst", dst, calIndex ? 2 : 1, file, line, sizeof(T));
    if (tmp.valid()) {
        // The work area the API reference gives (as a code comment) for the count form: one
        // partial per started 256-byte repeat (firstMaxRepeat), rounded up to a 32-byte block.
        // ReduceMax/ReduceMin with calIndex need more; this is the floor for all three.
        const uint64_t per_repeat = 256 / sizeof(T), per_block = 32 / sizeof(T);
        uint64_t need = align_up(ceil_div(n, per_repeat), per_block);
        if (tmp.GetSize() < need)
            failf("workspace-size", file, line,
                  "%s over %llu elements needs a sharedTmpBuffer of at least %llu %s elements (one per 256-byte "
                  "repeat, rounded up to 32 bytes); the one passed holds %u",
                  api, (unsigned long long)n, (unsigned long long)need, type_name<T>(), tmp.GetSize());
        check_vec_operand(api, "sharedTmpBuffer", tmp, need, file, line);  // the part it works in
    }
    count_bytes_as_repeats(api, n * sizeof(T));
    Reducer<T> red{kind};
    for (uint64_t i = 0; i < n; ++i) red.add(src.data()[i], i);
    dst.data()[0] = red.value();
    if (calIndex) dst.data()[1] = index_bits<T>(red.index);
}

}  // namespace kernelgen

namespace AscendC {

// Reduce patterns of the high-level reductions (API reference, ReduceSum and its siblings,
// template parameter `pattern`): A a kept (Normal) axis, R a reduced one, one letter per
// dimension. The reference documents AR (reduce the last of two dimensions) and RA (the first).
namespace Pattern {
namespace Reduce {
struct AR {};
struct RA {};
}  // namespace Reduce
}  // namespace Pattern

}  // namespace AscendC

namespace kernelgen {

enum class PatternOp { SUM, MAX, MIN, MEAN, PROD, ALL, ANY };

// The pattern form: src holds a (srcShape[0], srcShape[1]) matrix whose rows are padded in UB to
// 32 bytes (srcInnerPad, the only value Atlas A2/A3 take), so row i starts at i * align_up(
// srcShape[1], 32 / sizeof(T)); srcShape is the part computed. AR reduces each row into
// dst[0 .. srcShape[0]), RA each column into dst[0 .. srcShape[1]). `types` lists the element
// types the API's page documents on Atlas A2/A3 (the only chips it names).
template <class T, class pattern>
inline void reduce_pattern(const char* api, PatternOp op, const char* types, const AscendC::LocalTensor<T>& dst,
                           const AscendC::LocalTensor<T>& src, const AscendC::LocalTensor<uint8_t>* tmp,
                           const uint32_t srcShape[], bool srcInnerPad, const char* file, int line) {
    constexpr bool is_ar = std::is_same_v<pattern, AscendC::Pattern::Reduce::AR>;
    static_assert(is_ar || std::is_same_v<pattern, AscendC::Pattern::Reduce::RA>,
                  "the pattern reductions take AscendC::Pattern::Reduce::AR or AscendC::Pattern::Reduce::RA only");
    if (chip().cce_aicore != 220)
        failf("chip-support", file, line,
              "%s with a Pattern::Reduce pattern is documented for Atlas A2/A3 only (API reference), not %s", api,
              chip().name.c_str());
    if (!has_word(types, type_name<T>()))
        failf("dtype-support", file, line,
              "%s (pattern form) has no %s form on %s: the documented element types are%s(the NPU build fails)", api,
              type_name<T>(), chip().name.c_str(), types);
    if (srcShape == nullptr) failf("param-range", file, line, "%s: srcShape is a null pointer", api);
    const uint64_t rows = srcShape[0], cols = srcShape[1];
    if (rows == 0 || cols == 0)
        failf("param-range", file, line, "%s: srcShape is [%llu, %llu]; both dimensions must be at least 1", api,
              (unsigned long long)rows, (unsigned long long)cols);
    const uint64_t stride = align_up(cols, 32 / sizeof(T));
    // Rows of a whole number of 32-byte blocks are laid out the same padded or not, so there the
    // flag the chip does not take cannot change what is read (RecSDK in_linear_silu_backward,
    // whose K split keeps rows aligned, runs on the NPU with false).
    if (!srcInnerPad && stride != cols)
        failf("param-range", file, line,
              "%s: srcInnerPad = false with rows of %llu elements (not a whole number of 32-byte blocks); on %s the "
              "API reference supports only true (each row of src padded to 32 bytes in UB; srcShape gives the "
              "elements computed)",
              api, (unsigned long long)cols, chip().name.c_str());
    if (!srcInnerPad)
        warn("param-range",
             std::string(api) + ": srcInnerPad = false, which the API reference does not support on " + chip().name +
                 "; the rows here are whole 32-byte blocks, so padded and unpadded rows are the same layout",
             file, line);
    const uint64_t src_need = (rows - 1) * stride + cols, dst_need = is_ar ? rows : cols;
    check_vec_operand(api, "srcTensor", src, src_need, file, line);
    check_vec_operand(api, "dstTensor", dst, dst_need, file, line);
    // (a uint8_t work area: not the T-typed sharedTmpBuffer whose types the count form documents)
    if (tmp) check_vec_operand(api, "sharedTmpBuffer (uint8_t)", *tmp, 0, file, line);
    // Address overlap (constraints): none at all between src and dst, nor of sharedTmpBuffer
    // with either (the in-place start the basic APIs allow is not allowed here).
    auto overlaps = [](const void* a, uint64_t an, const void* b, uint64_t bn) {
        auto pa = reinterpret_cast<uintptr_t>(a), pb = reinterpret_cast<uintptr_t>(b);
        return an && bn && pa < pb + bn && pb < pa + an;
    };
    if (overlaps(src.data(), src_need * sizeof(T), dst.data(), dst_need * sizeof(T)))
        failf("operand-overlap", file, line,
              "%s: dst (UB offset %llu) overlaps src (UB offset %llu); the API reference does not allow the source and "
              "destination to overlap",
              api, (unsigned long long)dst.ub_offset(), (unsigned long long)src.ub_offset());
    if (tmp && tmp->valid()) {
        const uint64_t tn = tmp->GetSize();
        if (overlaps(tmp->data(), tn, src.data(), src_need * sizeof(T)) ||
            overlaps(tmp->data(), tn, dst.data(), dst_need * sizeof(T)))
            failf("operand-overlap", file, line,
                  "%s: sharedTmpBuffer (UB offset %llu, %llu bytes) overlaps src or dst; the API reference does not "
                  "allow it",
                  api, (unsigned long long)tmp->ub_offset(), (unsigned long long)tn);
    }
    count_bytes_as_repeats(api, rows * stride * sizeof(T));
    const uint64_t outer = is_ar ? rows : cols, inner = is_ar ? cols : rows;
    const T* s = src.data();
    bool outside01 = false;
    std::vector<T> out(outer);
    for (uint64_t a = 0; a < outer; ++a) {
        double acc = op == PatternOp::PROD ? 1.0 : 0.0;
        for (uint64_t r = 0; r < inner; ++r) {
            const T v = is_ar ? s[a * stride + r] : s[r * stride + a];
            const double x = static_cast<double>(widen(v));
            if ((op == PatternOp::ALL || op == PatternOp::ANY) && x != 0.0 && x != 1.0) outside01 = true;
            switch (op) {
                case PatternOp::SUM:
                case PatternOp::MEAN: acc += x; break;
                case PatternOp::PROD: acc *= x; break;
                case PatternOp::MAX:
                case PatternOp::ANY: acc = (r == 0 || x > acc) ? x : acc; break;
                case PatternOp::MIN:
                case PatternOp::ALL: acc = (r == 0 || x < acc) ? x : acc; break;
            }
        }
        if (op == PatternOp::MEAN) acc /= static_cast<double>(inner);
        if (op == PatternOp::MAX || op == PatternOp::MIN) {
            // extremes are exact: keep the element itself (no double round trip for half)
            const uint64_t first = is_ar ? a * stride : a;
            T best = s[first];
            for (uint64_t r = 1; r < inner; ++r) {
                const T v = is_ar ? s[a * stride + r] : s[r * stride + a];
                if (op == PatternOp::MAX ? widen(v) > widen(best) : widen(v) < widen(best)) best = v;
            }
            out[a] = best;
        } else {
            out[a] = narrow<T>(acc);
        }
    }
    if (outside01)
        warn("param-range",
             std::string(api) + ": src holds values other than 0 and 1; the API reference allows only 0 or 1, and the "
             "NPU result for others is not documented (the emulator gives the " + (op == PatternOp::ALL ? "minimum)" : "maximum)"),
             file, line);
    std::copy(out.begin(), out.end(), dst.data());
}

}  // namespace kernelgen

namespace AscendC {

#define KG_PATTERN_REDUCE(NAME, OP, TYPES)                                                                           \
    template <class T, class pattern, bool isReuseSource = false>                                                    \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                               \
                     const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad,       \
                     KG_LOC) {                                                                                       \
        kernelgen::reduce_pattern<T, pattern>(#NAME, OP, TYPES, dstTensor, srcTensor, &sharedTmpBuffer, srcShape,    \
                                              srcInnerPad, file, line);                                              \
    }                                                                                                                \
    template <class T, class pattern, bool isReuseSource = false>                                                    \
    inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const uint32_t srcShape[],    \
                     bool srcInnerPad, KG_LOC) {                                                                     \
        kernelgen::reduce_pattern<T, pattern>(#NAME, OP, TYPES, dstTensor, srcTensor, nullptr, srcShape,             \
                                              srcInnerPad, file, line);                                              \
    }
// Element types per page, Atlas A2/A3 (atlasascendc_api_07_10017 ReduceSum and its siblings).
KG_PATTERN_REDUCE(ReduceSum, kernelgen::PatternOp::SUM, " float ")
KG_PATTERN_REDUCE(ReduceMean, kernelgen::PatternOp::MEAN, " float ")
KG_PATTERN_REDUCE(ReduceProd, kernelgen::PatternOp::PROD, " float ")
KG_PATTERN_REDUCE(ReduceMax, kernelgen::PatternOp::MAX, " half float ")
KG_PATTERN_REDUCE(ReduceMin, kernelgen::PatternOp::MIN, " half float ")
KG_PATTERN_REDUCE(ReduceAll, kernelgen::PatternOp::ALL, " uint8_t float ")
KG_PATTERN_REDUCE(ReduceAny, kernelgen::PatternOp::ANY, " uint8_t float ")
#undef KG_PATTERN_REDUCE

template <class T, bool isSetMask = true>  // isSetMask: the count form sets its own mask
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      int64_t count, KG_LOC) {
    kernelgen::reduce_count("ReduceSum", kernelgen::RedKind::SUM, dst, src, sharedTmpBuffer, count, false, file, line);
}
template <class T, bool isSetMask = true>  // isSetMask: the count form sets its own mask
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      int64_t count, bool calIndex = false, KG_LOC) {
    kernelgen::reduce_count("ReduceMax", kernelgen::RedKind::MAX, dst, src, sharedTmpBuffer, count, calIndex, file, line);
}
template <class T, bool isSetMask = true>  // isSetMask: the count form sets its own mask
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>& sharedTmpBuffer,
                      int64_t count, bool calIndex = false, KG_LOC) {
    kernelgen::reduce_count("ReduceMin", kernelgen::RedKind::MIN, dst, src, sharedTmpBuffer, count, calIndex, file, line);
}

namespace detail {
// Mask form of ReduceSum/Max/Min: all active lanes of all repeats -> dst[0] (index in dst[1]).
template <class T>
inline void reduce_mask(const char* api, kernelgen::RedKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                        const kernelgen::Lanes& l, uint32_t srcRepStride, bool calIndex, const char* file, int line) {
    auto ss = kernelgen::stride_of<T>(1, srcRepStride);
    kernelgen::check_strided(api, "src", src, l, ss, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, calIndex ? 2 : 1, file, line, sizeof(T));
    kernelgen::count_mask_repeats(api, l);
    kernelgen::Reducer<T> red{kind};
    kernelgen::for_lanes(l, [&](uint32_t r, uint32_t k) { red.add(src.data()[ss.at(r, k)], ss.at(r, k)); });
    dst.data()[0] = red.value();
    if (calIndex) dst.data()[1] = kernelgen::index_bits<T>(red.index);
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, uint64_t mask,
                      int64_t repeatTimes, int32_t srcRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("ReduceSum", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceSum", kernelgen::RedKind::SUM, dst, src, l, srcRepStride, false, file, line);
}
template <class T, bool isSetMask = true>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, uint64_t mask,
                      int64_t repeatTimes, int32_t srcRepStride, bool calIndex = false, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("ReduceMax", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceMax", kernelgen::RedKind::MAX, dst, src, l, srcRepStride, calIndex, file, line);
}
template <class T, bool isSetMask = true>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, uint64_t mask,
                      int64_t repeatTimes, int32_t srcRepStride, bool calIndex = false, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("ReduceMin", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceMin", kernelgen::RedKind::MIN, dst, src, l, srcRepStride, calIndex, file, line);
}

// The bit-mask forms (mask[2]: lanes 0-63 and 64-127 of each repeat; API reference, ReduceSum /
// ReduceMax / ReduceMin, "mask bit mode").
template <class T, bool isSetMask = true>
inline void ReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, const uint64_t mask[2],
                      int64_t repeatTimes, int32_t srcRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("ReduceSum", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceSum", kernelgen::RedKind::SUM, dst, src, l, srcRepStride, false, file, line);
}
template <class T, bool isSetMask = true>
inline void ReduceMax(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, const uint64_t mask[2],
                      int64_t repeatTimes, int32_t srcRepStride, bool calIndex = false, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("ReduceMax", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceMax", kernelgen::RedKind::MAX, dst, src, l, srcRepStride, calIndex, file, line);
}
template <class T, bool isSetMask = true>
inline void ReduceMin(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<T>&, const uint64_t mask[2],
                      int64_t repeatTimes, int32_t srcRepStride, bool calIndex = false, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("ReduceMin", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::reduce_mask("ReduceMin", kernelgen::RedKind::MIN, dst, src, l, srcRepStride, calIndex, file, line);
}

// ---------------------------------------------------------------- WholeReduce
namespace detail {
// Repeat r's result goes to dst at r * dstRepStride units; a unit is the size of one result
// (value+index pair = 2 elements; value only = 1 element; index only = one uint32).
template <class T>
inline void whole_reduce(const char* api, kernelgen::RedKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const kernelgen::Lanes& l, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                         ReduceOrder order, const char* file, int line) {
    auto ss = kernelgen::stride_of<T>(static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride));
    kernelgen::check_strided(api, "src", src, l, ss, file, line);
    bool pair = kind != kernelgen::RedKind::SUM &&
                (order == ReduceOrder::ORDER_VALUE_INDEX || order == ReduceOrder::ORDER_INDEX_VALUE);
    bool only_index = kind != kernelgen::RedKind::SUM && order == ReduceOrder::ORDER_ONLY_INDEX;
    uint64_t unit = only_index ? 4 / sizeof(T) : (pair ? 2 : 1);
    if (unit == 0) unit = 1;
    uint64_t need = l.repeats ? (uint64_t(l.repeats) - 1) * uint64_t(dstRepStride) * unit + (pair ? 2 : unit) : 0;
    kernelgen::check_vec_operand(api, "dst", dst, need, file, line, sizeof(T));
    kernelgen::count_mask_repeats(api, l);
    for (uint32_t r = 0; r < l.repeats; ++r) {
        kernelgen::Reducer<T> red{kind};
        for (uint32_t k = 0; k < l.per_repeat; ++k)
            if (l.active(r, k)) red.add(src.data()[ss.at(r, k)], k);
        if (!red.any) continue;
        T* out = dst.data() + uint64_t(r) * uint64_t(dstRepStride) * unit;
        if (only_index) {
            uint32_t idx = static_cast<uint32_t>(red.index);
            std::memcpy(out, &idx, 4);
        } else if (!pair) {
            out[0] = red.value();
        } else if (order == ReduceOrder::ORDER_VALUE_INDEX) {
            out[0] = red.value();
            out[1] = kernelgen::index_bits<T>(red.index);
        } else {
            out[0] = kernelgen::index_bits<T>(red.index);
            out[1] = red.value();
        }
    }
}
}  // namespace detail

#define KG_WHOLE_REDUCE(NAME, KIND, ORDER_PARAM, ORDER_ARG)                                                         \
    template <class T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask, int64_t repeatTimes,    \
                     int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride ORDER_PARAM, KG_LOC) {       \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                      \
        detail::whole_reduce(#NAME, KIND, dst, src, l, dstRepStride, srcBlkStride, srcRepStride, ORDER_ARG, file,   \
                             line);                                                                                 \
    }                                                                                                               \
    template <class T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],                 \
                     int64_t repeatTimes, int32_t dstRepStride, int32_t srcBlkStride,                              \
                     int32_t srcRepStride ORDER_PARAM, KG_LOC) {                                                    \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,    \
                                                file, line);                                                        \
        detail::whole_reduce(#NAME, KIND, dst, src, l, dstRepStride, srcBlkStride, srcRepStride, ORDER_ARG, file,   \
                             line);                                                                                 \
    }

#define KG_COMMA ,
KG_WHOLE_REDUCE(WholeReduceSum, kernelgen::RedKind::SUM, , ReduceOrder::ORDER_ONLY_VALUE)
KG_WHOLE_REDUCE(WholeReduceMax, kernelgen::RedKind::MAX, KG_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
KG_WHOLE_REDUCE(WholeReduceMin, kernelgen::RedKind::MIN, KG_COMMA ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX, order)
#undef KG_WHOLE_REDUCE

// RepeatReduceSum: WholeReduceSum's count-mask form (the API reference: "compared with
// WholeReduceSum, it does not support the bitwise mask mode"); mask lanes of each repeat (1 to
// 256 / sizeof(T)) sum into dst at r * dstRepStride results; dstBlkStride is unused.
template <class T, bool isSetMask = true>
inline void RepeatReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t repeatTime,
                            const int32_t mask, const int32_t dstBlkStride, const int32_t srcBlkStride,
                            const int32_t dstRepStride, const int32_t srcRepStride, KG_LOC) {
    (void)dstBlkStride;
    auto l = kernelgen::lanes_from_count_mask("RepeatReduceSum", static_cast<uint64_t>(static_cast<uint32_t>(mask)),
                                              repeatTime, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::whole_reduce("RepeatReduceSum", kernelgen::RedKind::SUM, dst, src, l, dstRepStride, srcBlkStride,
                         srcRepStride, ReduceOrder::ORDER_ONLY_VALUE, file, line);
}

// ---------------------------------------------------------------- BlockReduce
namespace detail {
// Each repeat yields 8 results (one per 32-byte block), written at r * dstRepStride * 8 elements.
template <class T>
inline void block_reduce(const char* api, kernelgen::RedKind kind, const LocalTensor<T>& dst, const LocalTensor<T>& src,
                         const kernelgen::Lanes& l, int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,
                         const char* file, int line) {
    auto ss = kernelgen::stride_of<T>(static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride));
    kernelgen::check_strided(api, "src", src, l, ss, file, line);
    uint64_t need = l.repeats ? (uint64_t(l.repeats) - 1) * uint64_t(dstRepStride) * 8 + 8 : 0;
    kernelgen::check_vec_operand(api, "dst", dst, need, file, line, sizeof(T));
    kernelgen::count_mask_repeats(api, l);
    const uint32_t epb = ss.epb;
    for (uint32_t r = 0; r < l.repeats; ++r)
        for (uint32_t b = 0; b < 8; ++b) {
            kernelgen::Reducer<T> red{kind};
            for (uint32_t k = b * epb; k < (b + 1) * epb && k < l.per_repeat; ++k)
                if (l.active(r, k)) red.add(src.data()[ss.at(r, k)], k);
            if (red.any) dst.data()[uint64_t(r) * uint64_t(dstRepStride) * 8 + b] = red.value();
        }
}
}  // namespace detail

#define KG_BLOCK_REDUCE(NAME, KIND)                                                                                 \
    template <class T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t repeatTimes, uint64_t mask,    \
                     int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, KG_LOC) {                   \
        auto l = kernelgen::lanes_from_count_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, \
                                                  file, line);                                                      \
        detail::block_reduce(#NAME, KIND, dst, src, l, dstRepStride, srcBlkStride, srcRepStride, file, line);       \
    }                                                                                                               \
    template <class T, bool isSetMask = true>                                                                       \
    inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t repeatTimes,                   \
                     const uint64_t mask[], int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride,      \
                     KG_LOC) {                                                                                      \
        auto l = kernelgen::lanes_from_bit_mask(#NAME, mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask,    \
                                                file, line);                                                        \
        detail::block_reduce(#NAME, KIND, dst, src, l, dstRepStride, srcBlkStride, srcRepStride, file, line);       \
    }
KG_BLOCK_REDUCE(BlockReduceSum, kernelgen::RedKind::SUM)
KG_BLOCK_REDUCE(BlockReduceMax, kernelgen::RedKind::MAX)
KG_BLOCK_REDUCE(BlockReduceMin, kernelgen::RedKind::MIN)
#undef KG_BLOCK_REDUCE

// ---------------------------------------------------------------- PairReduceSum
namespace detail {
// Each repeat sums adjacent (even, odd) lanes: per_repeat / 2 results written contiguously at
// r * dstRepStride * (per_repeat / 2) elements (the stride unit is half a repeat, 128 bytes).
template <class T>
inline void pair_reduce(const LocalTensor<T>& dst, const LocalTensor<T>& src, const kernelgen::Lanes& l, int32_t dstRepStride,
                        int32_t srcBlkStride, int32_t srcRepStride, const char* file, int line) {
    const char* api = "PairReduceSum";
    auto ss = kernelgen::stride_of<T>(static_cast<uint32_t>(srcBlkStride), static_cast<uint32_t>(srcRepStride));
    kernelgen::check_strided(api, "src", src, l, ss, file, line);
    const uint64_t half = l.per_repeat / 2;
    uint64_t need = l.repeats ? (uint64_t(l.repeats) - 1) * uint64_t(dstRepStride) * half + half : 0;
    kernelgen::check_vec_operand(api, "dst", dst, need, file, line);
    kernelgen::count_mask_repeats(api, l);
    for (uint32_t r = 0; r < l.repeats; ++r)
        for (uint32_t p = 0; p < half; ++p) {
            kernelgen::Reducer<T> red{kernelgen::RedKind::SUM};
            for (uint32_t k = 2 * p; k < 2 * p + 2; ++k)
                if (l.active(r, k)) red.add(src.data()[ss.at(r, k)], k);
            if (red.any) dst.data()[uint64_t(r) * uint64_t(dstRepStride) * half + p] = red.value();
        }
}
}  // namespace detail

template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t repeatTimes, int32_t mask,
                          int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_count_mask("PairReduceSum", static_cast<uint64_t>(mask), repeatTimes, kernelgen::per_repeat<T>(),
                                              isSetMask, file, line);
    detail::pair_reduce(dst, src, l, dstRepStride, srcBlkStride, srcRepStride, file, line);
}
template <class T, bool isSetMask = true>
inline void PairReduceSum(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t repeatTimes, const uint64_t mask[],
                          int32_t dstRepStride, int32_t srcBlkStride, int32_t srcRepStride, KG_LOC) {
    auto l = kernelgen::lanes_from_bit_mask("PairReduceSum", mask, repeatTimes, kernelgen::per_repeat<T>(), isSetMask, file, line);
    detail::pair_reduce(dst, src, l, dstRepStride, srcBlkStride, srcRepStride, file, line);
}

// ---------------------------------------------------------------- Sum (high level)
struct SumParams {
    uint32_t outter = 1;  // rows
    uint32_t inner = 0;   // row length in elements (32-byte padded)
    uint32_t n = 0;       // valid elements per row
};

template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>& sharedTmpBuffer,
                const SumParams& p, KG_LOC) {
    (void)sharedTmpBuffer;
    const char* api = "Sum";
    if (p.n > p.inner)
        kernelgen::failf("param-range", file, line, "Sum: n (%u) exceeds inner (%u)", p.n, p.inner);
    kernelgen::check_vec_operand(api, "src", src, uint64_t(p.outter) * p.inner, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, p.outter, file, line, sizeof(T));
    kernelgen::count_bytes_as_repeats(api, uint64_t(p.outter) * p.inner * sizeof(T));
    for (uint32_t o = 0; o < p.outter; ++o) {
        kernelgen::Reducer<T> red{kernelgen::RedKind::SUM};
        for (uint32_t i = 0; i < p.n; ++i) red.add(src.data()[uint64_t(o) * p.inner + i], i);
        dst.data()[o] = red.value();
    }
}
template <class T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
inline void Sum(const LocalTensor<T>& dst, const LocalTensor<T>& src, const SumParams& p, KG_LOC) {
    Sum<T, reduceDim, isReuseSource, isBasicBlock>(dst, src, LocalTensor<uint8_t>(), p, file, line);
}

// Mean over rows: like Sum, divided by n (the valid elements per row).
struct MeanParams {
    uint32_t outter = 1, inner = 0, n = 0;
};

template <class T, class accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint8_t>&, const MeanParams& p,
                 KG_LOC) {
    const char* api = "Mean";
    if (p.n == 0 || p.n > p.inner)
        kernelgen::failf("param-range", file, line, "Mean: n (%u) must be in [1, inner (%u)]", p.n, p.inner);
    kernelgen::check_vec_operand(api, "src", src, uint64_t(p.outter) * p.inner, file, line);
    kernelgen::check_vec_operand(api, "dst", dst, p.outter, file, line, sizeof(T));
    kernelgen::count_bytes_as_repeats(api, uint64_t(p.outter) * p.inner * sizeof(T));
    for (uint32_t o = 0; o < p.outter; ++o) {
        double sum = 0;
        for (uint32_t i = 0; i < p.n; ++i) sum += static_cast<double>(kernelgen::widen(src.data()[uint64_t(o) * p.inner + i]));
        dst.data()[o] = kernelgen::narrow<T>(sum / p.n);
    }
}
template <class T, class accType = T, bool isReuseSource = false, bool isBasicBlock = false, int32_t reduceDim = -1>
inline void Mean(const LocalTensor<T>& dst, const LocalTensor<T>& src, const MeanParams& p, KG_LOC) {
    Mean<T, accType, isReuseSource, isBasicBlock, reduceDim>(dst, src, LocalTensor<uint8_t>(), p, file, line);
}

}  // namespace AscendC
