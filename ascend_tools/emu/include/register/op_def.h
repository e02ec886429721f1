// Stand-in for the framework's operator-definition header (ops::OpDef, OpParamDef, OpAICoreDef,
// which op_def_registry.h includes): some hosts include it directly, next to graph/types.h.
// The whole registry header is a superset of it and is what our OpDef lives in.
#pragma once

#include "register/op_def_registry.h"
