// Stand-in for CANN's kernel_utils.h: a device header on the vendor's AscendC include path
// (kernel_operator.h pulls it in), which kernels sometimes include by name. Its contents are
// internal helpers the API reference does not document; this stand-in gives the documented API
// only, so a kernel that uses one of those helpers gets the compile error that names it
// (ascend_tools/catalog/tables/vendor_internal.json).
#pragma once
#include "kernel_operator.h"
