// Data movement: DataCopy (GM <-> UB/L1, UB -> UB; count and DataCopyParams forms, Nd2Nz; L1 -> C2
// in cube.h), DataCopyPad (unaligned GM <-> UB), atomic accumulation into GM.
#pragma once

#include "tensor.h"

namespace kernelgen {

using AscendC::TPosition;

inline bool is_l1_position(TPosition p) {
    return p == TPosition::A1 || p == TPosition::B1 || p == TPosition::C1 || p == TPosition::TSCM;
}

// The counter a GM -> on-chip copy adds to: GM -> L1 (the cube path's MTE2) or GM -> UB.
inline uint64_t& gm_in_counter(TPosition dst) {
    return is_l1_position(dst) ? counters().gm_to_l1_bytes : counters().gm_to_ub_bytes;
}

template <class T>
inline void check_local_side(const char* api, const char* role, const AscendC::LocalTensor<T>& t, bool to_gm, bool pad,
                             const char* file, int line) {
    using AscendC::position_name;
    if (!t.valid()) failf("queue-protocol", file, line, "%s: %s is a LocalTensor that holds no buffer", api, role);
    check_dtype_on_chip<T>(api, file, line);
    t.check_live(api, file, line);
    TPosition p = t.GetPosition();
    bool ok = to_gm ? (AscendC::is_ub_position(p) || p == TPosition::CO2)
                    : (AscendC::is_ub_position(p) || (!pad && is_l1_position(p)));
    if (!ok)
        failf("tensor-position", file, line, "%s: %s is in position %s; %s", api, role, position_name(p),
              to_gm ? "copies to GM come from UB (VECOUT)"
                    : (pad ? "DataCopyPad from GM targets UB" : "copies from GM target UB (or A1/B1 in L1)"));
    if (t.ub_offset() % 32 != 0)
        failf("ub-offset-align", file, line, "%s: %s starts at on-chip offset %llu, which is not 32-byte aligned", api, role,
              (unsigned long long)t.ub_offset());
}

inline void check_align32(const char* api, uint64_t bytes, uint64_t count, const char* tname, const char* file, int line) {
    if (bytes % 32 != 0)
        failf("datacopy-align", file, line,
              "%s: count %llu x sizeof(%s) = %llu bytes is not a multiple of 32 (the NPU drops the last %llu bytes); "
              "use DataCopyPad or pad the length",
              api, (unsigned long long)count, tname, (unsigned long long)bytes, (unsigned long long)(bytes % 32));
}

inline void check_block_count(const char* api, uint32_t blockCount, const char* file, int line) {
    if (blockCount > 4095)
        failf("datacopy-align", file, line, "%s: blockCount is %u, must be <= 4095", api, blockCount);
}

// GM buffers the kernel accumulated into, reported as `atomic_targets` ([[buffer, "add" | "max"
// | "min"], ...]): an output that comes back as poison after atomic writes was most likely pre-filled by
// its caller (at::zeros before SetAtomicAdd), which validate has to be told ([binding.initial]).
inline void note_atomic_target(const void* dst, AtomicMode m) {
    static std::vector<std::pair<std::string, AtomicMode>> seen;
    const GmAllocation* a = gm_find(dst);
    if (a == nullptr) return;
    for (const auto& [name, mode] : seen)
        if (name == a->name && mode == m) return;
    seen.emplace_back(a->name, m);
    std::string json = "[";
    for (size_t i = 0; i < seen.size(); ++i) {
        const char* mode = seen[i].second == AtomicMode::ADD ? "add" : seen[i].second == AtomicMode::MAX ? "max" : "min";
        json += std::string(i ? "," : "") + "[\"" + json_escape(seen[i].first) + "\",\"" + mode + "\"]";
    }
    report_set_field("atomic_targets", json + "]");
}

// Writes `n` elements to GM, honouring the atomic mode of SetAtomicAdd/Max/Min.
template <class T>
inline void gm_store(T* dst, const T* src, uint64_t n) {
    AtomicMode m = block().atomic;
    if (m == AtomicMode::NONE) {
        std::memmove(dst, src, n * sizeof(T));
        return;
    }
    note_atomic_target(dst, m);
    for (uint64_t i = 0; i < n; ++i) {
        auto a = widen(dst[i]);
        auto b = widen(src[i]);
        dst[i] = narrow<T>(m == AtomicMode::ADD ? a + b : m == AtomicMode::MAX ? (a > b ? a : b) : (a < b ? a : b));
    }
}

template <class T>
inline void check_local_need(const char* api, const char* role, const AscendC::LocalTensor<T>& t, uint64_t elems,
                             const char* file, int line) {
    if (elems > t.GetSize())
        past_tensor(t, elems, role_writes(role), file, line,
                    "%s: moves %llu elements through %s, a LocalTensor<%s> of %u elements", api,
                    (unsigned long long)elems, role, type_name<T>(), t.GetSize());
}

// The count form's checks on the UB side of a GM <-> UB DataCopy; returns the element count.
template <class T>
inline uint64_t check_gm_copy_count(const char* api, const char* role, const AscendC::LocalTensor<T>& t, int64_t count,
                                    bool to_gm, const char* file, int line) {
    check_count_nonneg(api, count, file, line);
    check_local_side(api, role, t, to_gm, false, file, line);
    uint64_t n = static_cast<uint64_t>(count);
    check_align32(api, n * sizeof(T), n, type_name<T>(), file, line);
    check_local_need(api, role, t, n, file, line);
    return n;
}

// Calls f(src offset, dst offset, length), all in elements, for each block of a DataCopyParams
// copy (blockLen and the strides count 32-byte blocks); returns the bytes moved.
template <class T, class F>
inline uint64_t for_each_copy_block(const AscendC::DataCopyParams& p, F&& f) {
    const uint64_t epb = 32 / sizeof(T), len = uint64_t(p.blockLen) * epb;
    for (uint32_t i = 0; i < p.blockCount; ++i)
        f(i * (len + uint64_t(p.srcStride) * epb), i * (len + uint64_t(p.dstStride) * epb), len);
    return uint64_t(p.blockCount) * len * sizeof(T);
}

// int4b_t copies move the packed bytes, two elements each (types.h). Each side must start on a
// byte: a view at an odd element offset has no address (a UB one fails the 32-byte rule, a GM one
// is past what a copy can name).
template <class L, class O>
inline void check_int4_starts(const char* api, const L& local, const O& other, const char* file, int line) {
    if (local.nibble())
        failf("ub-offset-align", file, line,
              "%s: a LocalTensor<int4b_t> view that starts in the middle of a byte (an odd offset); on-chip operands "
              "start on 32-byte boundaries (64 int4b_t elements)",
              api);
    if (other.nibble())
        failf(std::is_same_v<O, AscendC::LocalTensor<AscendC::int4b_t>> ? "ub-offset-align" : "param-range", file, line,
              "%s: a %s<int4b_t> view that starts in the middle of a byte (an odd offset); copies move whole bytes",
              api, std::is_same_v<O, AscendC::LocalTensor<AscendC::int4b_t>> ? "LocalTensor" : "GlobalTensor");
}

// The count form of an int4b_t copy: its bytes, count / 2, which must be whole 32-byte blocks
// (64 elements), as for any count-form DataCopy.
template <class L, class O>
inline int64_t int4_copy_bytes(const char* api, const L& local, const O& other, int64_t count, const char* file,
                               int line) {
    check_count_nonneg(api, count, file, line);
    check_int4_starts(api, local, other, file, line);
    if (count % 64 != 0)
        failf("datacopy-align", file, line,
              "%s: count %lld int4b_t elements = %lld%s bytes is not a multiple of 32 (64 elements); use "
              "DataCopyPad or pad the length",
              api, (long long)count, (long long)(count / 2), count % 2 ? ".5" : "");
    return count / 2;
}

}  // namespace kernelgen

