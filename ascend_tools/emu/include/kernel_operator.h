// Device entry header of the kernelgen AscendC CPU emulator: everything an AscendC kernel uses,
// in namespace AscendC. Self-contained (usable as a precompiled header): it depends on no macro
// a kernel defines before including it.
#pragma once

#include "kernelgen/types.h"
#include "kernelgen/device.h"
#include "kernelgen/tensor.h"
#include "kernelgen/pipe.h"
#include "kernelgen/sync.h"
#include "kernelgen/copy.h"
#include "kernelgen/mask.h"
#include "kernelgen/vec_core.h"
#include "kernelgen/vec_binary.h"
#include "kernelgen/vec_unary.h"
#include "kernelgen/cast.h"
#include "kernelgen/compare.h"
#include "kernelgen/reduce.h"
#include "kernelgen/activation.h"
#include "kernelgen/misc.h"
#include "kernelgen/softmax.h"
#include "kernelgen/cube.h"
#include "kernelgen/list_tensor.h"
#include "kernelgen/norm.h"
#include "kernelgen/proposal.h"
#include "kernelgen/adl_anchors.h"
