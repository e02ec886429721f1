// The header the API reference names for ListTensorDesc and TensorDesc ("ListTensorDesc",
// required header kernel_operator_list_tensor_intf.h); the emulator's ListTensorDesc lives in
// kernelgen/list_tensor.h, which kernel_operator.h includes.
#pragma once

#include "kernel_operator.h"
