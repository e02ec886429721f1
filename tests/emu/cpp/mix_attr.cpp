// An entry marked __mix__(1, 2) (the attribute form of a mix kernel) launches one AIC and two
// AIVs per block without KERNEL_TASK_TYPE_DEFAULT: `mix_attr report`.
#include "test_io.h"

using namespace AscendC;

extern "C" __global__ __mix__(1, 2) __aicore__ void mix_entry() {
    std::printf("core aic=%d idx=%lld sub=%lld\n", ASCEND_IS_AIC ? 1 : 0, (long long)GetBlockIdx(),
                (long long)GetSubBlockIdx());
}

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    tio::run(3, argv[1], [] { mix_entry(); });
    return 0;
}
