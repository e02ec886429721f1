// Device idioms of real kernels: bisheng's `__forceinline__ [aicore]`, system functions called
// unqualified inside templates, ASSERT, printf/PRINTF/DumpTensor, KERNEL_TASK_TYPE_DEFAULT, two
// tiling keys read with GET_TILING_DATA (after REGISTER_TILING_DEFAULT) and with
// GET_TILING_DATA_WITH_STRUCT, naming the tiling struct at global scope.
#include "kernel_operator.h"

template <typename T>
__aicore__ inline uint32_t Share(uint32_t total) {
    return total / GetBlockNum();
}

template <typename T>
__forceinline__ [aicore] uint32_t Start(uint32_t share) {
    return share * GetBlockIdx();
}

template <typename T>
class KernelScale {
  public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t total, float factor) {
        share = Share<T>(total);
        ASSERT(share % 8 == 0, "share %u is not a whole number of 32-byte blocks", share);
        xGm.SetGlobalBuffer((__gm__ T*)x + Start<T>(share), share);
        yGm.SetGlobalBuffer((__gm__ T*)y + Start<T>(share), share);
        pipe.InitBuffer(buf, share * sizeof(T));
        this->factor = factor;
    }
    __aicore__ inline void Process() {
        AscendC::LocalTensor<T> t = buf.Get<T>();
        AscendC::DataCopy(t, xGm, share);
        AscendC::SetFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::MTE2_V>(EVENT_ID0);
        printf("block %d share %u\n", static_cast<int>(GetBlockIdx()), share);
        AscendC::PRINTF("factor %f\n", factor);
        AscendC::Muls(t, t, static_cast<T>(factor), share);
        AscendC::DumpTensor(t, 1, 8);
        AscendC::SetFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::WaitFlag<AscendC::HardEvent::V_MTE3>(EVENT_ID0);
        AscendC::DataCopy(yGm, t, share);
    }

  private:
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<T> xGm, yGm;
    uint32_t share = 0;
    float factor = 0;
};

extern "C" __global__ __aicore__ void device_idioms(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    REGISTER_TILING_DEFAULT(DeviceIdiomsTilingData);
    KernelScale<float> op;
    if (TILING_KEY_IS(1)) {
        GET_TILING_DATA(td, tiling);
        op.Init(x, y, td.total, td.factor);
    } else if (TILING_KEY_IS(2)) {
        GET_TILING_DATA_WITH_STRUCT(DeviceIdiomsTilingData, td, tiling);
        op.Init(x, y, td.total, td.factor);
    }
    op.Process();
}
