// Blocks storing to the same GM bytes with no SyncAll between: a race unless both store the very
// bytes already there (every block zeroing one shared workspace, DrivingSDK pixel_group).
// `gm_identical CASE report`. Faulty calls carry `// BUG: <case>`, tolerated ones `// WARN: <case>`.
#include <functional>
#include <map>

#include "test_io.h"

using namespace AscendC;

static GM_ADDR g_ws;
constexpr uint32_t N = 64;  // floats in the workspace

struct Case {
    uint32_t blocks;
    std::function<void()> body;
};

static GlobalTensor<float> workspace() {
    GlobalTensor<float> ws;
    ws.SetGlobalBuffer((__gm__ float*)g_ws, N);
    return ws;
}

static std::map<std::string, Case> cases() {
    std::map<std::string, Case> c;
    // Every block zeroes the workspace, then reads it after a SyncAll: runs, one warning.
    c["ok_all_blocks_zero"] = {4, [] {
        auto ws = workspace();
        InitGlobalMemory(ws, N, 0.0f);  // WARN: ok_all_blocks_zero
        SyncAll();
        if (ws.GetValue(GetBlockIdx()) != 0.0f) kernelgen::fail("crash", "workspace not zero", __FILE__, __LINE__);
    }};
    // A block that zeroed the bytes too reads them: either store leaves the same zeros.
    c["ok_cowriter_reads"] = {2, [] {
        auto ws = workspace();
        InitGlobalMemory(ws, N, 0.0f);
        float v = ws.GetValue(3);
        (void)v;
    }};
    // pixel_group's shape: zero, then accumulate, no SyncAll between the phases. Block 1's zeroes
    // land on what block 0 already added: on the NPU they may wipe it out.
    c["zero_after_atomic_add"] = {2, [] {
        auto ws = workspace();
        InitGlobalMemory(ws, N, 0.0f);  // BUG: zero_after_atomic_add
        TPipe pipe;
        TBuf<TPosition::VECCALC> buf;
        pipe.InitBuffer(buf, N * sizeof(float));
        auto t = buf.Get<float>();
        Duplicate(t, 1.0f, N);
        SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
        WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
        SetAtomicAdd<float>();
        DataCopy(ws, t, N);
        SetAtomicNone();
    }};
    // Two identical zeroings, then block 1 stores other bytes: block 0's zeroes may land later.
    c["other_bytes_after_shared_zero"] = {2, [] {
        auto ws = workspace();
        InitGlobalMemory(ws, N, 0.0f);
        if (GetBlockIdx() == 1) ws.SetValue(5, 7.0f);  // BUG: other_bytes_after_shared_zero
    }};
    // Blocks 0 and 1 zero, block 2 reads with nothing ordering it after either: it may see the
    // zeroes or what was there before, so it reads poison (a warning).
    c["third_block_reads"] = {3, [] {
        auto ws = workspace();
        if (GetBlockIdx() < 2) InitGlobalMemory(ws, N, 0.0f);
        if (GetBlockIdx() == 2) {
            float v = ws.GetValue(0);  // WARN: third_block_reads
            std::printf("block 2 reads %g\n", v);
        }
    }};
    // Block 0 raises the workspace with SetAtomicMax (or adds to it), block 1 reads it with
    // nothing ordering the two: a read of bytes other blocks only raise with AtomicMax gets
    // poison below every value (a later AtomicMax of it changes nothing, whichever value the NPU
    // read), one of bytes they add to gets the usual poison.
    for (const char* mode : {"max", "add"}) {
        const bool max = std::string(mode) == "max";
        c[std::string("read_after_atomic_") + mode] = {2, [max] {
            auto ws = workspace();
            if (GetBlockIdx() == 0) {
                TPipe pipe;
                TBuf<TPosition::VECCALC> buf;
                pipe.InitBuffer(buf, N * sizeof(float));
                auto t = buf.Get<float>();
                Duplicate(t, 5.0f, N);
                SetFlag<HardEvent::V_MTE3>(EVENT_ID0);
                WaitFlag<HardEvent::V_MTE3>(EVENT_ID0);
                if (max) SetAtomicMax<float>();
                else SetAtomicAdd<float>();
                DataCopy(ws, t, N);
                SetAtomicNone();
            } else {
                float v = ws.GetValue(0);  // WARN: read_after_atomic
                std::printf("block 1 reads %g\n", v);
            }
        }};
    }
    c["different_values"] = {2, [] {
        auto ws = workspace();
        InitGlobalMemory(ws, N, static_cast<float>(GetBlockIdx()));  // BUG: different_values
    }};
    return c;
}

int main(int argc, char** argv) {
    auto all = cases();
    const auto& chosen = tio::select_case(all, argc, argv, {3}, "gm_identical CASE report");
    tio::Gm ws(N * sizeof(float), "workspace");
    g_ws = ws.addr();
    tio::run(chosen.blocks, argv[2], chosen.body);
    return 0;
}
