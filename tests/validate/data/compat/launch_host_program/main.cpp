// The sample's host program: NPU path through ACL, CPU-debug path through tikicpulib.
#include <cstdint>
#include <cstdlib>
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_scale_rows.h"
#else
#include "tikicpulib.h"
extern "C" void scale_rows(uint8_t* x, uint8_t* y, uint8_t* tilingGm);
#endif
extern void GenerateTiling(uint8_t* tilingBuf);

int32_t main(int32_t argc, char* argv[]) {
    const size_t tilingSize = 4 * sizeof(uint32_t);
    uint8_t* tilingBuf = static_cast<uint8_t*>(malloc(tilingSize));
    GenerateTiling(tilingBuf);
    const uint32_t rows = reinterpret_cast<uint32_t*>(tilingBuf)[0];
    const uint32_t rowsPerCore = reinterpret_cast<uint32_t*>(tilingBuf)[2];
    const uint32_t blockDim = rows / rowsPerCore;
    const size_t bytes = 64 * 256 * sizeof(float);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t* x = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    uint8_t* y = static_cast<uint8_t*>(AscendC::GmAlloc(bytes));
    uint8_t* tiling = static_cast<uint8_t*>(AscendC::GmAlloc(tilingSize));
    memcpy_s(tiling, tilingSize, tilingBuf, tilingSize);
    AscendC::SetKernelMode(AscendC::KernelMode::AIV_MODE);
    ICPU_SET_TILING_KEY(2);
    ICPU_RUN_KF(scale_rows, blockDim, x, y, tiling);
    AscendC::GmFree(x);
    AscendC::GmFree(y);
    AscendC::GmFree(tiling);
#else
    aclrtStream stream = nullptr;
    uint8_t *x, *y, *tiling;
    aclrtMalloc((void**)&x, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&y, bytes, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc((void**)&tiling, tilingSize, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(tiling, tilingSize, tilingBuf, tilingSize, ACL_MEMCPY_HOST_TO_DEVICE);
    ACLRT_LAUNCH_KERNEL(scale_rows)(blockDim, stream, x, y, tiling);
#endif
    free(tilingBuf);
    return 0;
}