namespace AscendC {

// ---------------------------------------------------------------- DataCopy, count form
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, int64_t count, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        const int64_t bytes = kernelgen::int4_copy_bytes("DataCopy(GM->UB)", dst, src, count, file, line);
        DataCopy(dst.bytes(), src.bytes(), bytes, file, line);
    } else {
        const char* api = "DataCopy(GM->UB)";
        uint64_t n = kernelgen::check_gm_copy_count(api, "dst", dst, count, false, file, line);
        kernelgen::RacingReads racing;
        src.check_access(api, 0, n, false, file, line, nullptr, false, &racing);
        kernelgen::pipe_model().access(kernelgen::Pipe::MTE2, api, dst.data(), n * sizeof(T), true, file, line);
        std::memmove(dst.data(), src.data(), n * sizeof(T));
        kernelgen::poison_racing(dst.data(), src.data(), n, racing);
        kernelgen::gm_in_counter(dst.GetPosition()) += n * sizeof(T);
    }
}

template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        const int64_t bytes = kernelgen::int4_copy_bytes("DataCopy(UB->GM)", src, dst, count, file, line);
        DataCopy(dst.bytes(), src.bytes(), bytes, file, line);
    } else {
        const char* api = "DataCopy(UB->GM)";
        uint64_t n = kernelgen::check_gm_copy_count(api, "src", src, count, true, file, line);
        dst.check_access(api, 0, n, true, file, line, src.data());
        kernelgen::pipe_model().access(kernelgen::Pipe::MTE3, api, src.data(), n * sizeof(T), false, file, line);
        kernelgen::gm_store(dst.data(), src.data(), n);
        kernelgen::counters().ub_to_gm_bytes += n * sizeof(T);
    }
}

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, int64_t count, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        const int64_t bytes = kernelgen::int4_copy_bytes("DataCopy(UB->UB)", dst, src, count, file, line);
        DataCopy(dst.bytes(), src.bytes(), bytes, file, line);
    } else {
        const char* api = "DataCopy(UB->UB)";
        kernelgen::check_count_nonneg(api, count, file, line);
        uint64_t n = static_cast<uint64_t>(count), bytes = n * sizeof(T);
        kernelgen::check_vec_operand(api, "src", src, n, file, line);
        kernelgen::check_local_need(api, "dst", dst, n, file, line);
        kernelgen::check_align32(api, bytes, n, kernelgen::type_name<T>(), file, line);
        kernelgen::pipe_model().access(kernelgen::Pipe::V, api, dst.data(), bytes, true, file, line);
        std::memmove(dst.data(), src.data(), bytes);
        kernelgen::counters().ub_to_ub_bytes += bytes;
    }
}

