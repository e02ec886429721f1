// Scalar computation APIs (AscendC API reference: Scalar computation): bit queries on a
// uint64_t that kernels use to walk a bit mask (DrivingSDK's scatter_add and
// multi_scale_deformable_attn loop `for (p = ScalarGetSFFValue<1>(m); p >= 0; ...)`).
#pragma once

#include <cstdint>

#include "types.h"

namespace AscendC {

// Position of the first bit equal to countValue (0 or 1), counting from the least significant
// bit; -1 when there is none (ScalarGetSFFValue<1>(28) is 2).
template <int countValue>
__aicore__ inline int64_t ScalarGetSFFValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetSFFValue: countValue must be 0 or 1");
    const uint64_t bits = countValue == 1 ? valueIn : ~valueIn;
    return bits == 0 ? -1 : static_cast<int64_t>(__builtin_ctzll(bits));
}

// How many bits of valueIn equal countValue (0 or 1).
template <int countValue>
__aicore__ inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {
    static_assert(countValue == 0 || countValue == 1, "ScalarGetCountOfValue: countValue must be 0 or 1");
    const int64_t ones = __builtin_popcountll(valueIn);
    return countValue == 1 ? ones : 64 - ones;
}

// Leading zero bits of valueIn (64 for 0).
__aicore__ inline int64_t ScalarCountLeadingZero(uint64_t valueIn) {
    return valueIn == 0 ? 64 : static_cast<int64_t>(__builtin_clzll(valueIn));
}

// The standard-library subset's max/min (API reference, Utils > Std::max / Std::min: two values
// of possibly different types, the larger / smaller as the first's type).
namespace Std {
template <typename T, typename U>
__aicore__ inline constexpr T max(const T src0, const U src1) {
    return src0 > src1 ? src0 : static_cast<T>(src1);
}
template <typename T, typename U>
__aicore__ inline constexpr T min(const T src0, const U src1) {
    return src0 < src1 ? src0 : static_cast<T>(src1);
}
}  // namespace Std

}  // namespace AscendC
