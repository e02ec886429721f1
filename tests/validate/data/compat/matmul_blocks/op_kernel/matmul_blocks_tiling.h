// The newer sample style: a plain struct the host and the kernel share, holding the Matmul API's
// tiling by its AscendC::tiling name.
#ifndef MATMUL_BLOCKS_TILING_H
#define MATMUL_BLOCKS_TILING_H
#include <cstdint>
#include "kernel_tiling/kernel_tiling.h"

struct MatmulBlocksTilingData {
    uint32_t blocks;
    AscendC::tiling::TCubeTiling cube;
};
#endif
