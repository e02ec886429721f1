// A machine-written kernel style: one TBuf per position declared as large as the whole memory,
// with every tensor placed by hand through GetWithOffset at small offsets.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void relu_flat(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                GM_ADDR tiling)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECIN> inBuf;
    pipe.InitBuffer(inBuf, 196608);
    AscendC::TBuf<AscendC::TPosition::VECOUT> outBuf;
    pipe.InitBuffer(outBuf, 196608);
    AscendC::GlobalTensor<float> xGm;
    AscendC::GlobalTensor<float> yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 1024);
    yGm.SetGlobalBuffer((__gm__ float*)y, 1024);
    AscendC::LocalTensor<float> a = inBuf.GetWithOffset<float>(1024, 0);
    AscendC::LocalTensor<float> b = outBuf.GetWithOffset<float>(1024, 4096);
    AscendC::DataCopy(a, xGm, 1024);
    AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
    AscendC::Relu(b, a, 1024);
    AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
    AscendC::DataCopy(yGm, b, 1024);
}
