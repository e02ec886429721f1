// KernelCopy moving 64 floats per tile.
#pragma once
#include "kernel_operator.h"
using namespace AscendC;

class KernelCopy {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
        xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * 64, 64);
        yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * 64, 64);
        pipe.InitBuffer(que, 1, 64 * sizeof(float));
    }
    __aicore__ inline void Process() {
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopy(t, xGm, 64);
        que.EnQue(t);
        t = que.DeQue<float>();
        DataCopy(yGm, t, 64);
        que.FreeTensor(t);
    }

  private:
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    GlobalTensor<float> xGm, yGm;
};
