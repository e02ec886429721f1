// Stand-in for the framework's graph status header (ge::graphStatus, GRAPH_SUCCESS,
// GRAPH_FAILED): ours live with the other ge types in graph/types.h.
#pragma once

#include "graph/types.h"
