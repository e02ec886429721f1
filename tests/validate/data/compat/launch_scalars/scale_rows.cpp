// A kernel file as vllm-ascend writes them: the entry is made per element type by a macro, it
// takes its sizes and scale by value, and the host launch beside it (never run by the harness)
// computes blockDim from those arguments. The output's type is an alias of the class.
#include "kernel_operator.h"

template <typename scalar_t>
class ScaleRows {
public:
    using X_T = scalar_t;
    using Y_T = float;

    __aicore__ inline void Init(__gm__ void* x, __gm__ void* y, uint32_t rows, uint32_t rowsPerCore,
                                uint32_t cols, float scale)
    {
        rows_ = rows;
        rowsPerCore_ = rowsPerCore;
        cols_ = cols;
        scale_ = scale;
        xGm_.SetGlobalBuffer((__gm__ X_T*)x, rows * cols);
        yGm_.SetGlobalBuffer((__gm__ Y_T*)y, rows * cols);
        pipe_.InitBuffer(inQueue_, 1, cols * sizeof(X_T));
        pipe_.InitBuffer(outQueue_, 1, cols * sizeof(Y_T));
    }

    __aicore__ inline void Process()
    {
        uint32_t start = AscendC::GetBlockIdx() * rowsPerCore_;
        uint32_t end = start + rowsPerCore_ < rows_ ? start + rowsPerCore_ : rows_;
        for (uint32_t r = start; r < end; ++r) {
            AscendC::LocalTensor<X_T> x = inQueue_.AllocTensor<X_T>();
            AscendC::DataCopy(x, xGm_[r * cols_], cols_);
            inQueue_.EnQue(x);
            x = inQueue_.DeQue<X_T>();
            AscendC::LocalTensor<Y_T> y = outQueue_.AllocTensor<Y_T>();
            AscendC::Cast(y, x, AscendC::RoundMode::CAST_NONE, cols_);
            AscendC::Muls(y, y, scale_, cols_);
            outQueue_.EnQue(y);
            inQueue_.FreeTensor(x);
            y = outQueue_.DeQue<Y_T>();
            AscendC::DataCopy(yGm_[r * cols_], y, cols_);
            outQueue_.FreeTensor(y);
        }
    }

private:
    AscendC::TPipe pipe_;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> inQueue_;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> outQueue_;
    AscendC::GlobalTensor<X_T> xGm_;
    AscendC::GlobalTensor<Y_T> yGm_;
    uint32_t rows_, rowsPerCore_, cols_;
    float scale_;
};

#define SCALE_ROWS_DECLARE(TYPE)                                                                 \
    extern "C" __global__ __aicore__ void scale_rows_##TYPE(__gm__ void* x, __gm__ void* y,      \
                                                            uint32_t rows, uint32_t rowsPerCore, \
                                                            uint32_t cols, float scale)          \
    {                                                                                            \
        ScaleRows<TYPE> op;                                                                      \
        op.Init(x, y, rows, rowsPerCore, cols, scale);                                           \
        op.Process();                                                                            \
    }

SCALE_ROWS_DECLARE(half)

void scale_rows_launch(void* stream, void* x, void* y, uint32_t rows, uint32_t rowsPerCore,
                       uint32_t cols, float scale)
{
    uint32_t blockDim = (rows + rowsPerCore - 1) / rowsPerCore;
    scale_rows_half<<<blockDim, nullptr, stream>>>(x, y, rows, rowsPerCore, cols, scale);
}
