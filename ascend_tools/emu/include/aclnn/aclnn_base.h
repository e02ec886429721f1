// Stand-in for the aclnn base header, enough for operator host code that includes it for its
// types: the opaque tensor/executor handles and aclnnStatus (the emulator calls no aclnn API).
#pragma once

#include "acl/acl.h"

typedef int32_t aclnnStatus;
constexpr aclnnStatus ACLNN_SUCCESS = 0;

struct aclTensor;
struct aclTensorList;
struct aclScalar;
struct aclIntArray;
struct aclFloatArray;
struct aclBoolArray;
struct aclOpExecutor;
