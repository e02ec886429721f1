// One plain struct for both sides, kept beside the kernel (the newer sample layout).
#ifndef SHARED_TILING_TILING_H
#define SHARED_TILING_TILING_H
#include <cstdint>

struct SharedTilingData {
    uint32_t total;
    uint32_t offset;
};
#endif