// ---------------------------------------------------------------- DataCopy, DataCopyParams form
// blockCount blocks of blockLen x 32 bytes; srcStride/dstStride: 32-byte blocks between blocks.
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        kernelgen::check_int4_starts("DataCopy(GM->UB, DataCopyParams)", dst, src, file, line);  // blocks of 32 bytes
        DataCopy(dst.bytes(), src.bytes(), p, file, line);
    } else {
        const char* api = "DataCopy(GM->UB, DataCopyParams)";
        kernelgen::check_block_count(api, p.blockCount, file, line);
        kernelgen::check_local_side(api, "dst", dst, false, false, file, line);
        kernelgen::gm_in_counter(dst.GetPosition()) += kernelgen::for_each_copy_block<T>(p, [&](uint64_t s, uint64_t d, uint64_t len) {
            kernelgen::check_local_need(api, "dst", dst, d + len, file, line);
            kernelgen::RacingReads racing;
            src.check_access(api, s, len, false, file, line, nullptr, false, &racing);
            kernelgen::pipe_model().access(kernelgen::Pipe::MTE2, api, dst.data() + d, len * sizeof(T), true, file, line);
            std::memmove(dst.data() + d, src.data() + s, len * sizeof(T));
            kernelgen::poison_racing(dst.data() + d, src.data() + s, len, racing);
        });
    }
}

