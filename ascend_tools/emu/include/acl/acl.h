// Stand-in for the ACL header: as in CANN, it brings in acl/acl_base.h (the types and the log
// call operator host code uses).
#pragma once

#include "acl/acl_base.h"
