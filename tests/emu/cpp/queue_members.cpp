// The queue members real kernels call outside the AllocTensor -> EnQue -> DeQue -> FreeTensor
// pairing of one queue: AllocTensor/FreeTensor on a TBuf (CANN's TBuf derives from TQueBind) and
// FreeTensor through another queue. `queue_members CASE report`; y holds 2 * x where a case
// computes. Faulty calls carry `// BUG: <case>`, tolerated ones `// WARN: <case>`.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_x, g_y;
constexpr uint32_t N = 1024;  // floats in x and y

struct Case {
    uint32_t blocks;
    std::function<void()> body;
};

static std::map<std::string, Case> cases() {
    std::map<std::string, Case> c;
    // DrivingSDK roiaware_maxpool3d_grad: TBuf::AllocTensor once per loop trip, never freed. The
    // TBuf's one buffer comes back whole every time; the kernel doubles x through it.
    c["ok_tbuf_alloc_each_trip"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qin;
        TBuf<TPosition::VECCALC> work;
        GlobalTensor<float> gx, gy;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        gy.SetGlobalBuffer((__gm__ float*)g_y, N);
        pipe.InitBuffer(qin, 1, 256 * sizeof(float));
        pipe.InitBuffer(work, 256 * sizeof(float));
        uint64_t first = 0;
        for (uint32_t i = 0; i < N / 256; ++i) {
            auto x = qin.AllocTensor<float>();
            DataCopy(x, gx[i * 256], 256);
            qin.EnQue(x);
            x = qin.DeQue<float>();
            auto w = work.AllocTensor<float>();
            if (i == 0) first = w.GetPhyAddr();
            if (w.GetPhyAddr() != first || w.GetSize() != 256) kernelgen::fail("crash", "TBuf::AllocTensor moved", __FILE__, __LINE__);
            Muls(w, x, 2.0f, 256);
            qin.FreeTensor(x);
            SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
            WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
            DataCopy(gy[i * 256], w, 256);
            SetFlag<HardEvent::MTE3_V>(EVENT_ID0);
            WaitFlag<HardEvent::MTE3_V>(EVENT_ID0);
            if (i % 2) work.FreeTensor(w);  // releases nothing; the next trip's AllocTensor is the same buffer
        }
    }};
    c["tbuf_enque"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> work;
        pipe.InitBuffer(work, 256);
        auto w = work.AllocTensor<float>();
        work.EnQue(w);  // BUG: tbuf_enque
    }};
    c["tbuf_deque"] = {1, [] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> work;
        pipe.InitBuffer(work, 256);
        auto w = work.DeQue<float>();  // BUG: tbuf_deque
        (void)w;
    }};
    c["tbuf_free_queue_tensor"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> q;
        TBuf<TPosition::VECCALC> work;
        pipe.InitBuffer(q, 1, 256);
        pipe.InitBuffer(work, 256);
        auto t = q.AllocTensor<float>();
        work.FreeTensor(t);  // BUG: tbuf_free_queue_tensor
    }};
    // DrivingSDK points_in_box: two VECIN queues of different buffer sizes, each tensor freed
    // through the other queue, every loop trip. Each queue's next AllocTensor still hands out a
    // buffer of its own size (b is filled whole: a buffer of qa would be too small).
    c["ok_free_swapped_same_position"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qa;
        TQue<TPosition::VECIN, 2> qb;
        TQue<TPosition::VECOUT, 1> qout;
        GlobalTensor<float> gx, gy;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        gy.SetGlobalBuffer((__gm__ float*)g_y, N);
        pipe.InitBuffer(qa, 2, 64 * sizeof(float));
        pipe.InitBuffer(qb, 2, 256 * sizeof(float));
        pipe.InitBuffer(qout, 1, 64 * sizeof(float));
        for (uint32_t i = 0; i < N / 64; ++i) {
            auto a = qa.AllocTensor<float>();
            auto b = qb.AllocTensor<float>();
            DataCopy(a, gx[i * 64], 64);
            DataCopy(b, gx[(i * 64) % (N - 256)], 256);
            qa.EnQue(a);
            qb.EnQue(b);
            a = qa.DeQue<float>();
            b = qb.DeQue<float>();
            auto o = qout.AllocTensor<float>();
            Muls(o, a, 2.0f, 64);
            qout.EnQue(o);
            qa.FreeTensor(b);  // WARN: ok_free_swapped_same_position
            qb.FreeTensor(a);
            o = qout.DeQue<float>();
            DataCopy(gy[i * 64], o, 64);
            qout.FreeTensor(o);
        }
    }};
    c["free_swapped_twice"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qa, qb;
        pipe.InitBuffer(qa, 1, 256);
        pipe.InitBuffer(qb, 1, 512);
        auto a = qa.AllocTensor<float>();
        qb.FreeTensor(a);
        qa.FreeTensor(a);  // BUG: free_swapped_twice
    }};
    c["free_swapped_other_position"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qa;
        TQue<TPosition::VECOUT, 1> qb;
        pipe.InitBuffer(qa, 1, 256);
        pipe.InitBuffer(qb, 1, 256);
        auto a = qa.AllocTensor<float>();
        qb.FreeTensor(a);  // BUG: free_swapped_other_position
    }};
    // fbgemm-ascend split_embedding: a helper object holds copies of the kernel's queues
    // (`this->queIn = queIn`) and runs whole Alloc/EnQue/DeQue/Free rounds through them; the
    // kernel's own queues then take the same buffers.
    c["ok_queue_copy"] = {1, [] {
        struct Doubler {
            TQue<TPosition::VECIN, 1> qin;
            void Run(GlobalTensor<float>& gx, GlobalTensor<float>& gy, uint32_t at) {
                auto x = qin.AllocTensor<float>();
                DataCopy(x, gx[at], 256);
                qin.EnQue(x);
                x = qin.DeQue<float>();
                Muls(x, x, 2.0f, 256);
                SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
                WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
                DataCopy(gy[at], x, 256);
                SetFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
                WaitFlag<HardEvent::MTE3_MTE2>(EVENT_ID0);
                qin.FreeTensor(x);
            }
        };
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qin;
        GlobalTensor<float> gx, gy;
        gx.SetGlobalBuffer((__gm__ float*)g_x, N);
        gy.SetGlobalBuffer((__gm__ float*)g_y, N);
        pipe.InitBuffer(qin, 1, 256 * sizeof(float));
        Doubler d;
        d.qin = qin;
        for (uint32_t i = 0; i < N / 256; ++i) {
            if (i % 2) {
                d.Run(gx, gy, i * 256);
                continue;
            }
            Doubler own{qin};
            own.Run(gx, gy, i * 256);
        }
    }};
    // The copy's buffer is the queue's: allocated through the copy, the original has none left.
    c["queue_copy_shares_buffers"] = {1, [] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qin;
        pipe.InitBuffer(qin, 1, 256);
        TQue<TPosition::VECIN, 1> copy = qin;
        auto t = copy.AllocTensor<float>();
        (void)t;
        qin.AllocTensor<float>();  // BUG: queue_copy_shares_buffers
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3}, "queue_members CASE report");
    std::vector<uint8_t> xs(N * sizeof(float));
    for (uint32_t i = 0; i < N; ++i) {
        float v = static_cast<float>(i);
        std::memcpy(&xs[i * 4], &v, 4);
    }
    tio::Gm x(xs, "x"), y(N * sizeof(float), "y");
    g_x = x.addr();
    g_y = y.addr();
    tio::run(chosen.blocks, argv[2], chosen.body);
    const float* out = reinterpret_cast<const float*>(g_y);
    for (uint32_t i = 0; i < N; ++i)
        if (out[i] != 2.0f * static_cast<float>(i)) {
            std::printf("y[%u] = %g, expected %g\n", i, out[i], 2.0f * static_cast<float>(i));
            return 1;
        }
    std::printf("y = 2 * x\n");
    return 0;
}
