// Kernel side of the tiling: a plain struct with the host struct's fields, under the host
// header's include guard (CANN's kernel build never sees the host header).
#ifndef KERNEL_SIDE_TILING_TILING_H
#define KERNEL_SIDE_TILING_TILING_H
#include <cstdint>

struct KernelSideTilingData {
    uint32_t total;
    float scale;
};
#endif
