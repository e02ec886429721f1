// Host entry header of the tiling-data macros. It also brings the kernel-side macros
// (GET_TILING_DATA, TILING_KEY_IS) because the toolchain force-includes the op's tiling header,
// which includes this file, into the kernel translation unit.
#pragma once

#include "kernel_tiling/kernel_tiling.h"
#include "kernelgen/host_std.h"
#include "kernelgen/host_tiling_macros.h"
