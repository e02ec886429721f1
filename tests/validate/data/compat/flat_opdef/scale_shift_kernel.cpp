// Kernel of ScaleShift: y = 2 x + 1 over this block's blockLength elements, tileLength at a
// time; both lengths come from the host TilingFunc through the tiling buffer.
#include "kernel_operator.h"

class KernelScaleShift {
public:
    __aicore__ inline KernelScaleShift() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t blockLength, uint32_t tileLength)
    {
        this->tileNum = blockLength / tileLength;
        this->tileLength = tileLength;
        xGm.SetGlobalBuffer((__gm__ float*)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, 1, tileLength * sizeof(float));
        pipe.InitBuffer(outQueue, 1, tileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum; i++) {
            AscendC::LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
            AscendC::DataCopy(xLocal, xGm[i * tileLength], tileLength);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<float>();
            AscendC::LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
            AscendC::Muls(yLocal, xLocal, 2.0f, tileLength);
            AscendC::Adds(yLocal, yLocal, 1.0f, tileLength);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xLocal);
            yLocal = outQueue.DeQue<float>();
            AscendC::DataCopy(yGm[i * tileLength], yLocal, tileLength);
            outQueue.FreeTensor(yLocal);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueue;
    AscendC::TQue<AscendC::TPosition::VECOUT, 1> outQueue;
    AscendC::GlobalTensor<float> xGm, yGm;
    uint32_t tileNum;
    uint32_t tileLength;
};

extern "C" __global__ __aicore__ void scale_shift(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(t, tiling);
    KernelScaleShift op;
    op.Init(x, y, t.blockLength, t.tileLength);
    op.Process();
}
