// Host program of the sample (not built by the emulator): the launch names the block count.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void fmax(GM_ADDR x, GM_ADDR y, GM_ADDR z);

int32_t main() {
    uint32_t blockDim = 4;
    size_t bytes = 4 * 256 * sizeof(float);
    uint8_t* x = (uint8_t*)AscendC::GmAlloc(bytes);
    uint8_t* y = (uint8_t*)AscendC::GmAlloc(bytes);
    uint8_t* z = (uint8_t*)AscendC::GmAlloc(bytes);
    ICPU_RUN_KF(fmax, blockDim, x, y, z);
    return 0;
}
