// Device entry header of the kernelgen AscendC CPU emulator: everything an AscendC kernel uses,
// in namespace AscendC. Self-contained (usable as a precompiled header): it depends on no macro
// a kernel defines before including it.
#pragma once

#include <cmath>
#include <cstdlib>
// CPU debug mode (the CPU twin these builds emulate: __CCE_KT_TEST__, ASCENDC_CPU_DEBUG) builds the
// kernel with the host compiler and its streams: kernels print with std::cout in their
// `#ifdef __CCE_KT_TEST__` code without including <iostream> (fbgemm-ascend's jagged utils.h).
#include <iostream>
#include <type_traits>

#include "kernelgen/types.h"
#include "kernelgen/device.h"
#include "kernelgen/tensor.h"
#include "kernelgen/pipe.h"
#include "kernelgen/static_alloc.h"
#include "kernelgen/buf_pool.h"
#include "kernelgen/sync.h"
#include "kernelgen/copy.h"
#include "kernelgen/mask.h"
#include "kernelgen/vec_core.h"
#include "kernelgen/vec_binary.h"
#include "kernelgen/vec_unary.h"
#include "kernelgen/cast.h"
#include "kernelgen/compare.h"
#include "kernelgen/reduce.h"
#include "kernelgen/activation.h"
#include "kernelgen/misc.h"
#include "kernelgen/softmax.h"
#include "kernelgen/cube.h"
#include "kernelgen/list_tensor.h"
#include "kernelgen/norm.h"
#include "kernelgen/proposal.h"
#include "kernelgen/sort.h"
#include "kernelgen/topk.h"
#include "kernelgen/dropout.h"
#include "kernelgen/quant.h"
#include "kernelgen/adl_anchors.h"
#include "kernelgen/scalar.h"
#include "kernelgen/vendor_internal.h"

// The device compiler's scalar min/max builtins, called unqualified in kernels. Two type
// parameters, so a project's own `min(T, T)` template or std::min is more specialised and wins.
template <class T, class U, class = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
__aicore__ inline constexpr std::common_type_t<T, U> min(T a, U b) {
    return b < a ? b : a;
}
template <class T, class U, class = std::enable_if_t<std::is_arithmetic_v<T> && std::is_arithmetic_v<U>>>
__aicore__ inline constexpr std::common_type_t<T, U> max(T a, U b) {
    return a < b ? b : a;
}

// tik2: the namespace AscendC had in early CANN releases; its samples still say `using namespace tik2`,
// or put their kernel class in it (`namespace tik2 { class KernelTopK ... }`, Ascend/samples' 2023
// TopK), which an alias cannot take: a namespace of its own that sees every AscendC name.
namespace tik2 {
using namespace AscendC;
}
