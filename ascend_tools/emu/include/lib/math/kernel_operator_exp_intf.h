// Math library entry header (exp, high-level form with a Taylor-expansion level): the function
// lives in kernel_operator.h (kernelgen/activation.h).
#pragma once

#include "kernel_operator.h"