template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        kernelgen::check_int4_starts("DataCopy(UB->GM, DataCopyParams)", src, dst, file, line);  // blocks of 32 bytes
        DataCopy(dst.bytes(), src.bytes(), p, file, line);
    } else {
        const char* api = "DataCopy(UB->GM, DataCopyParams)";
        kernelgen::check_block_count(api, p.blockCount, file, line);
        kernelgen::check_local_side(api, "src", src, true, false, file, line);
        kernelgen::counters().ub_to_gm_bytes += kernelgen::for_each_copy_block<T>(p, [&](uint64_t s, uint64_t d, uint64_t len) {
            kernelgen::check_local_need(api, "src", src, s + len, file, line);
            dst.check_access(api, d, len, true, file, line, src.data() + s);
            kernelgen::pipe_model().access(kernelgen::Pipe::MTE3, api, src.data() + s, len * sizeof(T), false, file, line);
            kernelgen::gm_store(dst.data() + d, src.data() + s, len);
        });
    }
}

namespace detail {
// L1 -> bias table (C2): with the rest of the cube path in cube.h.
template <class T, class U>
inline void l1_to_bias_table(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                             const char* file, int line);
}  // namespace detail

template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        kernelgen::check_int4_starts("DataCopy(UB->UB, DataCopyParams)", dst, src, file, line);  // blocks of 32 bytes
        DataCopy(dst.bytes(), src.bytes(), p, file, line);
    } else {
        if (dst.valid() && dst.GetPosition() == TPosition::C2) return detail::l1_to_bias_table(dst, src, p, file, line);
        const char* api = "DataCopy(UB->UB, DataCopyParams)";
        kernelgen::check_block_count(api, p.blockCount, file, line);
        kernelgen::check_vec_operand(api, "src", src, 0, file, line);
        kernelgen::counters().ub_to_ub_bytes += kernelgen::for_each_copy_block<T>(p, [&](uint64_t s, uint64_t d, uint64_t len) {
            kernelgen::check_local_need(api, "src", src, s + len, file, line);
            kernelgen::check_local_need(api, "dst", dst, d + len, file, line);
            kernelgen::pipe_model().access(kernelgen::Pipe::V, api, src.data() + s, len * sizeof(T), false, file, line);
            kernelgen::pipe_model().access(kernelgen::Pipe::V, api, dst.data() + d, len * sizeof(T), true, file, line);
            std::memmove(dst.data() + d, src.data() + s, len * sizeof(T));
        });
    }
}

// ND (row-major nValue x dValue, row stride srcDValue) -> Nz fractals of 32-byte columns.
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const Nd2NzParams& p, KG_LOC) {
    static_assert(!kernelgen::is_int4_v<T>, "DataCopy with Nd2NzParams of int4b_t is not emulated");
    const char* api = "DataCopy(GM->L1, Nd2NzParams)";
    kernelgen::check_local_side(api, "dst", dst, false, false, file, line);
    const uint64_t c0 = 32 / sizeof(T);
    uint64_t moved = 0;
    for (uint32_t m = 0; m < p.ndNum; ++m)
        for (uint32_t n = 0; n < p.nValue; ++n) {
            uint64_t s = uint64_t(m) * p.srcNdMatrixStride + uint64_t(n) * p.srcDValue;
            src.check_access(api, s, p.dValue, false, file, line);
            for (uint32_t d = 0; d < p.dValue; ++d) {
                uint64_t o = uint64_t(m) * p.dstNzMatrixStride + (d / c0) * p.dstNzC0Stride * c0 +
                             uint64_t(n) * p.dstNzNStride * c0 + d % c0;
                kernelgen::check_local_need(api, "dst", dst, o + 1, file, line);
                if (d % c0 == 0)  // one contiguous run of c0 elements per fractal column (PIPE_MTE2)
                    kernelgen::pipe_model().access(kernelgen::Pipe::MTE2, api, dst.data() + o,
                                                   std::min<uint64_t>(c0, p.dValue - d) * sizeof(T), true, file, line);
                dst.data()[o] = src.data()[s + d];
            }
            moved += p.dValue;
        }
    kernelgen::gm_in_counter(dst.GetPosition()) += moved * sizeof(T);
}

