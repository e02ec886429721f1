// One kernel class per chip, in two headers an #ifdef picks between (the build defines
// USE_SMALL_UB for the inference chip): only one KernelCopy exists in any build.
#include "kernel_operator.h"
#ifdef USE_SMALL_UB
#include "copy_small.h"
#else
#include "copy_large.h"
#endif

extern "C" __global__ __aicore__ void per_chip_copy(GM_ADDR x, GM_ADDR y) {
    KernelCopy op;
    op.Init(x, y);
    op.Process();
}
