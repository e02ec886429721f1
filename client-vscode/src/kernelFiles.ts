// Which files are AscendC kernel sources: the server is started for these, and the kernel
// commands appear in their editor menus.
import * as path from 'path';

export const KERNEL_EXTENSIONS = ['.cpp', '.h', '.hpp', '.asc'];

/** A directory of the msopgen operator-project layout (`op_kernel/`, `op_host/`). */
const PROJECT_DIRS = ['op_kernel', 'op_host'];

/** Matches `#include "kernel_operator.h"` (or `<...>`), the header every AscendC kernel includes. */
const KERNEL_INCLUDE = /^\s*#\s*include\s*[<"]kernel_operator\.h[>"]/m;

/**
 * True for a C/C++ source that is an AscendC kernel: an `.asc` file, a source inside an operator
 * project, or one that includes `kernel_operator.h`. `text` may be a prefix of the file: the
 * include sits near the top.
 */
export function isKernelSource(fsPath: string, text: string): boolean {
  const ext = path.extname(fsPath).toLowerCase();
  if (!KERNEL_EXTENSIONS.includes(ext)) {
    return false;
  }
  if (ext === '.asc') {
    return true;
  }
  const dirs = path.dirname(fsPath).split(/[\\/]/);
  return dirs.some((d) => PROJECT_DIRS.includes(d)) || KERNEL_INCLUDE.test(text);
}

/** True for a Python file, the input of "Generate Kernel from Torch Op". */
export function isTorchStub(fsPath: string): boolean {
  return path.extname(fsPath).toLowerCase() === '.py';
}
