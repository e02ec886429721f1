"""Cast with every RoundMode the chip documents against a reference built from the two
representable neighbours of each value (torch.nextafter), including ties, negative values,
overflow (saturating) and CAST_ODD; combinations the chip lacks stop with `dtype-support`."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from emu_device_support import TORCH_DTYPES, from_bytes, marker_line, to_bytes

from ascend_tools.catalog.cast_table import cast_problem, through_deq_scale
from ascend_tools.chips import get_chip

MODES = [
    "CAST_NONE",
    "CAST_RINT",
    "CAST_FLOOR",
    "CAST_CEIL",
    "CAST_ROUND",
    "CAST_TRUNC",
    "CAST_ODD",
]
FLOAT_TARGETS = {"float16", "bfloat16", "float32"}
INT_LIMITS = {"int32": (-(2**31), 2**31 - 1), "int16": (-(2**15), 2**15 - 1), "int8": (-128, 127)}

# Values that probe ties and edges for each target precision, plus random ones.
EDGES = {
    "float16": [
        1 + 2**-11,
        1 + 3 * 2**-11,
        2049.0,
        2051.0,
        65504.0,
        65519.0,
        65520.0,
        70000.0,
        1e10,
        6e-8,
        2**-25,
        3 * 2**-25,
        1e-3,
    ],
    "bfloat16": [1 + 2**-8, 1 + 3 * 2**-8, 257.0, 259.0, 3.3e38, 3.39e38, 3.4e38, 1e-40],
    "float32": [16777217.0, 16777219.0, 2**31 - 1, 123456789.0],
    "int": [0.5, 1.5, 2.5, 3.5, 2.4, 2.6, 1e10, 40000.0, 200.0, 127.5],
}


def source_values(src: str, dst: str) -> np.ndarray:
    gen = np.random.default_rng(5)
    key = dst if dst in FLOAT_TARGETS else "int"
    if src == "int32":
        base = [0, 1, 7, 65504, 65519, 65520, 65536, 100000, 2**24 + 1, 2**24 + 3, 2**31 - 1]
        vals = np.array(base + list(gen.integers(-(2**31), 2**31 - 1, 100)), dtype=np.float64)
        return np.concatenate([vals, -vals[1:]])
    vals = np.array(EDGES[key] + list(gen.normal(0, 40, 100)) + [0.0], dtype=np.float64)
    vals = np.concatenate([vals, -vals, [np.inf, -np.inf]])
    # representable in the source type
    return torch.from_numpy(vals).float().to(TORCH_DTYPES[src]).double().numpy()


def ref_float(x: np.ndarray, dst: str, mode: str) -> torch.Tensor:
    dt = TORCH_DTYPES[dst]
    if dst == "float32":
        r = torch.from_numpy(x.astype(np.float32))
    else:
        r = torch.from_numpy(x).float().to(dt)
    up = torch.nextafter(r, torch.full_like(r, float("inf")))
    down = torch.nextafter(r, torch.full_like(r, float("-inf")))
    xt = torch.from_numpy(x)
    rd = r.double()
    exact = rd == xt
    lo = torch.where(rd <= xt, r, down)
    hi = torch.where(rd >= xt, r, up)
    if mode in ("CAST_NONE", "CAST_RINT"):
        out = r
    elif mode == "CAST_FLOOR":
        out = lo
    elif mode == "CAST_CEIL":
        out = hi
    elif mode == "CAST_TRUNC":
        out = torch.where(xt > 0, lo, hi)
    elif mode == "CAST_ROUND":
        dlo, dhi = (xt - lo.double()).abs(), (hi.double() - xt).abs()
        away = torch.where(xt > 0, hi, lo)
        nearer = torch.where(dlo < dhi, lo, torch.where(dhi < dlo, hi, away))
        # beyond the largest finite value + half an ulp, nearest rounding overflows to inf
        out = torch.where(torch.isinf(r) & ~torch.isinf(xt), r, nearer)
    else:  # CAST_ODD: the neighbour with an odd significand
        bits = lo.view(torch.int16 if lo.element_size() == 2 else torch.int32)
        out = torch.where((bits & 1) == 1, lo, hi)
    out = torch.where(exact | torch.isnan(xt), r, out)
    # a finite source past the largest finite value saturates
    big = torch.full_like(out, torch.finfo(dt).max)
    return torch.where(torch.isinf(out) & torch.isfinite(xt), torch.copysign(big, xt.to(dt)), out)


def ref_integral(x: np.ndarray, mode: str) -> torch.Tensor:
    """float -> float: the value rounded to an integer with the mode, kept as float."""
    r = {
        "CAST_RINT": np.rint,
        "CAST_FLOOR": np.floor,
        "CAST_CEIL": np.ceil,
        "CAST_TRUNC": np.trunc,
        "CAST_ROUND": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    }[mode](x)
    return torch.from_numpy(r.astype(np.float32))


def ref_int(x: np.ndarray, dst: str, mode: str) -> torch.Tensor:
    if mode in ("CAST_NONE", "CAST_RINT"):
        r = np.rint(x)
    elif mode == "CAST_FLOOR":
        r = np.floor(x)
    elif mode == "CAST_CEIL":
        r = np.ceil(x)
    elif mode == "CAST_TRUNC":
        r = np.trunc(x)
    elif mode == "CAST_ROUND":
        r = np.sign(x) * np.floor(np.abs(x) + 0.5)
    else:
        t = np.trunc(x)
        r = np.where((t != x) & (np.fmod(t, 2) == 0), t + np.sign(x), t)
    lo, hi = INT_LIMITS[dst]
    r = np.where(np.isnan(r), 0, np.clip(r, lo, hi))
    return torch.from_numpy(r.astype(np.int64)).to(TORCH_DTYPES[dst])


PAIRS = [
    ("float32", "float16"),
    ("float32", "bfloat16"),
    ("float32", "int32"),
    ("float32", "int16"),
    ("float16", "int32"),
    ("float16", "int8"),
    ("int32", "float32"),
    ("int32", "float16"),
    ("float32", "float32"),
    ("float16", "bfloat16"),
    ("bfloat16", "float16"),
]
C_TYPES = {"float32": "float", "float16": "half", "bfloat16": "bfloat16_t", "int32": "int32_t",
           "int16": "int16_t", "int8": "int8_t"}
ARCH = get_chip().arch


def documented(src: str, dst: str, mode: str) -> bool:
    return cast_problem(ARCH, C_TYPES[src], C_TYPES[dst], mode) is None


def deq_pair(src: str, dst: str) -> bool:
    """Whether the chip converts the pair by the DEQSCALE register (roundMode has no effect)."""
    return through_deq_scale(ARCH, C_TYPES[src], C_TYPES[dst])


COMBOS = [(s, d, m) for s, d in PAIRS for m in MODES]
SUPPORTED = [c for c in COMBOS if documented(*c)]
UNSUPPORTED = [c for c in COMBOS if not documented(*c)]


def run_cast(
    emu_build, run_program, src: str, dst: str, mode: str, x: np.ndarray, deq: str | None = None
):
    n = -(-len(x) // 64) * 64
    xs = np.zeros(n)
    xs[: len(x)] = x
    if src == "int32":
        t = torch.from_numpy(xs.astype(np.int64)).to(torch.int32)
    else:
        t = torch.from_numpy(xs).float().to(TORCH_DTYPES[src])
    res = run_program(
        emu_build("cast"),
        [src, dst, str(MODES.index(mode)), str(n), "{x}", "{out:z}", "{report}"]
        + ([deq] if deq else []),
        {"x": t},
    )
    assert res.returncode == 0, res.stderr
    return from_bytes(res.outputs["z"], dst)[: len(x)], res.report


@pytest.mark.parametrize(("src", "dst", "mode"), SUPPORTED)
def test_cast_rounds_like_reference(emu_build, run_program, src: str, dst: str, mode: str) -> None:
    x = source_values(src, dst)
    if dst not in FLOAT_TARGETS or src == dst:
        x = x[np.isfinite(x)]
    got, _ = run_cast(emu_build, run_program, src, dst, mode, x)
    if src == dst:
        want = ref_integral(x, mode)
    elif deq_pair(src, dst):  # x * 1.0 (the runner's SetDeqScale), to nearest even
        want = ref_float(x, dst, "CAST_RINT")
    else:
        want = ref_float(x, dst, mode) if dst in FLOAT_TARGETS else ref_int(x, dst, mode)
    same = (got == want) | (torch.isnan(got.double()) & torch.isnan(want.double()))
    bad = (~same).nonzero().flatten()[:5].tolist()
    detail = [(x[i], got[i].item(), want[i].item()) for i in bad]
    assert bool(same.all()), f"{src}->{dst} {mode}: (value, got, want) {detail}"


def test_cast_odd_keeps_sticky_bit_for_double_rounding(emu_build, run_program) -> None:
    # 1 + 2^-11 + 2^-20 rounds to odd in half as 1 + 2^-10 (inexact, odd last bit); to nearest
    # even it would go up as well, but 1 + 2^-11 exactly (a tie) goes to 1 with RINT.
    x = np.array([1 + 2**-11 + 2**-20, 1 + 2**-11, 1 + 2**-12])
    got, _ = run_cast(emu_build, run_program, "float32", "float16", "CAST_ODD", x)
    assert got.tolist() == [1 + 2**-10, 1 + 2**-10, 1 + 2**-10]
    got, _ = run_cast(emu_build, run_program, "float32", "float16", "CAST_RINT", x)
    assert got.tolist() == [1 + 2**-10, 1.0, 1.0]


def test_cast_overflow_saturates_in_every_mode(emu_build, run_program) -> None:
    # The API reference: a value outside the destination's range saturates; infinities stay.
    x = np.array([70000.0, -70000.0, 65519.0, np.inf])
    for mode in ("CAST_NONE", "CAST_RINT", "CAST_TRUNC", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND"):
        got, _ = run_cast(emu_build, run_program, "float32", "float16", mode, x)
        assert got.tolist()[:3] == [65504.0, -65504.0, 65504.0], mode
        assert got.tolist()[3] == float("inf"), mode


@pytest.mark.parametrize(("src", "dst", "mode"), UNSUPPORTED)
def test_undocumented_cast_is_dtype_support(
    emu_build, run_program, src: str, dst: str, mode: str
) -> None:
    n = 64
    t = torch.zeros(n, dtype=TORCH_DTYPES[src])
    res = run_program(
        emu_build("cast"),
        [src, dst, str(MODES.index(mode)), str(n), "{x}", "{out:z}", "{report}"],
        {"x": t},
    )
    assert res.returncode == 3, res.stderr
    err = res.report["errors"][0]
    assert err["code"] == "dtype-support", err
    words = (C_TYPES[src], C_TYPES[dst], get_chip().name)
    assert all(w in err["message"] for w in words), err["message"]
    if cast_problem(ARCH, C_TYPES[src], C_TYPES[dst], None) is None:  # the pair exists
        assert mode in err["message"] and "supports RoundMode" in err["message"]


DEQ_PAIR = ("int32", "float16")


@pytest.mark.skipif(not deq_pair(*DEQ_PAIR), reason="the chip has no DEQSCALE Cast")
def test_int32_to_half_multiplies_by_the_set_deq_scale(emu_build, run_program) -> None:
    x = np.array([0, 1, -3, 100, 2001, -4096, 70016])  # results exact in half
    got, _ = run_cast(emu_build, run_program, *DEQ_PAIR, "CAST_FLOOR", x, deq="0.5")
    assert got.tolist() == [0.0, 0.5, -1.5, 50.0, 1000.5, -2048.0, 35008.0]


@pytest.mark.skipif(not deq_pair(*DEQ_PAIR), reason="the chip has no DEQSCALE Cast")
def test_int32_to_half_without_set_deq_scale_is_dtype_support(emu_build, run_program) -> None:
    t = torch.zeros(64, dtype=torch.int32)
    res = run_program(
        emu_build("cast"),
        [*DEQ_PAIR, "0", "64", "{x}", "{out:z}", "{report}", "none"],
        {"x": t},
    )
    assert res.returncode == 3, res.stderr
    err = res.report["errors"][0]
    assert err["code"] == "dtype-support", err
    assert err["line"] == marker_line("cast.cpp", "the Cast"), err
    assert "SetDeqScale" in err["message"] and "never set" in err["message"], err


def test_cast_counts_repeats_by_wider_type(emu_build, run_program) -> None:
    _, report = run_cast(emu_build, run_program, "float32", "float16", "CAST_NONE", np.ones(128))
    assert report["counters"]["per_block"][0]["vector_repeats"] == {"Cast": 128 * 4 // 256}


def test_to_bytes_roundtrip_bf16() -> None:
    t = torch.tensor([1.5, -2.0], dtype=torch.bfloat16)
    assert torch.equal(from_bytes(to_bytes(t), "bfloat16"), t)
