// Host entry header of the tiling-data macros. It also brings the kernel-side macros
// (GET_TILING_DATA, TILING_KEY_IS) for a kernel that includes the op's tiling header itself
// (the toolchain otherwise gives the kernel structs generated from it: toolchain/kernel_tiling.py).
#pragma once

#include "kernel_tiling/kernel_tiling.h"
#include "kernelgen/host_std.h"
#include "kernelgen/host_tiling_macros.h"
