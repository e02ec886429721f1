#ifndef TPL_SCALE_TILING_H
#define TPL_SCALE_TILING_H
#include <cstdint>

struct TplScaleTilingData {
    uint32_t total;
};
#endif
