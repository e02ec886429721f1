// A directly launched kernel (no op_host): its sizes and helpers live in a header next to it.
#include "launch_consts.h"
using namespace AscendC;

extern "C" __global__ __aicore__ void scale_launch(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    TBuf<TPosition::VECCALC> inBuf;
    TBuf<TPosition::VECCALC> outBuf;
    pipe.InitBuffer(inBuf, HALF_BUF);
    pipe.InitBuffer(outBuf, HALF_BUF);
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, Elems(HALF_BUF));
    yGm.SetGlobalBuffer((__gm__ float*)y, Elems(HALF_BUF));
    LocalTensor<float> a = inBuf.Get<float>();
    LocalTensor<float> b = outBuf.Get<float>();
    DataCopy(a, xGm, Elems(HALF_BUF));
    SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
    WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
    Muls(b, a, 2.0f, BLOCKS_OF(HALF_BUF) * 8);
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    DataCopy(yGm, b, Elems(HALF_BUF));
}
