"""Mix kernels (one AIC and two AIVs per block, tests/emu/cpp/mix.cpp and mix_attr.cpp): core
identities, cross-core flags in both directions, and the hangs and blockDim limits the NPU
would deadlock on, reported with code and line."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line


def identities(stdout: str) -> set[tuple[int, ...]]:
    rows = set()
    for line in stdout.splitlines():
        if line.startswith("core "):
            fields = dict(kv.split("=") for kv in line.split()[1:])
            rows.add(tuple(int(v) for v in fields.values()))
    return rows


def test_mix_1_2_launches_an_aic_and_two_aivs_per_block(emu_build, run_program, tmp_path) -> None:
    x = torch.randn(256, generator=torch.Generator().manual_seed(5))
    res = run_program(
        emu_build("mix"), ["ok_pipeline", "{report}", "{x}", f"{tmp_path}/"], {"x": x}
    )
    assert res.returncode == 0, res.stderr
    # (aic, GetBlockIdx, GetSubBlockIdx, GetBlockNum, GetSubBlockNum)
    aic = {(1, b, 0, 2, 2) for b in range(2)}
    aiv = {(0, v, v % 2, 2, 2) for v in range(4)}
    assert identities(res.stdout) == aic | aiv
    assert len(res.report["counters"]["per_block"]) == 6
    assert res.report["block_dim"] == 2


def test_cross_core_flags_order_aic_and_aiv_work(emu_build, run_program, tmp_path) -> None:
    x = torch.randn(256, generator=torch.Generator().manual_seed(6))
    res = run_program(
        emu_build("mix"), ["ok_pipeline", "{report}", "{x}", f"{tmp_path}/"], {"x": x}
    )
    assert res.returncode == 0, res.stderr
    y = from_bytes((tmp_path / "y.bin").read_bytes(), "float32")
    z = from_bytes((tmp_path / "z.bin").read_bytes(), "float32")
    torch.testing.assert_close(y, 2 * x + 1)
    torch.testing.assert_close(z, (2 * x + 1).view(2, 128).sum(dim=1), rtol=1e-5, atol=1e-4)


def test_aiv_pair_and_all_aiv_flags_act_as_barriers(emu_build, run_program) -> None:
    res = run_program(emu_build("mix"), ["ok_aiv_pair_and_all", "{report}"])
    assert res.returncode == 0, res.stderr
    seen = sorted(line for line in res.stdout.splitlines() if line.startswith("aiv"))
    want = sorted(f"aiv {v} partner {100 + (v ^ 1)} next {100 + (v + 2) % 4}" for v in range(4))
    assert seen == want


def test_mix_attribute_on_the_entry_launches_mix_cores(emu_build, run_program) -> None:
    res = run_program(emu_build("mix_attr"), ["{report}"])
    assert res.returncode == 0, res.stderr
    rows = set()
    for line in res.stdout.splitlines():
        fields = dict(kv.split("=") for kv in line.split()[1:])
        rows.add((int(fields["aic"]), int(fields["idx"]), int(fields["sub"])))
    assert rows == {(1, b, 0) for b in range(3)} | {(0, v, v % 2) for v in range(6)}


BUGS = {
    "mix_block_dim": ("block-dim", "24 cube cores"),
    "sync_all_block_dim": ("block-dim", "48 vector cores"),
    "cross_wait_never_set": ("timeout", "AIV core"),
    "cross_wait_vector_only": ("timeout", "would hang"),
    "cross_flag_range": ("param-range", "flag id 11"),
    "cross_flag_overflow": ("param-range", "more than 15 times"),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_mix_seeded_bug_reports_rule_and_line(emu_build, run_program, case, expect) -> None:
    code, text = expect
    res = run_program(emu_build("mix"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("mix.cpp", f"BUG: {case}"), err
    assert text in err["message"]
