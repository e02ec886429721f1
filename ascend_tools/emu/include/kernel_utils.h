// Stand-in for CANN's kernel_utils.h: a device header on the vendor's AscendC include path
// (kernel_operator.h pulls it in), which kernels sometimes include by name. Its contents are
// internal helpers the API reference does not document; the ones real kernels use come with
// kernel_operator.h here (kernelgen/vendor_internal.h, listed in
// ascend_tools/catalog/tables/vendor_internal.json), and lint reports each use.
#pragma once
#include "kernel_operator.h"
