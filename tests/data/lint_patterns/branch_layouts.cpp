// One kernel class whose buffer layout depends on the dtype chosen at Init: each branch sets up
// its own buffers (no path takes both), tensors allocated on either branch, and a queue sized
// differently per branch.
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TILE = 2048;

class KernelConvert {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t mode, TPipe* pipe)
    {
        wide = mode == 1;
        xGm.SetGlobalBuffer((__gm__ half*)x, TILE);
        yGm.SetGlobalBuffer((__gm__ half*)y, TILE);
        if (!wide) {
            pipe->InitBuffer(inQueue, 2, TILE * sizeof(half));
            pipe->InitBuffer(outQueue, 2, TILE * sizeof(half));
            pipe->InitBuffer(narrowBuf, 40, TILE * sizeof(half));
        } else {
            pipe->InitBuffer(inQueue, 2, TILE * sizeof(float));
            pipe->InitBuffer(outQueue, 2, TILE * sizeof(float));
            pipe->InitBuffer(wideBuf, 30, TILE * sizeof(half));
        }
    }
    __aicore__ inline void Process()
    {
        LocalTensor<half> x = inQueue.AllocTensor<half>();
        DataCopy(x, xGm, TILE);
        inQueue.EnQue(x);
        LocalTensor<half> xIn = inQueue.DeQue<half>();
        if (wide) {
            LocalTensor<half> y = outQueue.AllocTensor<half>();
            Muls(y, xIn, (half)2, TILE * 2);
            outQueue.EnQue(y);
        } else {
            LocalTensor<half> y = outQueue.AllocTensor<half>();
            Muls(y, xIn, (half)2, TILE);
            outQueue.EnQue(y);
        }
        inQueue.FreeTensor(xIn);
        LocalTensor<half> yOut = outQueue.DeQue<half>();
        DataCopy(yGm, yOut, TILE);
        outQueue.FreeTensor(yOut);
    }

private:
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    TQue<QuePosition::VECCALC, 1> wideBuf;
    TQue<QuePosition::VECCALC, 1> narrowBuf;
    GlobalTensor<half> xGm, yGm;
    bool wide;
};

extern "C" __global__ __aicore__ void convert_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                     GM_ADDR tiling)
{
    TPipe pipe;
    KernelConvert op;
    op.Init(x, y, 1, &pipe);
    op.Process();
}
