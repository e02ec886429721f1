// DEVICE_IMPL_OP_OPTILING(op).Tiling(f): tiling sink, the op's TilingFunc registered to run on
// the device at launch time as well as on the host (CANN 8.x "Tiling sink"). The harness runs
// the tiling once before the launch either way, so this registers f as IMPL_OP_OPTILING would.
#pragma once

#include "register/op_impl_registry.h"

#define DEVICE_IMPL_OP_OPTILING(op_type) IMPL_OP(op_type)
