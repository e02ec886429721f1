// Vendor include path of the gert runtime types; all of them live in kernelgen/host_gert.h.
#pragma once

#include "kernelgen/host_gert.h"
