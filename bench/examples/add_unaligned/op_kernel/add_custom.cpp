// z = x + y over any element count: big/small core split, double-buffered tiles, and
// DataCopyPad for the unaligned tail. bfloat16 is added in float (no bf16 Add on the vector unit).
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelAdd {
public:
    __aicore__ inline KernelAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t formerNum,
                                uint32_t formerLength, uint32_t tailLength, uint32_t tileLen)
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
            blockLength = totalLength - offset;  // the last core takes the unaligned rest
        }
        tileLength = tileLen;
        xGm.SetGlobalBuffer((__gm__ T*)x + offset, blockLength);
        yGm.SetGlobalBuffer((__gm__ T*)y + offset, blockLength);
        zGm.SetGlobalBuffer((__gm__ T*)z + offset, blockLength);
        pipe.InitBuffer(inQueueX, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(inQueueY, BUFFER_NUM, tileLength * sizeof(T));
        pipe.InitBuffer(outQueueZ, BUFFER_NUM, tileLength * sizeof(T));
        if constexpr (IS_BF16) {
            pipe.InitBuffer(calcBuf, 3 * tileLength * sizeof(float));
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
        LocalTensor<T> xLocal = inQueueX.AllocTensor<T>();
        LocalTensor<T> yLocal = inQueueY.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[progress * tileLength], params, pad);
        DataCopyPad(yLocal, yGm[progress * tileLength], params, pad);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(uint32_t length)
    {
        LocalTensor<T> xLocal = inQueueX.DeQue<T>();
        LocalTensor<T> yLocal = inQueueY.DeQue<T>();
        LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
        if constexpr (IS_BF16) {
            LocalTensor<float> xf = calcBuf.Get<float>();
            LocalTensor<float> yf = xf[tileLength];
            LocalTensor<float> zf = xf[2 * tileLength];
            Cast(xf, xLocal, RoundMode::CAST_NONE, length);
            Cast(yf, yLocal, RoundMode::CAST_NONE, length);
            Add(zf, xf, yf, length);
            Cast(zLocal, zf, RoundMode::CAST_RINT, length);
        } else {
            Add(zLocal, xLocal, yLocal, length);
        }
        outQueueZ.EnQue<T>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(uint32_t progress, uint32_t length)
    {
        LocalTensor<T> zLocal = outQueueZ.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(length * sizeof(T)), 0, 0, 0};
        DataCopyPad(zGm[progress * tileLength], zLocal, params);
        outQueueZ.FreeTensor(zLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueueX, inQueueY;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueueZ;
    TBuf<QuePosition::VECCALC> calcBuf;
    GlobalTensor<T> xGm, yGm, zGm;
    uint32_t blockLength = 0;
    uint32_t tileLength = 0;
};

extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelAdd<DTYPE_X> op;
    op.Init(x, y, z, tilingData.totalLength, tilingData.formerNum, tilingData.formerLength,
            tilingData.tailLength, tilingData.tileLength);
    op.Process();
}
