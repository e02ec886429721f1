"""Continuous-form elementwise APIs against torch: float32, float16 and bfloat16 compute in
float and round once to the element type, so the arithmetic ops must match bit for bit."""

from __future__ import annotations

import math
import zlib

import pytest
import torch
from emu_device_support import TORCH_DTYPES, from_bytes

from ascend_tools.catalog import load_catalog
from ascend_tools.catalog.dtype_tables import runs_as_documented_width

N = 4096
SCALAR = 0.7
GELU_K = 2 * math.sqrt(2 / math.pi)


def sig(x: torch.Tensor) -> torch.Tensor:
    return 1 / (1 + torch.exp(-x))


# op -> (reference on float32 tensors, exact?, input kind)
FLOAT_OPS = {
    "Add": (lambda x, y, s: x + y, True, "any"),
    "Sub": (lambda x, y, s: x - y, True, "any"),
    "Mul": (lambda x, y, s: x * y, True, "any"),
    "Div": (lambda x, y, s: x / y, True, "nonzero"),
    "Max": (lambda x, y, s: torch.maximum(x, y), True, "any"),
    "Min": (lambda x, y, s: torch.minimum(x, y), True, "any"),
    "AddRelu": (lambda x, y, s: torch.relu(x + y), True, "any"),
    "OpAdd": (lambda x, y, s: x + y, True, "any"),
    "OpMul": (lambda x, y, s: x * y, True, "any"),
    "Abs": (lambda x, y, s: x.abs(), True, "any"),
    "Relu": (lambda x, y, s: torch.relu(x), True, "any"),
    "Adds": (lambda x, y, s: x + s, True, "any"),
    "Muls": (lambda x, y, s: x * s, True, "any"),
    "Maxs": (lambda x, y, s: torch.clamp(x, min=s), True, "any"),
    "Mins": (lambda x, y, s: torch.clamp(x, max=s), True, "any"),
    "LeakyRelu": (lambda x, y, s: torch.where(x >= 0, x, x * s), True, "any"),
    "Duplicate": (lambda x, y, s: torch.full_like(x, s), True, "any"),
    "FusedMulAdd": (lambda x, y, s: x * y + y, True, "any"),
    "MulAddDstMask": (lambda x, y, s: x * y + y, True, "any"),
    "Axpy": (lambda x, y, s: y + x * s, True, "any"),
    "Floor": (lambda x, y, s: torch.floor(x), True, "any"),
    "ClampMax": (lambda x, y, s: torch.clamp(x, max=s), True, "any"),
    "ClampMin": (lambda x, y, s: torch.clamp(x, min=s), True, "any"),
    "Arange": (lambda x, y, s: s + torch.arange(N, dtype=torch.float32) * 0.25, True, "any"),
    "Exp": (lambda x, y, s: torch.exp(x), False, "any"),
    "Ln": (lambda x, y, s: torch.log(x), False, "positive"),
    "Log": (lambda x, y, s: torch.log(x), False, "positive"),
    "Reciprocal": (lambda x, y, s: 1 / x, True, "nonzero"),
    # torch's float32 sqrt is not correctly rounded on every CPU; float64 then round is.
    "Sqrt": (lambda x, y, s: torch.sqrt(x.double()).float(), True, "positive"),
    "Rsqrt": (lambda x, y, s: 1 / torch.sqrt(x), False, "positive"),
    "Sigmoid": (lambda x, y, s: sig(x), False, "any"),
    "Tanh": (lambda x, y, s: torch.tanh(x), False, "any"),
    "Gelu": (lambda x, y, s: x * sig(GELU_K * (x + 0.044715 * x**3)), False, "any"),
    "FasterGelu": (lambda x, y, s: x * sig(1.702 * x), False, "any"),
    "Erf": (lambda x, y, s: torch.erf(x), False, "any"),
    "Silu": (lambda x, y, s: x * sig(x), False, "any"),
    "Sin": (lambda x, y, s: torch.sin(x), False, "any"),
    "Asin": (lambda x, y, s: torch.asin(x), False, "unit"),
    "Power": (lambda x, y, s: torch.pow(x, y), False, "positive"),
    # #8: DrivingSDK's grid_sampler2d_v2 calls Fmod; before, it was not declared.
    "Fmod": (lambda x, y, s: x - torch.trunc(x / y) * y, False, "nonzero"),
}

TOL = {"float32": (1e-5, 1e-6), "float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 1e-2)}


def make_input(kind: str, gen: torch.Generator) -> torch.Tensor:
    x = torch.randn(N, generator=gen) * 3
    if kind == "positive":
        return x.abs() + 0.1
    if kind == "nonzero":
        return torch.where(x.abs() < 0.1, torch.full_like(x, 0.5), x)
    if kind == "unit":
        return torch.rand(N, generator=gen) * 1.98 - 0.99
    return x


C_TYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t", "int32": "int32_t",
           "int16": "int16_t", "uint8": "uint8_t"}


def documented(op: str, dtype: str) -> bool:
    """Whether the catalog lists `dtype` for the API behind `op` on the default chip (910B2,
    dav-c220); APIs it gives no types for are not restricted."""
    api = op.removeprefix("Op").removesuffix("Mask")  # OpAdd: operator+; MulAddDstMask: mask form
    entry = load_catalog().get(api)
    types = entry.dtypes_for("dav-c220") if entry else []
    if types and C_TYPES[dtype] not in types:
        # a width-only API runs an undocumented type of a documented width (with a warning)
        return runs_as_documented_width(api, C_TYPES[dtype], types) is not None
    return True


