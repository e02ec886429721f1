// x <- min(x, y), written through the input x (the output x_ref is the same tensor on the NPU),
// with the whole-tensor comparison operator, the device min() builtin, the early `tik2`
// namespace, and a GM workspace TBuf far larger than UB.
#include "kernel_operator.h"
using namespace tik2;

class KernelInplaceMin {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, uint32_t tile) {
        this->total = total;
        this->tile = tile;
        xGm.SetGlobalBuffer((__gm__ float*)x, total);
        yGm.SetGlobalBuffer((__gm__ float*)y, total);
        pipe.InitBuffer(scratch, 0xFFFFFFFFu);
        pipe.InitBuffer(xBuf, tile * sizeof(float));
        pipe.InitBuffer(yBuf, tile * sizeof(float));
        pipe.InitBuffer(maskBuf, tile);
    }
    __aicore__ inline void Process() {
        LocalTensor<float> xl = xBuf.Get<float>();
        LocalTensor<float> yl = yBuf.Get<float>();
        LocalTensor<uint8_t> mask = maskBuf.Get<uint8_t>();
        for (uint32_t done = 0; done < total; done += tile) {
            uint32_t n = min(tile, total - done);
            DataCopy(xl, xGm[done], n);
            DataCopy(yl, yGm[done], n);
            SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
            mask = xl < yl;
            Select(xl, mask, xl, yl, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
            DataCopy(xGm[done], xl, n);
            SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
        }
    }

  private:
    TPipe pipe;
    TBuf<TPosition::GM> scratch;
    TBuf<TPosition::VECCALC> xBuf, yBuf, maskBuf;
    GlobalTensor<float> xGm, yGm;
    uint32_t total = 0;
    uint32_t tile = 0;
};

extern "C" __global__ __aicore__ void inplace_min(GM_ADDR x, GM_ADDR y, GM_ADDR x_ref, GM_ADDR workspace,
                                                  GM_ADDR tiling) {
    GET_TILING_DATA(td, tiling);
    KernelInplaceMin op;
    op.Init(x, y, td.total, td.tile);
    op.Process();
}
