// Stand-in for the framework's graph-registration header (register/register.h), which operator
// host code includes beside the OpDef headers (RecSDK multislice_concat): the same host API.
#pragma once

#include "register/op_def_registry.h"
