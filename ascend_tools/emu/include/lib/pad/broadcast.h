// High-level API entry header (Broadcast): the function lives in kernel_operator.h.
#pragma once

#include "kernel_operator.h"
