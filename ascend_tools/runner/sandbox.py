"""Run an untrusted program so that looping, crashing or allocating without bound is a result.

The child gets its own session (so a wall-clock kill reaches every process it started), CPU-time,
address-space and file-size limits, a scrubbed environment, a private network namespace where
the kernel lets us create one, and bounded captured output. Nothing the child does can hang or
kill the calling tool.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000

# Variables a compiled program legitimately needs; everything else (tokens, keys, proxies) is
# dropped so generated code never sees the user's secrets.
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "TZ")
# The emulator's switches that turn one of its models off (emu/README.md): a user who sets one
# for `kernelgen validate` means it for the kernel the sandbox runs.
_KEPT_ENV_PREFIX = "KERNELGEN_NO_"


class SandboxLimits(BaseModel):
    """Resource limits of one sandboxed run; the defaults suit an emulator run of one case."""

    wall_seconds: float = 60.0
    """Wall time after which a run that has stopped using CPU is killed (a hang). One that is
    still computing, only slowed by a loaded machine, runs on: `cpu_seconds` bounds it."""
    wall_cap_seconds: float = 600.0
    """Wall time after which any run is killed."""
    cpu_seconds: int = 60
    memory_bytes: int = 4 << 30
    file_bytes: int = 1 << 30
    output_bytes: int = 1 << 20
    isolate_network: bool = True


class SandboxResult(BaseModel):
    """What happened to the child: exactly one of exit code, signal or timeout explains its end."""

    returncode: int | None
    signal: int | None
    timed_out: bool
    wall_seconds: float
    stdout: str
    stderr: str
    output_truncated: bool
    network_isolated: bool

    @property
    def crashed(self) -> bool:
        return self.signal is not None and not self.timed_out

    def describe_end(self) -> str:
        """One line for messages: how the child ended."""
        if self.timed_out:
            return f"timed out after {self.wall_seconds:.1f} s"
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            return f"killed by {name}"
        return f"exited with code {self.returncode}"


def scrubbed_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in _KEPT_ENV or k.startswith(_KEPT_ENV_PREFIX)}
    env.setdefault("PATH", "/usr/bin:/bin")
    env["HOME"] = "/nonexistent"
    if extra:
        env.update(extra)
    return env


def _load_libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


# Loaded in the parent: the forked child must not dlopen (another thread may hold the loader lock).
_LIBC = _load_libc()


def _try_unshare_network() -> bool:
    """Moves the calling process into a fresh network namespace (directly where privileged,
    else inside a new user namespace); False where neither is permitted."""
    if _LIBC is None:
        return False
    return any(
        _LIBC.unshare(flags) == 0 for flags in (_CLONE_NEWNET, _CLONE_NEWUSER | _CLONE_NEWNET)
    )


def _child_setup(limits: SandboxLimits, status_fd: int) -> None:
    # Runs in the forked child before exec: only async-signal-tolerant work, no raising.
    cpu = max(1, int(limits.cpu_seconds))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    isolated = limits.isolate_network and _try_unshare_network()
    os.write(status_fd, b"1" if isolated else b"0")
    os.close(status_fd)


def _drain(stream, cap: int, sink: list[bytes], truncated: list[bool]) -> None:
    """Keeps the first `cap` bytes and discards the rest, so a chatty child never blocks."""
    kept = 0
    while chunk := stream.read(65536):
        if kept + len(chunk) > cap:
            truncated[0] = True
        if kept < cap:
            sink.append(chunk[: cap - kept])
            kept += len(sink[-1])
    stream.close()


def _cpu_seconds(pid: int) -> float | None:
    """CPU time a running process (all its threads) has used so far; None where /proc cannot
    tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _wait(pid: int, start: float, limits: SandboxLimits) -> tuple[int, float, bool]:
    """Reaps `pid`, killing its session once it is past `wall_seconds` and has used no CPU for
    that long (or for 5 s, if shorter), or past `wall_cap_seconds`: a wall-clock limit alone
    turned slow runs on a loaded machine into timeouts. Returns wait status, CPU seconds,
    timed out."""
    stall = min(5.0, limits.wall_seconds)
    cap = start + max(limits.wall_cap_seconds, limits.wall_seconds)
    used, progressed, probe = 0.0, start, start
    delay = 0.001
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage.ru_utime + usage.ru_stime, False
        now = time.monotonic()
        if now >= probe:
            cpu = _cpu_seconds(pid)
            if cpu is not None and cpu > used:
                used, progressed = cpu, now
            probe = now + 0.25
        if now >= cap or (now >= start + limits.wall_seconds and now - progressed >= stall):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return status, usage.ru_utime + usage.ru_stime, True
        time.sleep(delay)
        delay = min(delay * 2, 0.02)


def run_sandboxed(
    argv: Sequence[str | Path],
    *,
    cwd: Path,
    limits: SandboxLimits | None = None,
    env: Mapping[str, str] | None = None,
) -> SandboxResult:
    """Runs `argv` in `cwd` (a directory the caller made for this run) under `limits`."""
    limits = limits or SandboxLimits()
    read_fd, write_fd = os.pipe()
    start = time.monotonic()
    proc = subprocess.Popen(
        [str(a) for a in argv],
        cwd=cwd,
        env=scrubbed_env(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        pass_fds=(write_fd,),
        preexec_fn=lambda: _child_setup(limits, write_fd),
    )
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as status:
        isolated = status.read(1) == b"1"
    out: list[bytes] = []
    err: list[bytes] = []
    truncated = [False]
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, limits.output_bytes, out, truncated)),
        threading.Thread(target=_drain, args=(proc.stderr, limits.output_bytes, err, truncated)),
    ]
    for t in readers:
        t.daemon = True
        t.start()
    status_word, cpu_used, timed_out = _wait(proc.pid, start, limits)
    proc.returncode = os.waitstatus_to_exitcode(status_word)
    # Grandchildren the program left behind die with its session.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    for t in readers:
        t.join(timeout=5)
    wall = time.monotonic() - start
    code = proc.returncode
    sig = -code if code < 0 else None
    # The CPU limit ends a program with SIGXCPU (soft) or SIGKILL (hard): a timeout as well.
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu_used >= limits.cpu_seconds):
        timed_out = True
    return SandboxResult(
        returncode=None if sig is not None else code,
        signal=sig,
        timed_out=timed_out,
        wall_seconds=wall,
        stdout=b"".join(out).decode("utf-8", "replace"),
        stderr=b"".join(err).decode("utf-8", "replace"),
        output_truncated=truncated[0],
        network_isolated=isolated,
    )
