"""LayerNorm and RmsNorm (device APIs fed by the host tiling helpers), PairReduceSum, GatherMask,
LoadDataWithTranspose and the high-level Exp compute what torch computes
(tests/emu/cpp/norm_apis.cpp)."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line


def run(emu_build, run_program, case: str, x: torch.Tensor) -> bytes:
    res = run_program(emu_build("norm_apis"), [case, "{x}", "{out:y}", "{report}"], {"x": x})
    assert res.returncode == 0, res.stderr
    return res.outputs["y"]


def test_layer_norm_matches_torch_with_mean_and_variance(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(11)
    x = torch.randn(6, 32, generator=gen) * 3 + 1
    gamma, beta = torch.randn(32, generator=gen), torch.randn(32, generator=gen)
    out = from_bytes(
        run(emu_build, run_program, "layernorm_f32", torch.cat([x.flatten(), gamma, beta])),
        "float32",
    )
    want = torch.nn.functional.layer_norm(x, (32,), gamma, beta, eps=1e-5)
    torch.testing.assert_close(out[: 6 * 32].view(6, 32), want, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(out[6 * 32 : 6 * 32 + 6], x.mean(dim=1))
    torch.testing.assert_close(
        out[6 * 32 + 6 :], x.var(dim=1, unbiased=False), rtol=1e-5, atol=1e-5
    )


def test_rms_norm_half_over_the_valid_columns(emu_build, run_program) -> None:
    gen = torch.Generator().manual_seed(12)
    x = torch.randn(4, 48, generator=gen).half().float()
    gamma = torch.randn(48, generator=gen).half().float()
    out = from_bytes(
        run(emu_build, run_program, "rmsnorm_f16", torch.cat([x.flatten(), gamma])), "float16"
    )
    y = out.view(4, 48).float()
    v = x[:, :40]
    want = (v / torch.sqrt(v.pow(2).mean(dim=1, keepdim=True) + 1e-6) * gamma[:40]).half().float()
    torch.testing.assert_close(y[:, :40], want, rtol=1e-3, atol=1e-3)
    assert torch.all(y[:, 40:] == 0)  # padding columns are not written


def test_pair_reduce_sum_adds_adjacent_lanes(emu_build, run_program) -> None:
    x = torch.randn(128, generator=torch.Generator().manual_seed(13))
    y = from_bytes(run(emu_build, run_program, "pair_reduce_sum", x), "float32")
    torch.testing.assert_close(y, x.view(64, 2).sum(dim=1))


def test_gather_mask_builtin_and_tensor_patterns(emu_build, run_program) -> None:
    x = torch.arange(128, dtype=torch.float32)
    y = from_bytes(run(emu_build, run_program, "gather_mask", x), "float32")
    even = x[0::2]
    low_pairs = x.view(32, 4)[:, :2].flatten()  # bits 0b0011 of every nibble
    assert y[-2:].tolist() == [64.0, 64.0]
    torch.testing.assert_close(y[:64], even)
    torch.testing.assert_close(y[64:128], low_pairs)


def test_load_data_with_transpose_transposes_each_fractal(emu_build, run_program) -> None:
    x = torch.arange(512, dtype=torch.float32) / 8
    y = from_bytes(run(emu_build, run_program, "load_transpose", x), "float16").float()
    want = x.half().float().view(2, 16, 16).transpose(1, 2).flatten()
    torch.testing.assert_close(y, want)


def test_norm_without_a_filled_tiling_is_reported(emu_build, run_program) -> None:
    res = run_program(
        emu_build("norm_apis"),
        ["rmsnorm_untiled", "{x}", "{out:y}", "{report}"],
        {"x": torch.zeros(4)},
    )
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "param-range" and "GetRmsNormTilingInfo" in err["message"]
    assert err["line"] == marker_line("norm_apis.cpp", "BUG: rmsnorm_untiled")


@pytest.mark.parametrize(
    ("case", "code", "words"),
    [
        ("softmax_short_tmp", "workspace-size", ("8 at a time", "holds 320 bytes", "needs 2560")),
        ("softmax_unfilled_tiling", "tiling-mismatch", ("SoftMaxTilingFunc", "splitM 0")),
        ("layernorm_short_tmp", "workspace-size", ("LayerNorm", "6 row(s)", "holds 256 bytes")),
    ],
)
def test_high_level_api_contract_breach_is_reported(
    emu_build, run_program, case: str, code: str, words: tuple[str, ...]
) -> None:
    res = run_program(
        emu_build("norm_apis"), [case, "{x}", "{out:y}", "{report}"], {"x": torch.zeros(512)}
    )
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert all(w in err["message"] for w in words), err["message"]
    assert err["line"] == marker_line("norm_apis.cpp", f"BUG: {case}")


def test_high_level_exp_form_matches_the_basic_one(emu_build, run_program) -> None:
    x = torch.randn(64, generator=torch.Generator().manual_seed(14)) * 4
    y = from_bytes(run(emu_build, run_program, "exp_high_level", x), "float32")
    torch.testing.assert_close(y[:64], torch.exp(x))
    assert torch.equal(y[:64], y[64:])


def test_math_whole_tensor_forms_cover_every_source_element(emu_build, run_program) -> None:
    x = torch.rand(64, generator=torch.Generator().manual_seed(15)) * 2 - 1
    y = from_bytes(run(emu_build, run_program, "trig_whole_tensor", x), "float32")
    torch.testing.assert_close(y[:64], torch.sin(x))
    torch.testing.assert_close(y[64:128], torch.cos(x))
    torch.testing.assert_close(y[128:192], torch.tanh(x))
    torch.testing.assert_close(y[192:224], torch.tan(x[:32]))
    assert torch.equal(y[224:], torch.zeros(32))  # the count form stops at its count
