"""On-chip layouts of generated 310P kernels (MindSpore ms_custom_ops, swft): a TBuf of the whole
UB per position, each past the last, that the NPU addresses from UB 0 again (chips.json
`local_address_wrap`); raw `(__ubuf__ T*)` addresses the scalar unit reads; a one-element view
of a TBuf (or a queue buffer) that a block copy fills past its length. One program, one run per
case: the exit code is the number of failed checks, or 3 when a rule stops the run."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ascend_tools.chips import get_chip
from ascend_tools.toolchain.compat import rewrite_source
from ascend_tools.toolchain.flags import emulator_flags

FLAGS = ["-std=c++17", "-O0", "-pthread", *emulator_flags(get_chip("ascend310p"))]

PROGRAM = r"""
#include <cstring>
#include "kernel_operator.h"
using namespace AscendC;

static void chip310p(bool wrap) {
    auto& c = kernelgen::chip();
    c.name = "ascend310p";
    c.ub_bytes = c.ub_safe_bytes = 262144;
    c.l1_bytes = 1048576;
    c.local_address_wrap = wrap;
}

int main(int argc, char** argv) {
    std::string which = argv[1];
    int bad = 0;
    chip310p(which != "no_wrap");
    TPipe pipe;
    if (which == "aliases" || which == "no_wrap") {
        TBuf<TPosition::VECIN> in;
        TBuf<TPosition::VECOUT> out;
        TBuf<TPosition::CO2> co2;  // UB on 310P too
        pipe.InitBuffer(in, 262144);
        pipe.InitBuffer(out, 262144);
        pipe.InitBuffer(co2, 262144);
        out.GetWithOffset<float>(8, 4192).SetValue(0, 7.5f);
        bad += in.GetWithOffset<float>(8, 4192).GetValue(0) != 7.5f;  // same bytes
        bad += co2.Get<float>().GetValue(4192 / 4) != 7.5f;
        __ubuf__ float* raw = (__ubuf__ float *)((uintptr_t)(4192));   // the scalar unit's view
        bad += *(__ubuf__ float *)raw != 7.5f;
        LocalTensor<float> slot = in.GetWithOffset<float>(8, 4192);
        bad += *(__ubuf__ float *)slot.GetPhyAddr() != 7.5f;  // a tensor's address, not an offset
        TBuf<TPosition::A1> a1;
        TBuf<TPosition::B1> b1;
        pipe.InitBuffer(a1, 1048576);
        pipe.InitBuffer(b1, 1048576);  // L1 from 0 again
    } else if (which == "off_a_multiple") {
        TBuf<TPosition::VECIN> small;
        TBuf<TPosition::VECOUT> whole;
        pipe.InitBuffer(small, 1024);
        pipe.InitBuffer(whole, 262144);  // would start at 1024: it straddles the end
        whole.Get<float>().SetValue(0, 1.0f);  // inside UB: runs
        whole.Get<float>().SetValue(65535, 1.0f);  // past the end: the error
    } else if (which == "tbuf_view") {
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, 1024);
        LocalTensor<float> src = buf.GetWithOffset<float>(8, 0);
        for (int i = 0; i < 8; ++i) src.SetValue(i, float(i));
        LocalTensor<float> one = buf.GetWithOffset<float>(1, 416);  // one element, a block in
        DataCopy(one, src, DataCopyParams{1, 1, 0, 0});
        bad += buf.GetWithOffset<float>(8, 416).GetValue(7) != 7.0f;
    } else if (which == "tbuf_view_past_tbuf") {
        TBuf<TPosition::VECCALC> buf, next;
        pipe.InitBuffer(buf, 448);
        pipe.InitBuffer(next, 32);
        LocalTensor<float> src = buf.GetWithOffset<float>(8, 0);
        Duplicate(next.Get<float>(), 1.0f, 8);
        DataCopy(buf.GetWithOffset<float>(1, 416), src, DataCopyParams{1, 2, 0, 0});  // into next
        bad += next.Get<float>().GetValue(0) != 1.0f;  // which it still needs
    } else if (which == "queue_view") {
        TQue<TPosition::VECIN, 1> q;
        pipe.InitBuffer(q, 1, 1024);
        LocalTensor<float> t = q.AllocTensor<float>();
        DataCopy(t[248], t, DataCopyParams{1, 1, 0, 0});  // 8 elements into a view of 8: fine
        LocalTensor<float> head = t;
        head.SetSize(1);
        DataCopy(head, t[8], DataCopyParams{1, 1, 0, 0});  // past the view, inside its queue buffer
        LocalTensor<int32_t> bits = t.ReinterpretCast<int32_t>();
        bad += bits.GetValue(7) != bits.GetValue(15);
    }
    return bad;
}
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("wrap")
    src, exe = d / "t.cpp", d / "t"
    # The build's source rewrite turns the (__ubuf__ T*) casts into UB addresses.
    src.write_text(rewrite_source(PROGRAM) or PROGRAM)
    built = subprocess.run(["g++", *FLAGS, str(src), "-o", str(exe)], capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stderr[-3000:]
    return exe


def run(exe: Path, case: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe), case], capture_output=True, text=True)


