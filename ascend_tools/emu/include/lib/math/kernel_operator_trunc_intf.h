// Math library entry header (trunc): the functions live in kernel_operator.h (kernelgen/activation.h).
#pragma once

#include "kernel_operator.h"
