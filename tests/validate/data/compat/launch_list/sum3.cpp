// A kernel-launch sample whose first parameter is a tensor list: the host program builds one
// ListTensorDesc in GM (pointer-table offset, a TensorDesc per tensor, the data pointers) and the
// kernel reads the tensors' shape and addresses from it.
#include "kernel_operator.h"
#include "kernel_operator_list_tensor_intf.h"
using namespace AscendC;

constexpr int32_t LIST_SIZE = 3;

extern "C" __global__ __aicore__ void sum3(GM_ADDR srcList, GM_ADDR dst) {
    ListTensorDesc list(reinterpret_cast<__gm__ void*>(srcList));
    uint64_t dims[2] = {0, 0};
    TensorDesc<float> desc;
    desc.SetShapeAddr(dims);
    list.GetDesc(desc, 0);
    const int32_t length = static_cast<int32_t>(desc.GetShape(0) * desc.GetShape(1));
    TPipe pipe;
    TBuf<TPosition::VECCALC> accBuf, inBuf;
    pipe.InitBuffer(accBuf, length * sizeof(float));
    pipe.InitBuffer(inBuf, length * sizeof(float));
    LocalTensor<float> acc = accBuf.Get<float>(), in = inBuf.Get<float>();
    GlobalTensor<float> gm;
    gm.SetGlobalBuffer(list.GetDataPtr<float>(0), length);
    DataCopy(acc, gm, length);
    for (int32_t k = 1; k < LIST_SIZE; ++k) {
        gm.SetGlobalBuffer(list.GetDataPtr<float>(k), length);
        SetFlag<HardEvent::V_MTE2>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE2>(EVENT_ID0);
        DataCopy(in, gm, length);
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        Add(acc, acc, in, length);
    }
    SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
    WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
    GlobalTensor<float> out;
    out.SetGlobalBuffer((__gm__ float*)dst, length);
    DataCopy(out, acc, length);
}

#ifndef __CCE_KT_TEST__
void sum3_do(uint32_t blockDim, void* l2ctrl, void* stream, uint8_t* srcList, uint8_t* dst) {
    sum3<<<blockDim, l2ctrl, stream>>>(srcList, dst);
}
#endif
