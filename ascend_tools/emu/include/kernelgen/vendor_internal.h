// Helpers that CANN's kernel_operator.h brings in from internal headers but the AscendC API
// reference does not document (ascend_tools/catalog/tables/vendor_internal.json lists them with
// where they come from). Real kernels call them unqualified and they compile on every CANN
// release users have, so the emulator provides them; lint reports each use (`vendor-internal`),
// since a later release may change or drop them. These are our own one-line definitions of the
// plain semantics (the table's `replacement`), not the vendor's code.
//
// A project may define the same names itself, before or after including kernel_operator.h:
// - the function names are declared in parentheses, so a function-like macro of that name does
//   not expand inside this header;
// - each takes two independent integer types, so a project's own `T DivCeil(T, T)` (a template
//   in its namespace or at global scope, or a plain function) is more specialised and wins
//   overload resolution instead of colliding with this one;
// - likely/unlikely are defined only if the project has not defined them first.
#pragma once

#include <cstdint>
#include <type_traits>

#include "copy.h"
#include "sync.h"
#include "types.h"

namespace AscendC {

// Integer ceil(a / b), the scalar two-argument Ceil, DivCeil and AlignUp: (a + b - 1) / b in the
// common type of a and b. b must not be 0 (as on the NPU, where it is a division by zero).
template <class T, class U, class = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
__aicore__ inline constexpr auto(DivCeil)(T a, U b) -> std::common_type_t<T, U> {
    using R = std::common_type_t<T, U>;
    return (static_cast<R>(a) + static_cast<R>(b) - 1) / static_cast<R>(b);
}

// Two-argument scalar Ceil: the documented Ceil is the vector API Ceil(dst, src, [tmp,] count),
// which always takes tensors, so the two overload sets do not meet.
template <class T, class U, class = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
__aicore__ inline constexpr auto(Ceil)(T a, U b) -> std::common_type_t<T, U> {
    return (DivCeil)(a, b);
}

// a rounded up to a multiple of b.
template <class T, class U, class = std::enable_if_t<std::is_integral_v<T> && std::is_integral_v<U>>>
__aicore__ inline constexpr auto(AlignUp)(T a, U b) -> std::common_type_t<T, U> {
    return (DivCeil)(a, b) * static_cast<std::common_type_t<T, U>>(b);
}

// Early (CANN 6.x) samples: this core's part of a GM parameter split evenly over cores, n
// elements of T each (what later samples write as x + GetBlockIdx() * n).
template <class T>
__aicore__ inline auto(ParamOffset)(GM_ADDR p, uint32_t n) -> GM_ADDR {
    return p + static_cast<uint64_t>(GetBlockIdx()) * n * sizeof(T);
}

// The older name of the documented InitGlobalMemory(gm, size, value): the same fill of `size`
// elements of GM with `value` (the reference's InitGlobalMemory example still names its class
// KernelInitOutput; DrivingSDK kernels call InitOutput and build on CANN). Parenthesised like the
// names above.
template <class T>
__aicore__ inline void(InitOutput)(const GlobalTensor<T>& gm, uint64_t size, const kernelgen::nd_t<T>& value,
                                   KG_LOC) {
    InitGlobalMemory(gm, size, value, file, line);
}

// The vendor's utility class, of which kernels call static members: GetBitSize(n), the bits
// in n bytes (AscendCUtils::GetBitSize(sizeof(uint8_t)) is 8). Parenthesised like the names
// above, so a project macro of that name does not expand here.
struct AscendCUtils {
    static constexpr int64_t kBitsPerByte = 8;
    __aicore__ static inline constexpr auto(GetBitSize)(int64_t byteSize) -> int64_t {
        return byteSize * kBitsPerByte;
    }
    // The vector mask a MASK_PLACEHOLDER call then uses: the documented SetVectorMask<T>'s
    // one-number (first `len` elements) and two-word forms.
    template <class T>
    __aicore__ static inline void(SetMask)(int32_t len) {
        SetVectorMask<T>(len);
    }
    template <class T>
    __aicore__ static inline void(SetMask)(uint64_t maskHigh, uint64_t maskLow) {
        SetVectorMask<T>(maskHigh, maskLow);
    }
};

}  // namespace AscendC

// The bisheng compiler's scalar bit intrinsics, global like every compiler builtin: x with bit
// n cleared (sbitset0) or set (sbitset1). n outside [0, 63] is undefined, as a shift is.
__aicore__ inline constexpr uint64_t(sbitset0)(uint64_t x, int64_t n) { return x & ~(1ULL << n); }
__aicore__ inline constexpr uint64_t(sbitset1)(uint64_t x, int64_t n) { return x | (1ULL << n); }

// Branch hints as the vendor headers define them (the emulator ignores the hint).
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

// The vendor's internal check (kernel_log.h): when `cond` is false, `behavior` runs (a log call,
// or only a message string) and the kernel stops, reported as ASSERT's failure is.
#ifndef ASCENDC_ASSERT
#define ASCENDC_ASSERT(cond, behavior)                                                          \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-value\"") \
            behavior;                                                                           \
            _Pragma("GCC diagnostic pop")                                                       \
            ::kernelgen::assert_failed("ASCENDC_ASSERT", #cond, "", __FILE__, __LINE__);         \
        }                                                                                       \
    } while (0)
#endif

// The vendor's macro for an instruction prefetch (the documented ICachePreLoad): timing only.
#ifndef PRELOAD
#define PRELOAD(len) ::AscendC::ICachePreLoad(len)
#endif
