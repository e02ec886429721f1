// Host-only constants, under the same include guard as op_kernel/consts.h (a name both sides use
// for their own file): a kernel build that read this header would lose the kernel's.
#ifndef GUARDED_CONSTS_CONSTS_H
#define GUARDED_CONSTS_CONSTS_H
#include <cstdint>

constexpr uint32_t MAX_ROWS = 4;
#define HOST_ROW_ALIGN (MAX_ROWS * 2)
#endif
