// Stand-in for the platform-infos definition header: fe::PlatFormInfos (platform/platform_info.h).
#pragma once

#include "platform/platform_info.h"
