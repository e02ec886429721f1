"""The sandbox turns hangs, memory bombs and crashes into results, and keeps secrets out."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

from ascend_tools.runner.sandbox import SandboxLimits, run_sandboxed

FAST = SandboxLimits(wall_seconds=2.0, cpu_seconds=1, memory_bytes=512 << 20)


def test_infinite_loop_is_a_timeout(programs: dict[str, Path], tmp_path: Path) -> None:
    start = time.monotonic()
    res = run_sandboxed([programs["loop"]], cwd=tmp_path, limits=FAST)
    assert res.timed_out
    assert time.monotonic() - start < 10


def test_wall_clock_limit_kills_a_sleeping_program(tmp_path: Path) -> None:
    res = run_sandboxed(["sleep", "30"], cwd=tmp_path, limits=SandboxLimits(wall_seconds=0.5))
    assert res.timed_out
    assert res.signal == signal.SIGKILL
    assert res.wall_seconds < 5


def test_a_run_still_computing_past_its_wall_budget_is_not_a_timeout(tmp_path: Path) -> None:
    """A loaded machine stretches a run's wall time, not its CPU time: a run that keeps using
    CPU is bounded by `cpu_seconds`, and only one that has stopped (a hang) by the wall budget
    (two pre_layer_norm corpus runs timed out at 60 s beside other jobs; alone they take 30)."""
    busy = "import time\nt = time.process_time()\nwhile time.process_time() - t < 2.5: pass\n"
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=10)
    res = run_sandboxed([sys.executable, "-c", busy], cwd=tmp_path, limits=limits)
    assert not res.timed_out and res.returncode == 0, res.describe_end()
    assert res.wall_seconds > 2.0
    capped = SandboxLimits(wall_seconds=0.5, wall_cap_seconds=1.0, cpu_seconds=10)
    res = run_sandboxed([sys.executable, "-c", busy], cwd=tmp_path, limits=capped)
    assert res.timed_out and res.wall_seconds < 2.4


def test_memory_bomb_is_stopped_by_the_address_space_limit(
    programs: dict[str, Path], tmp_path: Path
) -> None:
    # Generous time limits: the address-space limit must stop it, not the clock, even when a
    # loaded machine gives it little CPU to touch its pages.
    limits = SandboxLimits(wall_seconds=60.0, cpu_seconds=30, memory_bytes=512 << 20)
    res = run_sandboxed([programs["memory_bomb"]], cwd=tmp_path, limits=limits)
    assert not res.timed_out
    # bad_alloc -> std::terminate -> SIGABRT
    assert res.signal == signal.SIGABRT
    assert res.crashed


def test_segfault_is_a_crash_and_keeps_earlier_output(
    programs: dict[str, Path], tmp_path: Path
) -> None:
    res = run_sandboxed([programs["segfault"]], cwd=tmp_path, limits=FAST)
    assert res.signal == signal.SIGSEGV
    assert res.crashed and not res.timed_out
    assert "about to crash" in res.stdout
    assert "SIGSEGV" in res.describe_end()


def test_grandchildren_die_with_the_run(programs: dict[str, Path], tmp_path: Path) -> None:
    res = run_sandboxed([programs["forker"]], cwd=tmp_path, limits=SandboxLimits(wall_seconds=1.0))
    assert res.timed_out
    grandchild = int(res.stdout.split()[0])
    time.sleep(0.2)
    try:
        os.kill(grandchild, 0)
        alive = Path(f"/proc/{grandchild}/status").read_text().find("State:\tZ") < 0
    except ProcessLookupError:
        alive = False
    assert not alive


def test_environment_is_scrubbed(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    res = run_sandboxed(["env"], cwd=tmp_path, env={"KERNELGEN_EXTRA": "1"})
    assert res.returncode == 0
    assert "sk-secret" not in res.stdout
    assert "KERNELGEN_EXTRA=1" in res.stdout


def test_the_emulators_off_switches_reach_the_run(tmp_path: Path, monkeypatch) -> None:
    # emu/README.md's KERNELGEN_NO_* switches, set for `kernelgen validate`, reach the kernel;
    # other KERNELGEN_ variables (the trial's block order, auto-sync) stay the validator's.
    monkeypatch.setenv("KERNELGEN_NO_GM_RACE", "1")
    monkeypatch.setenv("KERNELGEN_BLOCK_ORDER", "reverse")
    res = run_sandboxed(["env"], cwd=tmp_path)
    assert "KERNELGEN_NO_GM_RACE=1" in res.stdout
    assert "KERNELGEN_BLOCK_ORDER" not in res.stdout


def test_runs_in_the_given_directory(tmp_path: Path) -> None:
    res = run_sandboxed(["pwd"], cwd=tmp_path)
    assert Path(res.stdout.strip()).resolve() == tmp_path.resolve()


def test_output_is_capped(tmp_path: Path) -> None:
    limits = SandboxLimits(output_bytes=1000)
    res = run_sandboxed(
        ["sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' x"], cwd=tmp_path, limits=limits
    )
    assert res.returncode == 0
    assert len(res.stdout) == 1000
    assert res.output_truncated


def test_file_size_limit_stops_runaway_writes(tmp_path: Path) -> None:
    limits = SandboxLimits(file_bytes=1 << 20)
    res = run_sandboxed(
        ["sh", "-c", "head -c 5000000 /dev/zero > big.bin"], cwd=tmp_path, limits=limits
    )
    assert res.returncode != 0 or res.signal is not None
    assert (tmp_path / "big.bin").stat().st_size <= 1 << 20


def test_network_is_isolated_where_permitted(tmp_path: Path) -> None:
    res = run_sandboxed(["cat", "/proc/net/dev"], cwd=tmp_path)
    assert res.returncode == 0
    if res.network_isolated:
        interfaces = [ln.split(":")[0].strip() for ln in res.stdout.splitlines()[2:]]
        assert interfaces == ["lo"]
