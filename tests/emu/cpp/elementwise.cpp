// Elementwise vector APIs in the continuous form, for float, half and bfloat16 (and int types
// for the bitwise ops): `elementwise OP DTYPE N SCALAR in0 in1 out report`.
#include <map>

#include "test_io.h"

using namespace AscendC;

static float g_scalar = 0;

template <class T>
using Fn = void (*)(const LocalTensor<T>&, const LocalTensor<T>&, const LocalTensor<T>&, uint32_t);

#define BIN(NAME) {#NAME, [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) { NAME(z, x, y, n); }}
#define UN(NAME) {#NAME, [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>&, uint32_t n) { NAME(z, x, n); }}
#define SC(NAME) {#NAME, [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>&, uint32_t n) { NAME(z, x, (T)g_scalar, n); }}

template <class T>
std::map<std::string, Fn<T>> float_ops() {
    return {
        BIN(Add), BIN(Sub), BIN(Mul), BIN(Div), BIN(Max), BIN(Min), BIN(AddRelu), BIN(Fmod),
        UN(Exp), UN(Ln), UN(Abs), UN(Reciprocal), UN(Sqrt), UN(Rsqrt), UN(Relu),
        UN(Sigmoid), UN(Tanh), UN(Gelu), UN(FasterGelu), UN(Erf), UN(Silu), UN(Log), UN(Sin), UN(Asin), UN(Floor),
        SC(Adds), SC(Muls), SC(Maxs), SC(Mins), SC(LeakyRelu),
        {"Duplicate", [](const LocalTensor<T>& z, const LocalTensor<T>&, const LocalTensor<T>&, uint32_t n) { Duplicate(z, (T)g_scalar, n); }},
        {"OpAdd", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t) { LocalTensor<T> d = z; d = x + y; }},
        {"OpMul", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t) { LocalTensor<T> d = z; d = x * y; }},
        {"Power", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) { Power(z, x, y, n); }},
        {"FusedMulAdd", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) {
             DataCopy(z, y, n); FusedMulAdd(z, x, y, n); }},
        // The count-mask form, a whole repeat of lanes per repeat (n a multiple of 256 bytes).
        {"MulAddDstMask", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) {
             constexpr uint32_t lanes = 256 / sizeof(T);
             DataCopy(z, y, n); MulAddDst(z, x, y, lanes, static_cast<uint8_t>(n / lanes), {1, 1, 1, 8, 8, 8}); }},
        {"ClampMax", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>&, uint32_t n) {
             ClampMax(z, x, z.template ReinterpretCast<uint8_t>(), (T)g_scalar, n); }},
        {"ClampMin", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>&, uint32_t n) {
             ClampMin(z, x, z.template ReinterpretCast<uint8_t>(), (T)g_scalar, n); }},
        {"Arange", [](const LocalTensor<T>& z, const LocalTensor<T>&, const LocalTensor<T>&, uint32_t n) {
             Arange(z, (T)g_scalar, (T)0.25f, n); }},
        {"Axpy", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) {
             DataCopy(z, y, n); Axpy(z, x, (T)g_scalar, n); }},
    };
}

template <class T>
std::map<std::string, Fn<T>> int_ops() {
    return {
        BIN(Add), BIN(Sub), BIN(Mul), BIN(Max), BIN(Min), BIN(And), BIN(Or), UN(Not), UN(Abs),
        SC(Adds), SC(Muls), SC(ShiftLeft), SC(ShiftRight),
        {"Xor", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) { Xor(z, x, y, n); }},
        {"CreateVecIndex", [](const LocalTensor<T>& z, const LocalTensor<T>&, const LocalTensor<T>&, uint32_t n) { CreateVecIndex(z, (T)g_scalar, n); }},
    };
}

// Bitwise logic on bytes (masks), which the reference documents for 16-bit types only.
template <class T>
std::map<std::string, Fn<T>> byte_ops() {
    return {BIN(And), BIN(Or), UN(Not),
            {"Xor", [](const LocalTensor<T>& z, const LocalTensor<T>& x, const LocalTensor<T>& y, uint32_t n) {
                 Xor(z, x, y, n); }}};
}

template <class T>
int run(const std::map<std::string, Fn<T>>& ops, char** argv) {
    std::string op = argv[1];
    uint32_t n = static_cast<uint32_t>(std::atoi(argv[3]));
    g_scalar = static_cast<float>(std::atof(argv[4]));
    auto it = ops.find(op);
    if (it == ops.end()) {
        std::fprintf(stderr, "unknown op %s for dtype %s\n", op.c_str(), argv[2]);
        return 2;
    }
    tio::Gm x(tio::read_bytes(argv[5]), "x"), y(tio::read_bytes(argv[6]), "y"), z(n * sizeof(T), "z");
    Fn<T> fn = it->second;
    tio::run(1, argv[8], [&] {
        TPipe pipe;
        TQue<TPosition::VECIN, 1> qx, qy;
        TQue<TPosition::VECOUT, 1> qz;
        pipe.InitBuffer(qx, 1, n * sizeof(T));
        pipe.InitBuffer(qy, 1, n * sizeof(T));
        pipe.InitBuffer(qz, 1, n * sizeof(T));
        GlobalTensor<T> gx, gy, gz;
        gx.SetGlobalBuffer((__gm__ T*)x.addr(), n);
        gy.SetGlobalBuffer((__gm__ T*)y.addr(), n);
        gz.SetGlobalBuffer((__gm__ T*)z.addr(), n);
        auto lx = qx.AllocTensor<T>();
        auto ly = qy.AllocTensor<T>();
        DataCopy(lx, gx, n);
        DataCopy(ly, gy, n);
        qx.EnQue(lx);
        qy.EnQue(ly);
        lx = qx.DeQue<T>();
        ly = qy.DeQue<T>();
        auto lz = qz.AllocTensor<T>();
        fn(lz, lx, ly, n);
        qz.EnQue(lz);
        qx.FreeTensor(lx);
        qy.FreeTensor(ly);
        lz = qz.DeQue<T>();
        DataCopy(gz, lz, n);
        qz.FreeTensor(lz);
    });
    tio::write_bytes(argv[7], z.bytes.data(), z.bytes.size());
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 9) {
        std::fprintf(stderr, "usage: elementwise OP DTYPE N SCALAR in0 in1 out report\n");
        return 2;
    }
    std::string dt = argv[2];
    if (dt == "float32") return run<float>(float_ops<float>(), argv);
    if (dt == "float16") return run<half>(float_ops<half>(), argv);
    if (dt == "bfloat16") return run<bfloat16_t>(float_ops<bfloat16_t>(), argv);
    if (dt == "int32") return run<int32_t>(int_ops<int32_t>(), argv);
    if (dt == "int16") return run<int16_t>(int_ops<int16_t>(), argv);
    if (dt == "uint8") return run<uint8_t>(byte_ops<uint8_t>(), argv);
    std::fprintf(stderr, "unknown dtype %s\n", argv[2]);
    return 2;
}
