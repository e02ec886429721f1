// The kernel's own constants, under the include guard op_host/consts.h uses too.
#ifndef GUARDED_CONSTS_CONSTS_H
#define GUARDED_CONSTS_CONSTS_H
#include <cstdint>

constexpr uint32_t MAX_ROWS = 4;
constexpr float ROW_BIAS = 0.5f;
#endif
