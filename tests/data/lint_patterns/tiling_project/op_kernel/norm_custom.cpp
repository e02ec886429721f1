// Fields read through local variables, two tiling structs picked by tiling key, a tail row
// count, and a kernel-side mirror of the tiling struct spelled with other type names.
#include "kernel_operator.h"
using namespace AscendC;

struct NormCustomTilingData {
    unsigned int rowNum;
    unsigned int colNum;
    uint32_t rowsPerCore;
    float epsilon;
};

class KernelNorm {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t rows, uint32_t cols,
                                uint32_t perCore, float eps, TPipe* pipe)
    {
        colNum = cols;
        epsilon = eps;
        uint32_t start = GetBlockIdx() * perCore;
        rowCount = start + perCore > rows ? (start > rows ? 0 : rows - start) : perCore;
        xGm.SetGlobalBuffer((__gm__ float*)x + start * cols, rowCount * cols);
        yGm.SetGlobalBuffer((__gm__ float*)y + start * cols, rowCount * cols);
        pipe->InitBuffer(inQueue, 2, cols * sizeof(float));
        pipe->InitBuffer(outQueue, 2, cols * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            LocalTensor<float> x = inQueue.AllocTensor<float>();
            DataCopyExtParams params{1, static_cast<uint32_t>(colNum * sizeof(float)), 0, 0, 0};
            DataCopyPad(x, xGm[r * colNum], params, DataCopyPadExtParams<float>{false, 0, 0, 0});
            inQueue.EnQue(x);
            LocalTensor<float> xIn = inQueue.DeQue<float>();
            LocalTensor<float> y = outQueue.AllocTensor<float>();
            Muls(y, xIn, epsilon, colNum);
            outQueue.EnQue(y);
            inQueue.FreeTensor(xIn);
            LocalTensor<float> yOut = outQueue.DeQue<float>();
            DataCopyPad(yGm[r * colNum], yOut, params);
            outQueue.FreeTensor(yOut);
        }
    }

private:
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 2> outQueue;
    GlobalTensor<float> xGm, yGm;
    uint32_t colNum;
    uint32_t rowCount;
    float epsilon;
};

extern "C" __global__ __aicore__ void norm_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace,
                                                  GM_ADDR tiling)
{
    TPipe pipe;
    if (TILING_KEY_IS(1)) {
        GET_TILING_DATA(tilingData, tiling);
        uint32_t rows = tilingData.rowNum;
        uint32_t cols = tilingData.colNum;
        KernelNorm op;
        op.Init(x, y, rows, cols, tilingData.rowsPerCore, tilingData.epsilon, &pipe);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        GET_TILING_DATA_WITH_STRUCT(NormCustomWideTilingData, wide, tiling);
        KernelNorm op;
        op.Init(x, y, wide.rowNum, wide.splitCol, 1, 0.0f, &pipe);
        op.Process();
    }
}
