// Activation library entry header (silu): the functions live in kernel_operator.h.
#pragma once

#include "kernel_operator.h"
