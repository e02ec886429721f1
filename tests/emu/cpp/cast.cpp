// Cast in the continuous form: `cast SRC DST MODE N in out report [DEQ]` (MODE: index of
// RoundMode). DEQ: the scale to SetDeqScale before the Cast, or "none" for no call; without it,
// 1.0 where the chip converts some pair through DEQSCALE (int32_t -> half).
#include <map>
#include <utility>

#include "test_io.h"

using namespace AscendC;

template <class S, class D>
int run(char** argv) {
    auto mode = static_cast<RoundMode>(std::atoi(argv[3]));
    uint32_t n = static_cast<uint32_t>(std::atoi(argv[4]));
    tio::Gm x(tio::read_bytes(argv[5]), "x"), z(n * sizeof(D), "z");
    const char* deq = argv[8] ? argv[8] : (kernelgen::chip_has_deq_scale() ? "1" : "none");
    tio::run(1, argv[7], [&] {
        TPipe pipe;
        TBuf<TPosition::VECCALC> bx, bz;
        pipe.InitBuffer(bx, n * sizeof(S));
        pipe.InitBuffer(bz, n * sizeof(D));
        GlobalTensor<S> gx;
        GlobalTensor<D> gz;
        gx.SetGlobalBuffer((__gm__ S*)x.addr(), n);
        gz.SetGlobalBuffer((__gm__ D*)z.addr(), n);
        auto lx = bx.Get<S>();
        auto lz = bz.Get<D>();
        DataCopy(lx, gx, n);
        PipeBarrier<PIPE_ALL>();
        if (std::strcmp(deq, "none") != 0) SetDeqScale(half(std::atof(deq)));
        Cast(lz, lx, mode, n);  // the Cast
        PipeBarrier<PIPE_ALL>();
        DataCopy(gz, lz, n);
    });
    tio::write_bytes(argv[6], z.bytes.data(), z.bytes.size());
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 8 && argc != 9) {
        std::fprintf(stderr, "usage: cast SRC DST MODE N in out report [DEQ]\n");
        return 2;
    }
    static const std::map<std::pair<std::string, std::string>, int (*)(char**)> pairs = {
        {{"float32", "float16"}, run<float, half>},     {{"float32", "bfloat16"}, run<float, bfloat16_t>},
        {{"float32", "int32"}, run<float, int32_t>},    {{"float32", "int16"}, run<float, int16_t>},
        {{"float16", "float32"}, run<half, float>},     {{"float16", "int32"}, run<half, int32_t>},
        {{"float16", "int8"}, run<half, int8_t>},       {{"bfloat16", "float32"}, run<bfloat16_t, float>},
        {{"int32", "float32"}, run<int32_t, float>},    {{"int32", "float16"}, run<int32_t, half>},
        {{"float16", "bfloat16"}, run<half, bfloat16_t>}, {{"bfloat16", "float16"}, run<bfloat16_t, half>},
        {{"float32", "float32"}, run<float, float>},
    };
    auto it = pairs.find({argv[1], argv[2]});
    if (it == pairs.end()) {
        std::fprintf(stderr, "unsupported cast %s -> %s\n", argv[1], argv[2]);
        return 2;
    }
    return it->second(argv);
}
