// Activation library entry header (gelu): the functions live in kernel_operator.h.
#pragma once

#include "kernel_operator.h"
