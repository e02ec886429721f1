// int4b_t: packed 4-bit tensors (two elements to a byte), Cast half <-> int4b_t, ReinterpretCast to
// and from int8_t, DataCopy of int4b_t tensors. `int4 CASE ARGS...`:
//   to_int4 MODE N x out report    half x -> Cast(int4b_t, MODE) -> ReinterpretCast<int8_t> -> out bytes
//   via_gm MODE N x out report     the same, copied out by DataCopy of a GlobalTensor<int4b_t>
//   masked MODE N x out report     the same Cast in the mask form: 128 lanes a repeat (half's), dst repeats 2 blocks
//   from_int4 N q out report       packed bytes q -> DataCopy(LocalTensor<int4b_t>) -> Cast(half) -> out
//   scalar N q out report          GetValue of every element of q, then SetValue(i, -i % 8) -> out bytes
//   sizes N - out report           GetSize/GetLength of an int4b_t tensor, its int8_t view and back (int32 out)
//   misuse NAME - - report         one documented misuse (NAME below), expected to stop the run
#include <map>
#include <string>

#include "test_io.h"

using namespace AscendC;

namespace {

using Case = int (*)(int, char**);

// Queue and buffer sizes follow the Cast reference: n int4b_t elements take n / 2 bytes.
enum class Out { kBytes, kGm, kMasked };

int to_int4(int, char** argv, Out how) {
    auto mode = static_cast<RoundMode>(std::atoi(argv[2]));
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[3]));
    tio::Gm x(tio::read_bytes(argv[4]), "x"), z(n / 2, "z");
    tio::run(1, argv[6], [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qin;
        TQue<TPosition::VECOUT, 1> qout;
        pipe.InitBuffer(qin, 1, n * sizeof(half));
        pipe.InitBuffer(qout, 1, n / 2);
        GlobalTensor<half> gx;
        gx.SetGlobalBuffer((__gm__ half*)x.addr(), n);
        LocalTensor<half> lx = qin.AllocTensor<half>();
        DataCopy(lx, gx, n);
        qin.EnQue(lx);
        lx = qin.DeQue<half>();
        LocalTensor<int4b_t> lq = qout.AllocTensor<int4b_t>();
        if (how == Out::kMasked)
            Cast(lq, lx, mode, uint64_t(128), int64_t(n / 128), {1, 1, 2, 8});
        else
            Cast(lq, lx, mode, n);
        qout.EnQue(lq);
        lq = qout.DeQue<int4b_t>();
        if (how == Out::kGm) {
            GlobalTensor<int4b_t> gz;
            gz.SetGlobalBuffer((__gm__ int4b_t*)z.addr(), n);
            DataCopy(gz, lq, n);
        } else {
            GlobalTensor<int8_t> gz;
            gz.SetGlobalBuffer((__gm__ int8_t*)z.addr(), n / 2);
            DataCopy(gz, lq.ReinterpretCast<int8_t>(), n / 2);
        }
        qout.FreeTensor(lq);
        qin.FreeTensor(lx);
    });
    tio::write_bytes(argv[5], z.bytes.data(), z.bytes.size());
    return 0;
}

int from_int4(int, char** argv) {
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[2]));
    tio::Gm q(tio::read_bytes(argv[3]), "q"), z(n * sizeof(half), "z");
    tio::run(1, argv[5], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bq, bz;
        pipe.InitBuffer(bq, n / 2);
        pipe.InitBuffer(bz, n * sizeof(half));
        GlobalTensor<int4b_t> gq;
        gq.SetGlobalBuffer((__gm__ int4b_t*)q.addr(), n);
        GlobalTensor<half> gz;
        gz.SetGlobalBuffer((__gm__ half*)z.addr(), n);
        // As the Cast reference allocates it: int8_t space, seen as int4b_t.
        LocalTensor<int4b_t> lq = bq.Get<int8_t>().ReinterpretCast<int4b_t>();
        LocalTensor<half> lz = bz.Get<half>();
        DataCopy(lq, gq, n);
        PipeBarrier<PIPE_ALL>();
        Cast(lz, lq, RoundMode::CAST_NONE, n);
        PipeBarrier<PIPE_ALL>();
        DataCopy(gz, lz, n);
    });
    tio::write_bytes(argv[4], z.bytes.data(), z.bytes.size());
    return 0;
}

