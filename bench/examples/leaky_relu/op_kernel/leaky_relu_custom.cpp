// y = LeakyRelu(x, negative_slope): the slope comes from the operator attribute through tiling.
// Same data layout as add_custom: big/small cores, double-buffered tiles, DataCopyPad tail.
// bfloat16 is computed in float.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelLeakyRelu {
public:
    __aicore__ inline KernelLeakyRelu() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLen, float negativeSlope)
    {
        uint32_t idx = GetBlockIdx();
        uint64_t offset;
        if (idx < formerNum) {
            blockLength = formerLength;
            offset = static_cast<uint64_t>(formerLength) * idx;
        } else {
            blockLength = tailLength;
            offset = static_cast<uint64_t>(formerLength) * formerNum +
                     static_cast<uint64_t>(tailLength) * (idx - formerNum);
        }
        if (idx == GetBlockNum() - 1) {
            blockLength = totalLength - offset;
        }
        tileLength = tileLen;
        slope = negativeSlope;
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, blockLength);
        pipe.InitBuffer(inQueue, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueue, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (IS_BF16) {
            pipe.InitBuffer(calcBuf, tileLength * sizeof(float));
        }
    }
    __aicore__ inline void Process()
    {
        uint32_t tileNum = (blockLength + tileLength - 1) / tileLength;
        for (uint32_t i = 0; i < tileNum; i++) {
            uint32_t length = (i == tileNum - 1) ? blockLength - i * tileLength : tileLength;
            CopyIn(i, length);
            Compute(length);
            CopyOut(i, length);
        }
    }

private:
    static constexpr bool IS_BF16 = sizeof(T) == 2 && !std::is_same<T, half>::value;

    __aicore__ inline void CopyIn(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute(uint32_t length)
    {
        LocalTensor<T> xLocal = inQueue.DeQue<T>();
        LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        if constexpr (IS_BF16) {
            LocalTensor<float> xf = calcBuf.Get<float>();
            Cast(xf, xLocal, RoundMode::CAST_NONE, length);
            LeakyRelu(xf, xf, slope, length);
            Cast(yLocal, xf, RoundMode::CAST_RINT, length);
        } else {
            LeakyRelu(yLocal, xLocal, static_cast<T>(slope), length);
        }
        outQueue.EnQue<T>(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> yLocal = outQueue.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm[progress * tileLength], yLocal, params);
        outQueue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<QuePosition::VECCALC> calcBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
    float slope = 0.0f;
};

extern "C" __global__ __aicore__ void leaky_relu_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelLeakyRelu<DTYPE_X> op;
    op.Init(x, y, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength, tilingData.negativeSlope);
    op.Process();
}
