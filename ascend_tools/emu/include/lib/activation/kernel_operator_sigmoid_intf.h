// Activation library entry header (sigmoid): the functions live in kernel_operator.h.
#pragma once

#include "kernel_operator.h"
