// Stand-in for CANN's graph/tensor.h, which host tiling code includes for ge::Shape
// (Ascend/samples' AbsPad / AbsUnPad GenerateTiling); graph/types.h declares it here.
#pragma once

#include "graph/types.h"
