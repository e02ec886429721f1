"""The LSP base protocol's framing (`Content-Length` headers around JSON bodies), for the raw
clients that drive `kernelgen serve` byte by byte: the LSP bench and the fuzz test."""

from __future__ import annotations

import asyncio
import json
from typing import Any


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
