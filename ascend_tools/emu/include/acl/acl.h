// Stand-in for the ACL header: as in CANN, it brings in acl/acl_base.h (the types and the log
// call operator host code uses) and the runtime calls (acl/acl_rt.h).
#pragma once

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
