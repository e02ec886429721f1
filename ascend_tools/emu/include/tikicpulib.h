// Stand-in for the CPU-debug library a kernel-launch sample's host program includes on its
// `#ifdef ASCENDC_CPU_DEBUG` path (AscendC CPU debugging: GmAlloc / GmFree, ICPU_RUN_KF,
// ICPU_SET_TILING_KEY, SetKernelMode; securec's memcpy_s comes along). The emulator defines
// ASCENDC_CPU_DEBUG, so a sample's main.cpp takes that path; the harness runs it only to capture
// its launch (kernelgen/host_launch.h): ICPU_RUN_KF records the block count, the arguments and
// the bytes of the buffers they point at, and ends the program there.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "acl/acl_base.h"
#include "kernelgen/host_launch.h"

// What the program's own declaration of the kernel on this path needs, `extern "C" __global__
// __aicore__ void k(GM_ADDR x, ...)`, and CANN's library brings along (as kernelgen/types.h has
// it for kernel code: one definition, whichever comes first).
#ifndef __global__
#define __global__
#endif
#ifndef __aicore__
#define __aicore__
#endif
using GM_ADDR = uint8_t*;

namespace AscendC {

// Global memory for the launch's arguments: zeroed host memory the capture can read back.
inline void* GmAlloc(size_t size) { return ::kernelgen::host_alloc(size); }
inline void GmFree(void*) {}  // the capture ends at the launch, before any free matters

enum class KernelMode { MIX_MODE = 0, AIC_MODE, AIV_MODE, MIX_AIC_1_1 };
// The core type the CPU run simulates; the emulator takes the kernel's own declaration.
inline void SetKernelMode(KernelMode) {}

}  // namespace AscendC

using AscendC::KernelMode;  // samples write `SetKernelMode(KernelMode::AIV_MODE)` unqualified

// Early CANN's namespace (kernel_operator.h): tik2-era host programs call tik2::GmAlloc.
namespace tik2 {
using namespace AscendC;
}

#ifndef KERNELGEN_HAS_MEMCPY_S
#define KERNELGEN_HAS_MEMCPY_S
// securec's bounded copy: 0 on success, nonzero when the destination is too small (nothing copied).
inline int memcpy_s(void* dest, size_t destMax, const void* src, size_t count) {
    if (dest == nullptr || src == nullptr || count > destMax) return 1;
    if (count) std::memmove(dest, src, count);
    return 0;
}
#endif

#define ICPU_SET_TILING_KEY(key)                         \
    do {                                                 \
        ::kernelgen::host_launch().has_tiling_key = true; \
        ::kernelgen::host_launch().tiling_key = (key);    \
    } while (0)

#define ICPU_RUN_KF(kernel, blockDim, ...) ::kernelgen::launch_of(&kernel, (blockDim))(__VA_ARGS__)
