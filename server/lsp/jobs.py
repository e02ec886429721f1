"""Worker processes from the event loop: started, read line by line, killed on cancel."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


class JobError(RuntimeError):
    """The worker reported an error or died; the message is meant for the user."""


async def run_worker(args: list[str], *, env: dict[str, str] | None = None,
                     on_progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Runs `python -m server.lsp.worker ARGS` and returns its result. Cancelling the awaiting
    task kills the worker's whole process group (the compiler and the emulator with it)."""
    child_env = {**os.environ, **(env or {})}
    child_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), child_env.get("PYTHONPATH", "")) if p)
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.lsp.worker", *args,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=child_env, start_new_session=True,
        limit=64 * 1024 * 1024)
    result: dict[str, Any] | None = None
    error = ""
    try:
        assert proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        while line := await proc.stdout.readline():
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if not isinstance(msg, dict):
                continue
            if "progress" in msg and on_progress is not None:
                on_progress(str(msg["progress"]))
            elif "result" in msg:
                result = msg["result"]
            elif "error" in msg:
                error = str(msg["error"])
        await proc.wait()
        stderr = (await stderr_task).decode("utf-8", errors="replace")
    except BaseException:
        kill(proc)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(proc.wait(), 5)
        raise
    if result is not None:
        return result
    raise JobError(error or f"worker exited with {proc.returncode}: {stderr.strip()[-500:]}")


def kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
