#ifndef LAUNCH_CONSTS_H
#define LAUNCH_CONSTS_H
#include "kernel_operator.h"

#define BLOCKS_OF(bytes) (((bytes) + 31) / 32)
constexpr uint32_t HALF_BUF = 64 * 1024;

__aicore__ inline uint32_t Elems(uint32_t bytes) { return bytes / sizeof(float); }
#endif