// ---------------------------------------------------------------- DataCopyPad
// GM rows of blockLen BYTES (GM stride in bytes) <-> UB rows padded to 32 bytes (UB stride in
// 32-byte blocks). Not on chips without the instruction (910, 310P).
namespace detail {

inline void check_pad_chip(const char* api, const char* file, int line) {
    if (!kernelgen::chip().has_datacopypad)
        kernelgen::failf("chip-support", file, line, "%s is not supported on %s; use DataCopy with 32-byte aligned lengths",
                         api, kernelgen::chip().name.c_str());
}

// PaddingMode::Compact (API reference, DataCopyPad: `template <typename T, PaddingMode mode =
// PaddingMode::Normal>`): UB rows packed back to back, blockLen bytes each, with no 32-byte
// padding between them (inferred from the mode's name and CANN's note that Compact allows
// 1-byte block lengths; the layout with a UB stride or side padding is not documented, so those
// stop with a message). A kernel that copies in and out Compact gets the rows Normal gives it.
inline void check_compact(const char* api, uint32_t ubStride, uint32_t left, uint32_t right, const char* file, int line) {
    if (ubStride != 0 || left != 0 || right != 0)
        kernelgen::failf("param-range", file, line,
                         "%s with PaddingMode::Compact and a UB stride (%u) or side padding (%u, %u) is not emulated: "
                         "that layout is not documented",
                         api, ubStride, left, right);
}

template <class T>
inline void pad_in(const LocalTensor<T>& dst, const GlobalTensor<T>& src, uint32_t blockCount, uint32_t blockLen,
                   uint32_t srcStride, uint32_t dstStride, bool isPad, uint32_t left, uint32_t right, T value,
                   const char* file, int line, bool compact = false) {
    const char* api = "DataCopyPad(GM->UB)";
    if (compact) check_compact(api, dstStride, left, right, file, line);
    check_pad_chip(api, file, line);
    kernelgen::check_block_count(api, blockCount, file, line);
    kernelgen::check_local_side(api, "dst", dst, false, true, file, line);
    if (left * sizeof(T) > 32 || right * sizeof(T) > 32)
        kernelgen::failf("param-range", file, line, "%s: leftPadding %u / rightPadding %u elements exceed 32 bytes", api,
                         left, right);
    if (blockLen % sizeof(T) != 0)
        kernelgen::failf("param-range", file, line, "%s: blockLen %u bytes is not a whole number of %s elements", api,
                         blockLen, kernelgen::type_name<T>());
    const uint64_t len = blockLen / sizeof(T);
    const uint64_t row = compact ? len : kernelgen::align_up((left + right) * sizeof(T) + blockLen, 32) / sizeof(T);
    const uint64_t ustride = row + uint64_t(dstStride) * (32 / sizeof(T));
    auto* gbase = reinterpret_cast<const uint8_t*>(src.data());
    for (uint32_t i = 0; i < blockCount; ++i) {
        uint64_t gbyte = uint64_t(i) * (blockLen + uint64_t(srcStride));
        uint64_t d = i * ustride;
        kernelgen::check_local_need(api, "dst", dst, d + row, file, line);
        if (gbyte % sizeof(T) != 0)
            kernelgen::failf("param-range", file, line, "%s: srcStride %u bytes leaves rows off the %s element grid", api,
                             srcStride, kernelgen::type_name<T>());
        kernelgen::RacingReads racing;
        src.check_access(api, gbyte / sizeof(T), len, false, file, line, nullptr, false, &racing);
        T* out = dst.data() + d;
        kernelgen::pipe_model().access(kernelgen::Pipe::MTE2, api, out, (isPad ? row : left + len) * sizeof(T), true, file,
                                       line);
        if (isPad) {
            for (uint32_t k = 0; k < left; ++k) out[k] = value;
            for (uint64_t k = left + len; k < row; ++k) out[k] = value;
        }
        std::memmove(out + left, gbase + gbyte, blockLen);
        kernelgen::poison_racing(out + left, src.data() + gbyte / sizeof(T), len, racing);
    }
    kernelgen::counters().gm_to_ub_bytes += uint64_t(blockCount) * blockLen;
}

template <class T>
inline void pad_out(const GlobalTensor<T>& dst, const LocalTensor<T>& src, uint32_t blockCount, uint32_t blockLen,
                    uint32_t srcStride, uint32_t dstStride, const char* file, int line, bool compact = false) {
    const char* api = "DataCopyPad(UB->GM)";
    if (compact) check_compact(api, srcStride, 0, 0, file, line);
    check_pad_chip(api, file, line);
    kernelgen::check_block_count(api, blockCount, file, line);
    kernelgen::check_local_side(api, "src", src, true, true, file, line);
    if (blockLen % sizeof(T) != 0)
        kernelgen::failf("param-range", file, line, "%s: blockLen %u bytes is not a whole number of %s elements", api,
                         blockLen, kernelgen::type_name<T>());
    const uint64_t len = blockLen / sizeof(T);
    const uint64_t ustride = compact ? len : (kernelgen::align_up(blockLen, 32) + uint64_t(srcStride) * 32) / sizeof(T);
    for (uint32_t i = 0; i < blockCount; ++i) {
        uint64_t gbyte = uint64_t(i) * (blockLen + uint64_t(dstStride));
        uint64_t s = i * ustride;
        kernelgen::check_local_need(api, "src", src, s + len, file, line);
        if (gbyte % sizeof(T) != 0)
            kernelgen::failf("param-range", file, line, "%s: dstStride %u bytes leaves rows off the %s element grid", api,
                             dstStride, kernelgen::type_name<T>());
        dst.check_access(api, gbyte / sizeof(T), len, true, file, line, src.data() + s);
        kernelgen::pipe_model().access(kernelgen::Pipe::MTE3, api, src.data() + s, len * sizeof(T), false, file, line);
        kernelgen::gm_store(dst.data() + gbyte / sizeof(T), src.data() + s, len);
    }
    kernelgen::counters().ub_to_gm_bytes += uint64_t(blockCount) * blockLen;
}

}  // namespace detail

