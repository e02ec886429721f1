// Reduce library entry header (Sum): the function lives in kernel_operator.h (kernelgen/reduce.h).
#pragma once

#include "kernel_operator.h"
