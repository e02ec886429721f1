// KernelCopy moving 256 floats per tile.
#pragma once
#include "kernel_operator.h"
using namespace AscendC;

class KernelCopy {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y) {
        xGm.SetGlobalBuffer((__gm__ float*)x + GetBlockIdx() * 256, 256);
        yGm.SetGlobalBuffer((__gm__ float*)y + GetBlockIdx() * 256, 256);
        pipe.InitBuffer(que, 1, 256 * sizeof(float));
    }
    __aicore__ inline void Process() {
        LocalTensor<float> t = que.AllocTensor<float>();
        DataCopy(t, xGm, 256);
        que.EnQue(t);
        t = que.DeQue<float>();
        DataCopy(yGm, t, 256);
        que.FreeTensor(t);
    }

  private:
    TPipe pipe;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> que;
    GlobalTensor<float> xGm, yGm;
};
