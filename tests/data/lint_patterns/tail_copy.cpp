// A tiled copy whose last tile is shorter: the tail count `length - i * tile` comes from the
// runtime length. Moved with DataCopyPad, and its block-rounded size for the vector op.
#include "kernel_operator.h"
using namespace AscendC;

class KernelTail {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t tileLength,
                                TPipe* pipe)
    {
        length = totalLength;
        tile = tileLength;
        tiles = (length + tile - 1) / tile;
        xGm.SetGlobalBuffer((__gm__ float*)x, length);
        yGm.SetGlobalBuffer((__gm__ float*)y, length);
        pipe->InitBuffer(inQueue, 2, tile * sizeof(float));
        pipe->InitBuffer(outQueue, 2, tile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tiles; i++) {
            uint32_t count = (i == tiles - 1) ? length - i * tile : tile;
            uint32_t padded = (count + 7) / 8 * 8;
            LocalTensor<float> x = inQueue.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(float)), 0, 0, 0};
            DataCopyPad(x, xGm[i * tile], params, DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQueue.EnQue(x);
            LocalTensor<float> xIn = inQueue.DeQue<float>();
            LocalTensor<float> y = outQueue.AllocTensor<float>();
            Abs(y, xIn, padded);
            outQueue.EnQue(y);
            inQueue.FreeTensor(xIn);
            LocalTensor<float> yOut = outQueue.DeQue<float>();
            DataCopyPad(yGm[i * tile], yOut, params);
            outQueue.FreeTensor(yOut);
        }
    }

private:
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm, yGm;
    uint32_t length, tile, tiles;
};

extern "C" __global__ __aicore__ void tail_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    TPipe pipe;
    KernelTail op;
    op.Init(x, y, tilingData.totalLength, tilingData.tileLength, &pipe);
    op.Process();
}
