// Mix (AIC + AIV) kernels: `mix CASE report [x out]`. KERNEL_TASK_TYPE_DEFAULT(MIX_AIC_1_2)
// launches one AIC and two AIVs per block; cross-core flags order their work. Seeded bugs
// carry `// BUG: <case>` on the line the report must name.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

constexpr uint32_t kTile = 64;  // floats each AIV handles
static GM_ADDR g_x, g_ws, g_y, g_z;

static void print_identity() {
    std::printf("core aic=%d idx=%lld sub=%lld num=%lld subnum=%lld\n", ASCEND_IS_AIC ? 1 : 0, (long long)GetBlockIdx(),
                (long long)GetSubBlockIdx(), (long long)GetBlockNum(), (long long)GetSubBlockNum());
}

// AIC of block b: ws[v] = 2 * x[v] for the tiles of its AIVs, flag 3 to them (mode 2); waits
// for their flag 4, then z[b] = sum of the y tiles they wrote. AIV v: waits for flag 3,
// y[v] = ws[v] + 1 through UB, flag 4 to its AIC.
static void pipeline() {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    print_identity();
    GlobalTensor<float> x, ws, y, z;
    x.SetGlobalBuffer((__gm__ float*)g_x, 4 * kTile);
    ws.SetGlobalBuffer((__gm__ float*)g_ws, 4 * kTile);
    y.SetGlobalBuffer((__gm__ float*)g_y, 4 * kTile);
    z.SetGlobalBuffer((__gm__ float*)g_z, 2);
    if ASCEND_IS_AIC {
        int64_t b = GetBlockIdx();
        for (uint32_t i = 0; i < 2 * kTile; ++i) ws.SetValue(b * 2 * kTile + i, 2.0f * x.GetValue(b * 2 * kTile + i));
        CrossCoreSetFlag<2, PIPE_FIX>(3);
        CrossCoreWaitFlag(4);
        float s = 0.0f;
        for (uint32_t i = 0; i < 2 * kTile; ++i) s += y.GetValue(b * 2 * kTile + i);
        z.SetValue(b, s);
    }
    if ASCEND_IS_AIV {
        CrossCoreWaitFlag(3);
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, kTile * sizeof(float));
        auto t = buf.Get<float>();
        int64_t v = GetBlockIdx();
        DataCopy(t, ws[v * kTile], kTile);
        SetFlag<HardEvent::MTE2_V>(EVENT_ID0);
        WaitFlag<HardEvent::MTE2_V>(EVENT_ID0);
        Adds(t, t, 1.0f, kTile);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        DataCopy(y[v * kTile], t, kTile);
        CrossCoreSetFlag<2, PIPE_MTE3>(4);
    }
}

static std::map<std::string, std::pair<uint32_t, std::function<void()>>> cases() {
    std::map<std::string, std::pair<uint32_t, std::function<void()>>> c;
    c["ok_pipeline"] = {2, pipeline};
    c["ok_aiv_pair_and_all"] = {2, [] {
        // mode 1: the two AIVs of a block meet; mode 0: all four AIVs meet. Each AIV publishes
        // its index, then reads its partner's and the next block's.
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
        if ASCEND_IS_AIC return;
        GlobalTensor<float> y;
        y.SetGlobalBuffer((__gm__ float*)g_y, 4 * kTile);
        int64_t v = GetBlockIdx();
        y.SetValue(v, static_cast<float>(100 + v));
        CrossCoreSetFlag<1, PIPE_S>(5);
        CrossCoreWaitFlag(5);
        float partner = y.GetValue(v ^ 1);
        CrossCoreSetFlag<0, PIPE_S>(6);
        CrossCoreWaitFlag(6);
        float next = y.GetValue((v + 2) % 4);
        std::printf("aiv %lld partner %g next %g\n", (long long)v, partner, next);
    }};
    c["mix_block_dim"] = {25, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);  // BUG: mix_block_dim
    }};
    c["sync_all_block_dim"] = {49, [] {
        SyncAll();  // BUG: sync_all_block_dim
    }};
    c["cross_wait_never_set"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
        if ASCEND_IS_AIV {
            CrossCoreWaitFlag(7);  // BUG: cross_wait_never_set
        }
    }};
    c["cross_wait_vector_only"] = {2, [] {
        CrossCoreWaitFlag<2, PIPE_S>(1);  // BUG: cross_wait_vector_only
    }};
    c["cross_flag_overflow"] = {1, [] {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
        if ASCEND_IS_AIC {
            for (int i = 0; i < 15; ++i) CrossCoreSetFlag<2, PIPE_FIX>(2);
            CrossCoreSetFlag<2, PIPE_FIX>(2);  // BUG: cross_flag_overflow
        }
    }};
    c["cross_flag_range"] = {1, [] {
        CrossCoreSetFlag<2, PIPE_S>(11);  // BUG: cross_flag_range
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3, 5}, "mix CASE report [x.bin out_dir/]");
    std::vector<uint8_t> xs = argc == 5 ? tio::read_bytes(argv[3]) : std::vector<uint8_t>(4 * kTile * 4, 0);
    tio::Gm x(xs, "x"), ws(4 * kTile * 4, "workspace"), y(4 * kTile * 4, "y"), z(2 * 4, "z");
    g_x = x.addr();
    g_ws = ws.addr();
    g_y = y.addr();
    g_z = z.addr();
    tio::run(chosen.first, argv[2], chosen.second);
    if (argc == 5) {
        std::string out = argv[4];
        tio::write_bytes(out + "y.bin", y.bytes.data(), y.bytes.size());
        tio::write_bytes(out + "z.bin", z.bytes.data(), z.bytes.size());
    }
    return 0;
}
