"""Per-arch API support from the catalog: Gather and CreateVecIndex exist on Atlas A2/A3
(dav-c220), the inference AI Core (310P, dav-m200) and Atlas 200I/500 A2 (dav-m300), not on the
first-generation Ascend 910 (dav-c100); lint flags a call to them on ascend910 only."""

from __future__ import annotations

import pytest

from ascend_tools.catalog import load_catalog
from ascend_tools.diagnostics import RuleCode
from tests.lint.helpers import lint_texts

# A whole-tile gather (each core reverses its 256 floats) built from both APIs.
GATHER_KERNEL = """\
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 256;

class KernelReverse {
public:
    __aicore__ inline KernelReverse() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipe)
    {
        xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * TILE, TILE);
        yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * TILE, TILE);
        pipe->InitBuffer(inQueue, 1, TILE * sizeof(float));
        pipe->InitBuffer(outQueue, 1, TILE * sizeof(float));
        pipe->InitBuffer(offBuf, TILE * sizeof(int32_t));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopy(xLocal, xGm, TILE);
        inQueue.EnQue(xLocal);
        xLocal = inQueue.DeQue<float>();
        LocalTensor<int32_t> ramp = offBuf.Get<int32_t>();
        CreateVecIndex(ramp, 0, TILE);
        Muls(ramp, ramp, -4, TILE);
        Adds(ramp, ramp, static_cast<int32_t>((TILE - 1) * 4), TILE);
        LocalTensor<uint32_t> off = ramp.ReinterpretCast<uint32_t>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        Gather(yLocal, xLocal, off, 0u, TILE);
        inQueue.FreeTensor(xLocal);
        outQueue.EnQue(yLocal);
        yLocal = outQueue.DeQue<float>();
        DataCopy(yGm, yLocal, TILE);
        outQueue.FreeTensor(yLocal);
    }

private:
    TQue<QuePosition::VECIN, 1> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<QuePosition::VECCALC> offBuf;
    GlobalTensor<float> xGm, yGm;
};

extern "C" __global__ __aicore__ void reverse_tile(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    KernelReverse op;
    op.Init(x, y, &pipe);
    op.Process();
}
"""


@pytest.mark.parametrize("name", ["Gather", "CreateVecIndex"])
def test_gather_apis_are_listed_for_c220_m200_m300_but_not_910(name: str) -> None:
    entry = load_catalog().get(name)
    assert not entry.supports_arch("dav-c100")
    assert all(entry.supports_arch(a) for a in ("dav-c220", "dav-m200", "dav-m300"))
    assert "product support" in entry.source


def _chip_support(chip: str) -> list[str]:
    diags = lint_texts({"reverse_tile.cpp": GATHER_KERNEL}, chip=chip)
    return [d.message for d in diags if d.code == RuleCode.CHIP_SUPPORT.value]


def test_gather_kernel_is_a_chip_support_error_on_910() -> None:
    messages = _chip_support("ascend910")
    assert any(m.startswith("Gather is not supported on ascend910") for m in messages), messages
    assert any(m.startswith("CreateVecIndex is not supported") for m in messages), messages


@pytest.mark.parametrize("chip", ["ascend910b2", "ascend310p"])
def test_gather_kernel_passes_chip_support_where_the_apis_exist(chip: str) -> None:
    assert _chip_support(chip) == []
