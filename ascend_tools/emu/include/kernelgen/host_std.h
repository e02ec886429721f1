// The standard library the vendor's host headers (register/op_def_registry.h,
// register/tilingdata_base.h, tiling/platform/platform_ascendc.h) bring with them: real host code
// uses std::cout, std::string, std::vector, std::map, memcpy, std::min, ... having included only
// those headers, and builds with the vendor toolchain.
#pragma once

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>
