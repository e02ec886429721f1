"""The current name of BroadCast (Broadcast) and the high-level pattern reductions
(ReduceMean/ReduceProd/ReduceAll/ReduceAny with AscendC::Pattern::Reduce::AR/RA) are known APIs:
correct code using them gets no `unknown-api` diagnostic."""

from __future__ import annotations

from ascend_tools.diagnostics import Severity
from tests.lint.helpers import lint_texts

KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR y) {
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> a, b, c;
    pipe.InitBuffer(a, 4 * 16 * sizeof(float));
    pipe.InitBuffer(b, 16 * sizeof(float));
    pipe.InitBuffer(c, 1024);
    AscendC::LocalTensor<float> src = a.Get<float>();
    AscendC::LocalTensor<float> dst = b.Get<float>();
    AscendC::LocalTensor<uint8_t> tmp = c.Get<uint8_t>();
    uint32_t shape[2] = {4, 16};
    AscendC::ReduceMean<float, AscendC::Pattern::Reduce::AR, false>(dst, src, tmp, shape, true);
    AscendC::ReduceProd<float, AscendC::Pattern::Reduce::RA>(dst, src, shape, true);
    AscendC::ReduceAll<float, AscendC::Pattern::Reduce::AR>(dst, src, shape, true);
    AscendC::ReduceAny<float, AscendC::Pattern::Reduce::RA>(dst, src, tmp, shape, true);
    uint32_t rowShape[2] = {4, 1};
    AscendC::Broadcast<float, 2, 1>(src, dst, shape, rowShape);
}
"""


def test_broadcast_and_pattern_reductions_are_known() -> None:
    diags = lint_texts({"/p/k.cpp": KERNEL})
    assert not [d for d in diags if d.code == "unknown-api"], diags
    assert not [d for d in diags if d.severity == Severity.ERROR], diags