int scalar(int, char** argv) {
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[2]));
    tio::Gm q(tio::read_bytes(argv[3]), "q");
    std::vector<int8_t> seen(n);
    tio::run(1, argv[5], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bq;
        pipe.InitBuffer(bq, n / 2);
        GlobalTensor<int4b_t> gq;
        gq.SetGlobalBuffer((__gm__ int4b_t*)q.addr(), n);
        LocalTensor<int4b_t> lq = bq.Get<int4b_t>();
        DataCopy(lq, gq, n);
        PipeBarrier<PIPE_ALL>();
        for (uint32_t i = 0; i < n; ++i) seen[i] = static_cast<int8_t>(int(lq.GetValue(i)));
        for (uint32_t i = 0; i < n; ++i) lq[i].SetValue(0, -int(i % 8));  // through odd views too
        PipeBarrier<PIPE_ALL>();
        DataCopy(gq, lq, n);
    });
    std::vector<uint8_t> out(seen.begin(), seen.end());
    out.insert(out.end(), q.bytes.begin(), q.bytes.end());
    tio::write_bytes(argv[4], out.data(), out.size());
    return 0;
}

int sizes(int, char** argv) {
    const uint32_t n = static_cast<uint32_t>(std::atoi(argv[2]));
    std::vector<int32_t> out;
    tio::run(1, argv[5], [&] {
        TPipe pipe;
        TQue<TPosition::VECOUT, 1> qq;
        pipe.InitBuffer(qq, 1, n / 2);
        LocalTensor<int4b_t> lq = qq.AllocTensor<int4b_t>();
        LocalTensor<int8_t> bytes = lq.ReinterpretCast<int8_t>();
        LocalTensor<int4b_t> back = bytes.ReinterpretCast<int4b_t>();
        out = {int32_t(lq.GetSize()),   int32_t(lq.GetLength()),  int32_t(bytes.GetSize()),
               int32_t(back.GetSize()), int32_t(lq[64].GetSize()), int32_t(lq[64].GetPhyAddr() - lq.GetPhyAddr())};
        qq.FreeTensor(lq);
    });
    tio::write_bytes(argv[4], out.data(), out.size() * sizeof(int32_t));
    return 0;
}

// Documented misuses, each on 128 elements.
int misuse(int, char** argv) {
    const std::string what = argv[2];
    tio::Gm gm(size_t(64), "gm");
    tio::run(1, argv[5], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bh, bf, bq, bq2;
        pipe.InitBuffer(bh, 128 * sizeof(half));
        pipe.InitBuffer(bf, 128 * sizeof(float));
        pipe.InitBuffer(bq, 64);
        pipe.InitBuffer(bq2, 64);
        LocalTensor<half> h = bh.Get<half>();
        LocalTensor<float> f = bf.Get<float>();
        LocalTensor<int4b_t> q = bq.Get<int4b_t>(), q2 = bq2.Get<int4b_t>();
        Duplicate(h, half(1), 128);
        Duplicate(f, 1.0f, 128);
        if (what == "odd_count") Cast(q, h, RoundMode::CAST_RINT, 127);  // MISUSE: odd_count
        if (what == "cast_odd") Cast(q, h, RoundMode::CAST_ODD, 128);  // MISUSE: cast_odd
        if (what == "from_float") Cast(q, f, RoundMode::CAST_RINT, 128);  // MISUSE: from_float
        if (what == "to_int4_mode") Cast(h, q, RoundMode::CAST_RINT, 128);  // MISUSE: to_int4_mode
        if (what == "odd_mask") Cast(q, h, RoundMode::CAST_RINT, 127, 1, {1, 1, 2, 8});  // MISUSE: odd_mask
        if (what == "bit_mask") {
            uint64_t mask[2] = {0x5, 0};  // elements 0 and 2: half of two bytes
            Cast(q, h, RoundMode::CAST_RINT, mask, 1, {1, 1, 2, 8});  // MISUSE: bit_mask
        }
        if (what == "odd_view") Cast(q[1], h, RoundMode::CAST_RINT, 64);  // MISUSE: odd_view
        if (what == "add") Add(q, q, q2, 128);  // MISUSE: add
        if (what == "copy_count") {
            GlobalTensor<int4b_t> g;
            g.SetGlobalBuffer((__gm__ int4b_t*)gm.addr(), 128);
            DataCopy(q, g, 96);  // MISUSE: copy_count
        }
    });
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    static const std::map<std::string, Case> cases = {
        {"to_int4", [](int c, char** v) { return to_int4(c, v, Out::kBytes); }},
        {"via_gm", [](int c, char** v) { return to_int4(c, v, Out::kGm); }},
        {"masked", [](int c, char** v) { return to_int4(c, v, Out::kMasked); }},
        {"from_int4", from_int4},
        {"scalar", scalar},
        {"sizes", sizes},
        {"misuse", misuse},
    };
    return tio::select_case(cases, argc, argv, {6, 7}, "int4 CASE ARGS... (see the source)")(argc, argv);
}
