// Row softmax: each core takes a range of rows (big/small core split); a row is copied in with
// DataCopyPad (any length), computed in float (max-subtracted exp, sum, scale), copied out.
// Rows are double buffered so the copy of row r+1 overlaps the compute of row r.
#include "kernel_operator.h"
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KernelSoftmax {
public:
    __aicore__ inline KernelSoftmax() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t cols_, uint32_t colsAligned_,
                                uint32_t formerNum, uint32_t formerRows, uint32_t tailRows)
    {
        uint32_t idx = GetBlockIdx();
        uint64_t startRow;
        if (idx < formerNum) {
            rowCount = formerRows;
            startRow = static_cast<uint64_t>(formerRows) * idx;
        } else {
            rowCount = tailRows;
            startRow = static_cast<uint64_t>(formerRows) * formerNum +
                       static_cast<uint64_t>(tailRows) * (idx - formerNum);
        }
        cols = cols_;
        colsAligned = colsAligned_;
        xGm.SetGlobalBuffer((__gm__ T*)x + startRow * cols, static_cast<uint64_t>(rowCount) * cols);
        yGm.SetGlobalBuffer((__gm__ T*)y + startRow * cols, static_cast<uint64_t>(rowCount) * cols);
        pipe.InitBuffer(inQueue, BUFFER_NUM, colsAligned * sizeof(T));
        pipe.InitBuffer(outQueue, BUFFER_NUM, colsAligned * sizeof(T));
        pipe.InitBuffer(rowBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(workBuf, colsAligned * sizeof(float));
        pipe.InitBuffer(reduceBuf, colsAligned * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t r = 0; r < rowCount; r++) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(uint32_t row)
    {
        LocalTensor<T> xLocal = inQueue.AllocTensor<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPadExtParams<T> pad{false, 0, 0, 0};
        DataCopyPad(xLocal, xGm[static_cast<uint64_t>(row) * cols], params, pad);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<T> xLocal = inQueue.DeQue<T>();
        LocalTensor<T> yLocal = outQueue.AllocTensor<T>();
        LocalTensor<float> row = rowBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        LocalTensor<float> reduced = reduceBuf.Get<float>();
        if constexpr (sizeof(T) == sizeof(float)) {
            Adds(row, xLocal, 0.0f, cols);
        } else {
            Cast(row, xLocal, RoundMode::CAST_NONE, cols);
        }
        ReduceMax(reduced, row, work, cols);
        float maxValue = ScalarOf(reduced);
        Adds(row, row, -maxValue, cols);
        Exp(row, row, cols);
        ReduceSum(reduced, row, work, cols);
        float sum = ScalarOf(reduced);
        if constexpr (sizeof(T) == sizeof(float)) {
            Muls(yLocal, row, 1.0f / sum, cols);
        } else {
            Muls(row, row, 1.0f / sum, cols);
            Cast(yLocal, row, RoundMode::CAST_RINT, cols);
        }
        outQueue.EnQue<T>(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(uint32_t row)
    {
        LocalTensor<T> yLocal = outQueue.DeQue<T>();
        DataCopyExtParams params{1, static_cast<uint32_t>(cols * sizeof(T)), 0, 0, 0};
        DataCopyPad(yGm[static_cast<uint64_t>(row) * cols], yLocal, params);
        outQueue.FreeTensor(yLocal);
    }
    // A reduction result read by the scalar unit: wait for the vector pipe first.
    __aicore__ inline float ScalarOf(const LocalTensor<float>& reduced)
    {
        event_t eventVS = static_cast<event_t>(GetTPipePtr()->FetchEventID(HardEvent::V_S));
        SetFlag<HardEvent::V_S>(eventVS);
        WaitFlag<HardEvent::V_S>(eventVS);
        return reduced.GetValue(0);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<QuePosition::VECCALC> rowBuf, workBuf, reduceBuf;
    GlobalTensor<T> xGm, yGm;
    uint32_t rowCount = 0;
    uint32_t cols = 0;
    uint32_t colsAligned = 0;
};

extern "C" __global__ __aicore__ void softmax_custom(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    KernelSoftmax<DTYPE_X> op;
    op.Init(x, y, tilingData.cols, tilingData.colsAligned, tilingData.formerNum, tilingData.formerRows,
            tilingData.tailRows);
    op.Process();
}