namespace detail {
// DataCopyPad of int4b_t moves its bytes (blockLen and the GM strides are bytes already); the
// padding's element counts and value in nibbles are not documented for it, so a padded copy stops.
template <class L, class G>
inline void int4_pad_check(const char* api, const L& local, const G& gm, bool isPad, const char* file, int line) {
    kernelgen::check_int4_starts(api, local, gm, file, line);
    if (isPad)
        kernelgen::failf("param-range", file, line,
                         "%s: padding an int4b_t copy (isPad) is not emulated; copy the bytes as int8_t "
                         "(ReinterpretCast) with padding counted in bytes",
                         api);
}
}  // namespace detail

template <class T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyExtParams& p,
                        const DataCopyPadExtParams<kernelgen::nd_t<T>>& pad, KG_LOC) {
    constexpr bool compact = mode == PaddingMode::Compact;
    if constexpr (kernelgen::is_int4_v<T>) {
        detail::int4_pad_check("DataCopyPad(GM->UB)", dst, src, pad.isPad, file, line);
        detail::pad_in(dst.bytes(), src.bytes(), p.blockCount, p.blockLen, p.srcStride, p.dstStride, false, 0, 0,
                       int8_t(0), file, line, compact);
    } else {
        detail::pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
                       pad.rightPadding, pad.paddingValue, file, line, compact);
    }
}
template <class T>
inline void DataCopyPad(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                        const DataCopyPadParams& pad, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        detail::int4_pad_check("DataCopyPad(GM->UB)", dst, src, pad.isPad, file, line);
        detail::pad_in(dst.bytes(), src.bytes(), p.blockCount, p.blockLen, p.srcStride, p.dstStride, false, 0, 0,
                       int8_t(0), file, line);
    } else {
        detail::pad_in(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, pad.isPad, pad.leftPadding,
                       pad.rightPadding, static_cast<T>(pad.paddingValue), file, line);
    }
}
template <class T, PaddingMode mode = PaddingMode::Normal>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyExtParams& p, KG_LOC) {
    constexpr bool compact = mode == PaddingMode::Compact;
    if constexpr (kernelgen::is_int4_v<T>) {
        detail::int4_pad_check("DataCopyPad(UB->GM)", src, dst, false, file, line);
        detail::pad_out(dst.bytes(), src.bytes(), p.blockCount, p.blockLen, p.srcStride, p.dstStride, file, line,
                        compact);
    } else {
        detail::pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, file, line, compact);
    }
}
template <class T>
inline void DataCopyPad(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p, KG_LOC) {
    if constexpr (kernelgen::is_int4_v<T>) {
        detail::int4_pad_check("DataCopyPad(UB->GM)", src, dst, false, file, line);
        detail::pad_out(dst.bytes(), src.bytes(), p.blockCount, p.blockLen, p.srcStride, p.dstStride, file, line);
    } else {
        detail::pad_out(dst, src, p.blockCount, p.blockLen, p.srcStride, p.dstStride, file, line);
    }
}