def run_op(emu_build, run_program, op: str, dtype: str, x, y, scalar: float):
    res = run_program(
        emu_build("elementwise"),
        [op, dtype, str(N), repr(scalar), "{x}", "{y}", "{out:z}", "{report}"],
        {"x": x, "y": y},
    )
    if not documented(op, dtype):
        # A form the hardware lacks: the emulator refuses it as the NPU build would.
        assert res.returncode == 3 and "[dtype-support]" in res.stderr, res.stderr
        return None, res.report
    assert res.returncode == 0, res.stderr
    return from_bytes(res.outputs["z"], dtype), res.report


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("op", sorted(FLOAT_OPS))
def test_float_op_matches_torch_rounded_once(emu_build, run_program, op: str, dtype: str) -> None:
    ref_fn, exact, kind = FLOAT_OPS[op]
    gen = torch.Generator().manual_seed(zlib.crc32(f"{op}{dtype}".encode()))
    tdt = TORCH_DTYPES[dtype]
    x = make_input(kind, gen).to(tdt)
    y = make_input("positive" if op == "Power" else kind, gen).to(tdt)
    if op == "Power":
        y = (y % 3).to(tdt)
    s = torch.tensor(SCALAR).to(tdt).float().item()  # the kernel rounds the scalar to T
    got, _ = run_op(emu_build, run_program, op, dtype, x, y, SCALAR)
    if got is None:  # refused as dtype-support: nothing to compare
        return
    want = ref_fn(x.float(), y.float(), s).to(tdt)
    if exact:
        bad = (got != want).nonzero()[:5].flatten().tolist()
        assert torch.equal(got, want), f"{op} {dtype}: first mismatches at {bad}"
    else:
        rtol, atol = TOL[dtype]
        torch.testing.assert_close(got.float(), want.float(), rtol=rtol, atol=atol)


INT_OPS = {
    "Add": lambda x, y, s: x + y,
    "Sub": lambda x, y, s: x - y,
    "Mul": lambda x, y, s: x * y,
    "Max": lambda x, y, s: torch.maximum(x, y),
    "Min": lambda x, y, s: torch.minimum(x, y),
    "And": lambda x, y, s: x & y,
    "Or": lambda x, y, s: x | y,
    "Xor": lambda x, y, s: x ^ y,
    "Not": lambda x, y, s: ~x,
    "Abs": lambda x, y, s: x.abs(),
    "Adds": lambda x, y, s: x + s,
    "Muls": lambda x, y, s: x * s,
    "ShiftLeft": lambda x, y, s: x << s,
    "ShiftRight": lambda x, y, s: x >> s,
    "CreateVecIndex": lambda x, y, s: s + torch.arange(N, dtype=x.dtype),
}


@pytest.mark.parametrize("dtype", ["int32", "int16"])
@pytest.mark.parametrize("op", sorted(INT_OPS))
def test_integer_op_matches_torch(emu_build, run_program, op: str, dtype: str) -> None:
    gen = torch.Generator().manual_seed(7)
    tdt = TORCH_DTYPES[dtype]
    x = torch.randint(-1000, 1000, (N,), generator=gen).to(tdt)
    y = torch.randint(-1000, 1000, (N,), generator=gen).to(tdt)
    got, _ = run_op(emu_build, run_program, op, dtype, x, y, 3)
    if got is None:  # refused as dtype-support
        return
    want = INT_OPS[op](x, y, 3).to(tdt)
    assert torch.equal(got, want)


@pytest.mark.parametrize("op", ["And", "Or", "Xor", "Not"])
def test_bitwise_logic_on_bytes_runs_with_a_warning(emu_build, run_program, op: str) -> None:
    # #8: kernels AND uint8_t masks (DrivingSDK cylinder_query) though the reference lists
    # int16_t/uint16_t: a byte-wise AND is the AND of the 16-bit lanes, so the emulator runs it
    # (tables/width_only.json) and says so; it is not a proved fault.
    gen = torch.Generator().manual_seed(11)
    x = torch.randint(0, 256, (N,), generator=gen).to(torch.uint8)
    y = torch.randint(0, 256, (N,), generator=gen).to(torch.uint8)
    got, report = run_op(emu_build, run_program, op, "uint8", x, y, 0)
    assert got is not None
    assert torch.equal(got, INT_OPS[op](x, y, 0).to(torch.uint8))
    [w] = [w for w in report["warnings"] if w["code"] == "dtype-support"]
    assert f"{op} on uint8_t is not among the documented element types" in w["message"]


@pytest.mark.parametrize(
    ("dtype", "repeats"), [("float32", N * 4 // 256), ("float16", N * 2 // 256)]
)
def test_continuous_form_counts_one_repeat_per_256_bytes(
    emu_build, run_program, dtype, repeats
) -> None:
    x = torch.ones(N, dtype=TORCH_DTYPES[dtype])
    _, report = run_op(emu_build, run_program, "Add", dtype, x, x, 0.0)
    block = report["counters"]["per_block"][0]
    assert block["vector_repeats"] == {"Add": repeats}
    nbytes = N * x.element_size()
    assert block["gm_to_ub_bytes"] == 2 * nbytes
    assert block["ub_to_gm_bytes"] == nbytes
