// A base class owns the queues and copies in; the derived class dequeues in its Compute.
#include "kernel_operator.h"
using namespace AscendC;

class KernelBase {
public:
    __aicore__ inline void InitBase(GM_ADDR x, uint32_t len)
    {
        length = len;
        xGm.SetGlobalBuffer((__gm__ float*)x, len);
        pipe.InitBuffer(inQueue, 2, len * sizeof(float));
        pipe.InitBuffer(outQueue, 2, len * sizeof(float));
    }
    __aicore__ inline void CopyIn()
    {
        LocalTensor<float> x = inQueue.AllocTensor<float>();
        DataCopy(x, xGm, length);
        inQueue.EnQue(x);
    }

protected:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm;
    uint32_t length;
};

class KernelAbs : public KernelBase {
public:
    __aicore__ inline void Compute()
    {
        LocalTensor<float> x = inQueue.DeQue<float>();
        LocalTensor<float> y = outQueue.AllocTensor<float>();
        Abs(y, x, length);
        outQueue.EnQue(y);
        inQueue.FreeTensor(x);
    }
    __aicore__ inline void CopyOut(GM_ADDR z)
    {
        GlobalTensor<float> zGm;
        zGm.SetGlobalBuffer((__gm__ float*)z, length);
        LocalTensor<float> y = outQueue.DeQue<float>();
        DataCopy(zGm, y, length);
        outQueue.FreeTensor(y);
    }
};

extern "C" __global__ __aicore__ void abs_custom(GM_ADDR x, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    KernelAbs op;
    op.InitBase(x, 2048);
    op.CopyIn();
    op.Compute();
    op.CopyOut(z);
}
