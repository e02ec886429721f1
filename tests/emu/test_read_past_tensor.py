"""A vector read past its source LocalTensor that stays inside UB runs, as on the NPU (which checks
no LocalTensor length), with a `count-exceeds-tensor` warning: the lanes read there hold the bytes
that follow in UB, and a kernel that drops them (DrivingSDK's select_idx_with_mask casts a count
rounded up to 64 from an 8-element tensor) passes. A write past the tensor, or a read past the end
of UB, stays the error. One program, one run per case: the exit code is the number of failed
checks, or 3 when a rule stops the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.toolchain.flags import emulator_flags

FLAGS = ["-std=c++17", "-O0", "-pthread", *emulator_flags(get_chip("ascend910b2"))]

PROGRAM = r"""
#include <string>
#include "kernel_operator.h"
using namespace AscendC;

int main(int argc, char** argv) {
    std::string which = argv[1];
    int bad = 0;
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;      // 8 int32 / 8 float: one 32-byte block
    TBuf<TPosition::VECCALC> next;    // the block after it in UB
    TBuf<TPosition::VECCALC> wide;    // room for a whole rounded-up count
    pipe.InitBuffer(q, 1, 32);
    pipe.InitBuffer(next, 32);
    pipe.InitBuffer(wide, 256);
    LocalTensor<float> after = next.Get<float>();
    Duplicate(after, 5.0f, 8);
    if (which == "cast_rounded_up") {
        LocalTensor<int32_t> idx = q.AllocTensor<int32_t>();
        for (int i = 0; i < 8; ++i) idx.SetValue(i, i + 1);
        LocalTensor<float> f = wide.Get<float>();
        Cast(f, idx, RoundMode::CAST_NONE, 64);  // 64 lanes from an 8-element tensor
        for (int i = 0; i < 8; ++i) bad += f.GetValue(i) != float(i + 1);
        q.FreeTensor(idx);
    } else if (which == "adds_reads_the_next_buffer") {
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 8);
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, x, 1.0f, 16);
        for (int i = 0; i < 8; ++i) bad += y.GetValue(i) != 2.0f;
        for (int i = 8; i < 16; ++i) bad += y.GetValue(i) != 6.0f;  // next's 5.0 + 1, as UB holds it
        q.FreeTensor(x);
    } else if (which == "write_past") {
        LocalTensor<float> x = q.AllocTensor<float>();
        Duplicate(x, 1.0f, 16);  // overwrites next's bytes
        q.FreeTensor(x);
    } else if (which == "read_past_ub_end") {
        TBuf<TPosition::VECCALC> rest;
        pipe.InitBuffer(rest, kernelgen::chip().ub_bytes - 32 - 32 - 256);
        LocalTensor<float> last = rest.Get<float>();
        LocalTensor<float> y = wide.Get<float>();
        Adds(y, last[last.GetSize() - 8], 1.0f, 16);  // 32 bytes past the end of UB
    }
    return bad;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("read_past")
    src, exe = d / "t.cpp", d / "t"
    src.write_text(PROGRAM)
    built = subprocess.run(["g++", *FLAGS, str(src), "-o", str(exe)], capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return exe


def run(exe: Path, case: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), case], capture_output=True, text=True)


@pytest.mark.parametrize("case", ["cast_rounded_up", "adds_reads_the_next_buffer"])
def test_a_read_past_the_tensor_inside_ub_runs_with_a_warning(program: Path, case: str) -> None:
    res = run(program, case)
    assert res.returncode == 0, res.stderr
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("[WARNING]")]
    assert any(w.endswith("[count-exceeds-tensor]") and "stays inside UB" in w for w in warned), (
        res.stderr)
    assert "[ERROR]" not in res.stderr


@pytest.mark.parametrize("case", ["write_past", "read_past_ub_end"])
def test_a_write_past_the_tensor_or_a_read_past_ub_stays_an_error(program: Path,
                                                                  case: str) -> None:
    res = run(program, case)
    assert res.returncode == 3, res.stderr
    assert "[ERROR]" in res.stderr and res.stderr.rstrip().endswith("[count-exceeds-tensor]"), (
        res.stderr)
