// The tiling the host and the kernel share: the Matmul API's TCubeTiling and the AIV count the
// kernel strides its walk by.
#ifndef MATMUL_BASE_BLOCK_WALK_TILING_H
#define MATMUL_BASE_BLOCK_WALK_TILING_H
#include <cstdint>
#include "kernel_tiling/kernel_tiling.h"

struct MatmulBaseBlockWalkTilingData {
    uint32_t cores;
    AscendC::tiling::TCubeTiling cube;
};
#endif
