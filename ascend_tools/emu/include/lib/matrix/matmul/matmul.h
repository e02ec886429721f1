// Stand-in for CANN's lib/matrix/matmul/matmul.h, which kernels include for the Matmul API
// beside (or instead of) lib/matmul_intf.h (RecSDK in_linear_silu).
#pragma once

#include "lib/matmul_intf.h"
