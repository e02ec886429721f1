"""The LSP base protocol's framing (`Content-Length` headers around JSON bodies) and a minimal
client over a server's stdio, for the raw clients that drive `kernelgen serve` byte by byte: the
LSP benches, the corpus census and the fuzz test."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def read_message(stream: asyncio.StreamReader) -> dict[str, Any] | None:
    """The next message from the server, or None at the end of the stream."""
    length = 0
    while True:
        line = await stream.readline()
        if not line:
            return None
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
        if line in (b"\r\n", b"\n"):
            break
    return json.loads(await stream.readexactly(length))


async def spawn_server(stderr: int = asyncio.subprocess.DEVNULL) -> asyncio.subprocess.Process:
    """`kernelgen serve` over stdio from this checkout (the repository first on the path)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)}
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=stderr, env=env, limit=64 * 1024 * 1024)


class Session:
    """A minimal LSP client over the server's stdio: requests by id, notifications handed to
    `on_notify(method, params)`, requests from the server answered with null."""

    def __init__(self, proc: asyncio.subprocess.Process,
                 on_notify: Callable[[str, Any], None] | None = None) -> None:
        self.proc = proc
        self.next_id = 0
        self.waiting: dict[int, asyncio.Future[Any]] = {}
        self.published: list[tuple[float, str, int]] = []  # (time, uri, diagnostic count)
        self.on_notify = on_notify
        self.closed = False
        """The server's stdout ended (it exited or crashed)."""
        self.reader = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while (msg := await read_message(out)) is not None:
                if "id" in msg and "method" not in msg:
                    fut = self.waiting.pop(msg["id"], None)
                    if fut is not None and not fut.done():
                        fut.set_result(msg)
                elif "id" in msg:
                    self.send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                else:
                    method, params = msg.get("method", ""), msg.get("params")
                    if method == "textDocument/publishDiagnostics":
                        self.published.append((time.perf_counter(), params["uri"],
                                               len(params["diagnostics"])))
                    if self.on_notify is not None:
                        self.on_notify(method, params)
        finally:
            self.closed = True
            for fut in self.waiting.values():
                if not fut.done():
                    fut.set_exception(ConnectionError("the server closed its output"))

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(json.dumps(obj).encode()))

    async def call(self, method: str, params: Any, timeout: float = 300) -> dict[str, Any]:
        """The whole response message (`result` or `error`); TimeoutError past `timeout`,
        ConnectionError when the server is gone."""
        if self.closed:
            raise ConnectionError("the server closed its output")
        self.next_id += 1
        ident = self.next_id
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.waiting[ident] = fut
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        try:
            return await asyncio.wait_for(fut, timeout)
        finally:
            self.waiting.pop(ident, None)

    async def request(self, method: str, params: Any, timeout: float = 300) -> Any:
        return (await self.call(method, params, timeout)).get("result")

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})
