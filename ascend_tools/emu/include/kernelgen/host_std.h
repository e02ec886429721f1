// The standard library the vendor's host headers (register/op_def_registry.h,
// register/tilingdata_base.h, tiling/platform/platform_ascendc.h) bring with them: real host code
// uses std::cout, std::string, std::vector, std::map, memcpy, std::min, ... having included only
// those headers, and builds with the vendor toolchain.
#pragma once

#include <algorithm>
#include <array>
// <climits>'s INT_MAX, INT_MIN, ... are macros: a kernel that declares its own constant of that
// name (DrivingSDK's grid_sampler3d_grad_v1: `constexpr int32_t INT_MAX = ...`) builds with
// CANN, whose kernel build never includes these host headers. The toolchain includes the op's
// tiling header (and with it this file) into the kernel's translation unit and defines
// KERNELGEN_KERNEL_TU there, so the kernel sees <climits> only if it includes it itself.
#ifndef KERNELGEN_KERNEL_TU
#include <climits>
#endif
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>