def test_whole_memory_tbufs_past_the_end_alias_from_address_zero_with_warnings(
    program: Path,
) -> None:
    res = run(program, "aliases")
    assert res.returncode == 0, res.stderr
    warned = [ln for ln in res.stderr.splitlines() if ln.startswith("[WARNING]")]
    assert len([w for w in warned if w.endswith("[ub-overflow]")]) == 2, res.stderr
    assert len([w for w in warned if w.endswith("[l1-overflow]")]) == 1, res.stderr
    assert "TBuf<CO2> (262144 B) starts at 524288 B" in res.stderr
    assert "shares its bytes with TBuf<VECIN>" in res.stderr


def test_overflow_stays_an_error_without_the_wrap_or_off_a_whole_multiple(program: Path) -> None:
    for case in ("no_wrap", "off_a_multiple"):
        res = run(program, case)
        assert res.returncode == 3, (case, res.stderr)
        assert "[ERROR]" in res.stderr and res.stderr.rstrip().endswith("[ub-overflow]"), res.stderr


@pytest.mark.parametrize("case", ["tbuf_view", "queue_view"])
def test_block_copy_past_a_view_inside_its_buffer_runs_with_a_warning(
    program: Path, case: str
) -> None:
    res = run(program, case)
    assert res.returncode == 0, res.stderr
    assert "inside the buffer it came from" in res.stderr and "[count-exceeds-tensor]" in res.stderr


def test_copy_past_the_tbuf_into_bytes_a_neighbour_still_needs_is_an_error(program: Path) -> None:
    res = run(program, "tbuf_view_past_tbuf")
    assert res.returncode == 3, res.stderr
    assert res.stderr.rstrip().endswith("[count-exceeds-tensor]"), res.stderr
    assert "[ERROR]" in res.stderr and "GetValue at" in res.stderr


def test_ubuf_casts_become_ub_addresses_and_lines_stay() -> None:
    text = ("__ubuf__ float * p = (__ubuf__ float *)((uintptr_t)(4192));\n"
            "x = *(__ubuf__ int32_t *)p;\ny = (__ubuf__ const half*) q;\n"
            "z = (__ubuf__ half*)t.GetPhyAddr() + 1;\nw = (__ubuf__ float *)this->b[2];\n")
    out = rewrite_source(text)
    assert out == ("__ubuf__ float * p = kernelgen::ub_ptr<float>((uintptr_t)(4192));\n"
                   "x = *kernelgen::ub_ptr<int32_t>(p);\ny = kernelgen::ub_ptr<const half>(q);\n"
                   "z = kernelgen::ub_ptr<half>(t.GetPhyAddr()) + 1;\n"
                   "w = kernelgen::ub_ptr<float>(this->b[2]);\n")