// Fills `size` elements of GM with `value` (typically zeroing an output before atomic adds).
template <class T>
inline void InitGlobalMemory(const GlobalTensor<T>& gm, uint64_t size, const kernelgen::nd_t<T>& value, KG_LOC) {
    static_assert(!kernelgen::is_int4_v<T>, "InitGlobalMemory of int4b_t is not emulated (fill its bytes as int8_t)");
    T v = static_cast<T>(value);
    gm.check_access("InitGlobalMemory", 0, size, true, file, line, &v, true);
    for (uint64_t i = 0; i < size; ++i) gm.data()[i] = v;
    kernelgen::counters().ub_to_gm_bytes += size * sizeof(T);
}

// The API reference's other name for InitGlobalMemory ("Fill": same signature and constraints;
// Ascend/samples ReduceMin's kernel launch zeroes its output with it).
template <class T>
inline void Fill(const GlobalTensor<T>& gm, uint64_t size, const kernelgen::nd_t<T>& value, KG_LOC) {
    InitGlobalMemory(gm, size, value, file, line);
}

// DataCopy with enhanced parameters: the plain form copies as DataCopyParams does; CO1 -> CO2
// (L0C -> UB) in BLOCK_MODE_MATRIX moves whole 16x16 fractals; the other block modes,
// dequantisation and ReLU on the copy path are not emulated (a run that uses them stops).
namespace detail {
inline void check_plain_enhanced(const DataCopyEnhancedParams& e, const char* file, int line) {
    if (e.blockMode != BlockMode::BLOCK_MODE_NORMAL || e.deqScale != DeqScale::DEQ_NONE || e.isRelu)
        kernelgen::failf("param-range", file, line,
                         "DataCopy with DataCopyEnhancedParams: blockMode %d, deqScale %d, isRelu %d is not "
                         "emulated (only BLOCK_MODE_NORMAL, DEQ_NONE, no ReLU)",
                         int(e.blockMode), int(e.deqScale), int(e.isRelu));
}
}  // namespace detail
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e, KG_LOC) {
    detail::check_plain_enhanced(e, file, line);
    DataCopy(dst, src, p, file, line);
}
template <class T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e, KG_LOC) {
    detail::check_plain_enhanced(e, file, line);
    DataCopy(dst, src, p, file, line);
}
namespace detail {
// CO1 -> CO2 (L0C -> UB) with BLOCK_MODE_MATRIX, no dequantisation or ReLU. Units from the
// enhanced DataCopy reference (CANN 8.5.0, atlasascendc_api_07_0104, table "blockLen等参数单位"):
// blockLen and srcStride count 16x16 fractals (512 B for half/int16/uint16, 1024 B for
// float/int32/uint32), dstStride counts 32-byte blocks; the strides are gaps between blocks, as
// in DataCopyParams. The same page lists CO1 -> CO2 for the Atlas inference AI Core (310P) only:
// the path exists where cube and vector share a core, so split-core chips refuse it. The copy
// runs on the vector unit (PIPE_V; a CO1 queue's EnQue/DeQue is the M -> V flag pair).
template <class T>
inline void co1_to_co2(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                       const DataCopyEnhancedParams& e, const char* file, int line) {
    const char* api = "DataCopy(CO1->CO2, DataCopyEnhancedParams)";
    static_assert(sizeof(T) == 2 || sizeof(T) == 4, "CO1 -> CO2 copies 16- or 32-bit elements");
    if (kernelgen::chip().split_cores)
        kernelgen::failf("chip-support", file, line,
                         "%s: %s has no L0C -> UB path (cube and vector are separate cores); L0C results leave "
                         "through Fixpipe/DataCopy to GM",
                         api, kernelgen::chip().name.c_str());
    if (e.blockMode != BlockMode::BLOCK_MODE_MATRIX || e.deqScale != DeqScale::DEQ_NONE || e.isRelu)
        kernelgen::failf("param-range", file, line,
                         "%s: blockMode %d, deqScale %d, isRelu %d is not emulated (only BLOCK_MODE_MATRIX, "
                         "DEQ_NONE, no ReLU)",
                         api, int(e.blockMode), int(e.deqScale), int(e.isRelu));
    if (!src.valid() || !dst.valid())
        kernelgen::failf("queue-protocol", file, line, "%s: an operand is a LocalTensor that holds no buffer", api);
    src.check_live(api, file, line);
    dst.check_live(api, file, line);
    if (!AscendC::is_ub_position(dst.GetPosition()) && dst.GetPosition() != TPosition::CO2)
        kernelgen::failf("tensor-position", file, line, "%s: dst is in position %s; L0C results go to UB (CO2)", api,
                         AscendC::position_name(dst.GetPosition()));
    if (dst.ub_offset() % 32 != 0)
        kernelgen::failf("ub-offset-align", file, line, "%s: dst starts at on-chip offset %llu, not 32-byte aligned",
                         api, (unsigned long long)dst.ub_offset());
    kernelgen::check_block_count(api, p.blockCount, file, line);
    const uint64_t fractal = 16 * 16, per_block = 32 / sizeof(T), len = uint64_t(p.blockLen) * fractal;
    for (uint32_t i = 0; i < p.blockCount; ++i) {
        const uint64_t s = i * (len + uint64_t(p.srcStride) * fractal), d = i * (len + uint64_t(p.dstStride) * per_block);
        kernelgen::check_local_need(api, "src", src, s + len, file, line);
        kernelgen::check_local_need(api, "dst", dst, d + len, file, line);
        kernelgen::pipe_model().access(kernelgen::Pipe::V, api, src.data() + s, len * sizeof(T), false, file, line);
        kernelgen::pipe_model().access(kernelgen::Pipe::V, api, dst.data() + d, len * sizeof(T), true, file, line);
        std::memmove(dst.data() + d, src.data() + s, len * sizeof(T));
    }
    kernelgen::counters().ub_to_ub_bytes += uint64_t(p.blockCount) * len * sizeof(T);
}
}  // namespace detail
template <class T>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e, KG_LOC) {
    if (src.valid() && src.GetPosition() == TPosition::CO1) return detail::co1_to_co2(dst, src, p, e, file, line);
    detail::check_plain_enhanced(e, file, line);
    DataCopy(dst, src, p, file, line);
}

// Cache maintenance of GM data: every access goes straight to memory on the CPU.
template <class T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
template <class T, CacheLine entireType, DcciDst dcciDst>
inline void DataCacheCleanAndInvalid(const LocalTensor<T>&) {}
// The form without a destination (only GM coherence, API reference, atlasascendc_api_07_0177).
template <class T, CacheLine entireType>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}

// Loads instructions into the ICache ahead of use (API reference, ICachePreLoad): timing only.
inline void ICachePreLoad(const int64_t) {}

}  // namespace AscendC
