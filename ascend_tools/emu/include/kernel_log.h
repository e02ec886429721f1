// Stand-in for CANN's kernel_log.h, an internal kernel header projects include for its check and
// log macros (RecSDK in_linear_silu's split_core.h): ASCENDC_ASSERT comes with the kernel API here
// (kernelgen/vendor_internal.h).
#pragma once

#include "kernel_operator.h"
