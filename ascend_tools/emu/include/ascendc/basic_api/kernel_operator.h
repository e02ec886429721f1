// The basic API's header under the path newer CANN releases install it at
// (`#include "ascendc/basic_api/kernel_operator.h"`, MindSpore ms_custom_ops kernels): the same
// declarations as <kernel_operator.h>.
#pragma once
#include <kernel_operator.h>
