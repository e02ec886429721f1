// Elementwise LeakyReLU over a length that does not divide evenly: big-core/small-core split of
// 32-byte blocks across cores, double-buffered tiles, and a tail tile copied with DataCopyPad.
// kernelgen: block_dim=8
#include "kernel_operator.h"
using namespace AscendC;

constexpr uint32_t TOTAL_LENGTH = 100003;
constexpr uint32_t BLOCK_DIM = 8;
constexpr uint32_t TILE_LENGTH = 4096;
constexpr uint32_t ELEMS_PER_BLOCK = 8;  // 32 B of float
constexpr int32_t BUFFER_NUM = 2;
constexpr float ALPHA = 0.01f;

class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, TPipe* pipeIn)
    {
        pipe = pipeIn;
        uint32_t blockIdx = GetBlockIdx();
        uint32_t totalBlocks = (TOTAL_LENGTH + ELEMS_PER_BLOCK - 1) / ELEMS_PER_BLOCK;
        uint32_t smallBlocks = totalBlocks / BLOCK_DIM;
        uint32_t bigCoreNum = totalBlocks % BLOCK_DIM;
        uint32_t start = 0;
        if (blockIdx < bigCoreNum) {
            coreLength = (smallBlocks + 1) * ELEMS_PER_BLOCK;
            start = blockIdx * coreLength;
        } else {
            coreLength = smallBlocks * ELEMS_PER_BLOCK;
            start = bigCoreNum * (smallBlocks + 1) * ELEMS_PER_BLOCK + (blockIdx - bigCoreNum) * coreLength;
        }
        if (start + coreLength > TOTAL_LENGTH) {
            coreLength = TOTAL_LENGTH - start;
        }
        tileCount = (coreLength + TILE_LENGTH - 1) / TILE_LENGTH;
        lastTileLength = coreLength - (tileCount - 1) * TILE_LENGTH;
        xGm.SetGlobalBuffer((__gm__ float*)x + start, coreLength);
        yGm.SetGlobalBuffer((__gm__ float*)y + start, coreLength);
        pipe->InitBuffer(inQueue, BUFFER_NUM, TILE_LENGTH * sizeof(float));
        pipe->InitBuffer(outQueue, BUFFER_NUM, TILE_LENGTH * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileCount; i++) {
            uint32_t len = (i + 1 == tileCount) ? lastTileLength : TILE_LENGTH;
            CopyIn(i, len);
            Compute(len);
            CopyOut(i, len);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t i, uint32_t len)
    {
        LocalTensor<float> xLocal = inQueue.AllocTensor<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
        DataCopyPadExtParams<float> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[i * TILE_LENGTH], params, pad);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t len)
    {
        LocalTensor<float> xLocal = inQueue.DeQue<float>();
        LocalTensor<float> yLocal = outQueue.AllocTensor<float>();
        LeakyRelu(yLocal, xLocal, ALPHA, len);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t i, uint32_t len)
    {
        LocalTensor<float> yLocal = outQueue.DeQue<float>();
        DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0, 0};
        DataCopyPad(yGm[i * TILE_LENGTH], yLocal, params);
        outQueue.FreeTensor(yLocal);
    }

    TPipe* pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    GlobalTensor<float> xGm;
    GlobalTensor<float> yGm;
    uint32_t coreLength = 0;
    uint32_t tileCount = 0;
    uint32_t lastTileLength = 0;
};

extern "C" __global__ __aicore__ void leaky_relu_tail(GM_ADDR x, GM_ADDR y)
{
    TPipe pipe;
    KernelLeakyRelu op;
    op.Init(x, y, &pipe);
    op.Process();
}
