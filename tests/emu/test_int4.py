"""int4b_t in the emulator: packed 4-bit tensors (two elements to a byte, element 2k in the low
nibble), Cast half -> int4b_t with each documented RoundMode and saturation to [-8, 7], int4b_t ->
half, ReinterpretCast to and from int8_t, DataCopy and scalar access of int4b_t tensors, and the
documented misuses (Cast reference: count even, masks on whole bytes; the chip's Cast table)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from emu_device_support import from_bytes, marker_line

from ascend_tools.catalog.cast_table import cast_problem
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
ARCH = get_chip().arch
HALF_TO_INT4 = [m for m in MODES if cast_problem(ARCH, "half", "int4b_t", m) is None]
needs_int4_cast = pytest.mark.skipif(
    cast_problem(ARCH, "half", "int4b_t", None) is not None
    or cast_problem(ARCH, "int4b_t", "half", None) is not None,
    reason="the chip documents no half <-> int4b_t Cast",
)

# Ties, the reference's example (1.5), the range edges and past them, with both signs.
_POSITIVE = [1.5, 0.5, 2.5, 6.5, 7.4, 7.5, 7.6, 8.4, 8.5, 8.6, 0.49, 3.0, 100.0, 1e4, 0.25]
EDGES = [0.0, *_POSITIVE, *(-v for v in _POSITIVE)]


def unpack(data: bytes) -> np.ndarray:
    """int4b_t elements of packed bytes: element 2k in the low nibble of byte k, sign-extended."""
    b = np.frombuffer(data, dtype=np.uint8)
    out = np.empty(2 * len(b), dtype=np.int8)
    out[0::2] = (b & 0xF).astype(np.int8)
    out[1::2] = (b >> 4).astype(np.int8)
    return np.where(out > 7, out - 16, out).astype(np.int8)


def pack(q: np.ndarray) -> torch.Tensor:
    nib = q.astype(np.int64) & 0xF
    return torch.from_numpy((nib[0::2] | (nib[1::2] << 4)).astype(np.uint8))


def reference(x: np.ndarray, mode: str) -> np.ndarray:
    r = {
        "CAST_NONE": np.rint,
        "CAST_RINT": np.rint,
        "CAST_FLOOR": np.floor,
        "CAST_CEIL": np.ceil,
        "CAST_TRUNC": np.trunc,
        "CAST_ROUND": lambda v: np.sign(v) * np.floor(np.abs(v) + 0.5),
    }[mode](x)
    return np.clip(r, -8, 7).astype(np.int8)


def half_values(n: int) -> np.ndarray:
    gen = np.random.default_rng(3)
    vals = np.concatenate([EDGES, gen.normal(0, 6, n - len(EDGES))])
    return vals.astype(np.float16).astype(np.float64)  # representable in half


def run_to_int4(emu_build, run_program, case: str, mode: str, x: np.ndarray):
    res = run_program(
        emu_build("int4"),
        [case, str(MODES.index(mode)), str(len(x)), "{x}", "{out:z}", "{report}"],
        {"x": torch.from_numpy(x).half()},
    )
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [] and res.report["warnings"] == [], res.report
    return res.outputs["z"]


@needs_int4_cast
@pytest.mark.parametrize("mode", HALF_TO_INT4)
def test_half_to_int4_rounds_by_mode_and_saturates(emu_build, run_program, mode: str) -> None:
    x = half_values(256)
    got = unpack(run_to_int4(emu_build, run_program, "to_int4", mode, x))
    want = reference(x, mode)
    bad = np.nonzero(got != want)[0][:5]
    assert not len(bad), f"{mode}: (value, got, want) {[(x[i], got[i], want[i]) for i in bad]}"


@needs_int4_cast
def test_the_references_example_and_saturation(emu_build, run_program) -> None:
    # Precision conversion rules, half -> int4b_t: 1.5 gives RINT 2, FLOOR 1, CEIL 2, ROUND 2,
    # TRUNC 1; a value past [-8, 7] saturates (overflow is saturated by default).
    want = {"CAST_RINT": 2, "CAST_FLOOR": 1, "CAST_CEIL": 2, "CAST_ROUND": 2, "CAST_TRUNC": 1}
    x = np.zeros(128)
    x[:3] = [1.5, 9.0, -9.0]
    for mode, w in want.items():
        if mode in HALF_TO_INT4:
            got = unpack(run_to_int4(emu_build, run_program, "to_int4", mode, x))
            assert got[:3].tolist() == [w, 7, -8], mode


@needs_int4_cast
def test_packing_puts_element_2k_in_the_low_nibble(emu_build, run_program) -> None:
    x = np.zeros(128)
    x[:4] = [1, -2, 7, -8]
    data = run_to_int4(emu_build, run_program, "to_int4", "CAST_NONE", x)
    assert len(data) == 64  # 128 elements in 64 bytes
    assert data[:2] == bytes([0xE1, 0x87])  # (1 | -2 << 4), (7 | -8 << 4)
    assert set(data[2:]) == {0}


@needs_int4_cast
@pytest.mark.parametrize("case", ["via_gm", "masked"])
def test_gm_copy_and_mask_form_give_the_same_bytes(emu_build, run_program, case: str) -> None:
    x = half_values(256)
    want = run_to_int4(emu_build, run_program, "to_int4", "CAST_RINT", x)
    assert run_to_int4(emu_build, run_program, case, "CAST_RINT", x) == want


@needs_int4_cast
def test_int4_to_half_is_exact(emu_build, run_program) -> None:
    q = np.resize(np.arange(-8, 8, dtype=np.int8), 256)
    np.random.default_rng(1).shuffle(q)
    res = run_program(
        emu_build("int4"), ["from_int4", "256", "{q}", "{out:z}", "{report}"], {"q": pack(q)}
    )
    assert res.returncode == 0, res.stderr
    assert from_bytes(res.outputs["z"], "float16").tolist() == q.astype(np.float64).tolist()


def test_get_and_set_value_address_nibbles(emu_build, run_program) -> None:
    q = np.resize(np.arange(-8, 8, dtype=np.int8), 128)[::-1].copy()
    res = run_program(
        emu_build("int4"), ["scalar", "128", "{q}", "{out:z}", "{report}"], {"q": pack(q)}
    )
    assert res.returncode == 0, res.stderr
    seen = np.frombuffer(res.outputs["z"][:128], dtype=np.int8)
    assert seen.tolist() == q.tolist()
    assert unpack(res.outputs["z"][128:]).tolist() == [-(i % 8) for i in range(128)]


def test_sizes_count_elements_and_half_bytes(emu_build, run_program) -> None:
    res = run_program(emu_build("int4"), ["sizes", "128", "-", "{out:z}", "{report}"])
    assert res.returncode == 0, res.stderr
    size, length, int8_size, back_size, view_size, view_bytes = from_bytes(
        res.outputs["z"], "int32"
    ).tolist()
    # A 64-byte queue buffer holds 128 int4b_t (GetLength: 64 bytes); its int8_t view 64
    # elements and back again 128; t[64] starts 32 bytes in.
    assert (size, length, int8_size, back_size, view_size, view_bytes) == (128, 64, 64, 128, 64, 32)


MISUSES = [
    ("odd_count", "param-range", ["count is 127", "even"]),
    ("odd_mask", "mask-range", ["int4b_t", "even"]),
    ("bit_mask", "mask-range", ["0x5", "bits 0-1"]),
    ("odd_view", "ub-offset-align", ["middle of a byte"]),
    ("cast_odd", "dtype-support", ["half -> int4b_t", "not CAST_ODD"]),
    ("to_int4_mode", "dtype-support", ["int4b_t -> half", "not CAST_RINT"]),
    ("from_float", "dtype-support", ["no float -> int4b_t"]),
    ("add", "dtype-support", ["Add on int4b_t"]),
    ("copy_count", "datacopy-align", ["count 96 int4b_t elements = 48 bytes"]),
]


@needs_int4_cast
@pytest.mark.parametrize(("name", "code", "words"), MISUSES, ids=[m[0] for m in MISUSES])
def test_documented_misuse_stops_the_run(
    emu_build, run_program, name: str, code: str, words: list[str]
) -> None:
    if name == "cast_odd" and "CAST_ODD" in HALF_TO_INT4:
        pytest.skip("the chip documents CAST_ODD for half -> int4b_t")
    res = run_program(emu_build("int4"), ["misuse", name, "-", "-", "{report}"])
    assert res.returncode == 3, res.stderr
    err = res.report["errors"][0]
    assert err["code"] == code, err
    assert err["line"] == marker_line("int4.cpp", f"MISUSE: {name}"), err
    assert all(w in err["message"] for w in words), err["message"]
