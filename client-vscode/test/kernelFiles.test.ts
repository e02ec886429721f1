import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { isKernelSource, isTorchStub } from '../src/kernelFiles';

test('a C++ file including kernel_operator.h is a kernel', () => {
  assert.ok(isKernelSource('/a/add.cpp', '// add\n#include "kernel_operator.h"\n'));
  assert.ok(isKernelSource('/a/add.h', '#  include <kernel_operator.h>\n'));
});

test('sources of an operator project are kernels, whatever they include', () => {
  assert.ok(isKernelSource('/p/op_kernel/add.cpp', ''));
  assert.ok(isKernelSource('/p/op_host/add_tiling.h', '#include "register/tilingdata_base.h"'));
});

test('.asc files are kernels', () => {
  assert.ok(isKernelSource('/a/k.ASC', ''));
});

test('other C++ and other languages are not', () => {
  assert.ok(!isKernelSource('/a/main.cpp', '#include <vector>\n// kernel_operator.h mentioned in a comment'));
  assert.ok(!isKernelSource('/p/op_kernel/notes.md', '#include "kernel_operator.h"'));
});

test('Python files are generation stubs', () => {
  assert.ok(isTorchStub('/s/gelu.py'));
  assert.ok(!isTorchStub('/s/gelu.cpp'));
});
