"""The server never dies on input: thousands of malformed or random messages and edits, then
a correct answer; every request that carried an id gets a response."""

from __future__ import annotations

import asyncio
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest

from bench.lsp_wire import frame, read_message
from tests.lsp.conftest import CORPUS, REPO, SERVER

pytestmark = pytest.mark.asyncio


class RawClient:
    """JSON-RPC over the server's stdio with full control of the bytes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.responses: dict[Any, dict[str, Any]] = {}
        self.null_id_errors: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> RawClient:
        env = {k: v for k, v in os.environ.items() if not k.startswith("KERNELGEN_LLM_")}
        env["PYTHONPATH"] = str(REPO)
        proc = await asyncio.create_subprocess_exec(
            *SERVER, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL, env=env, limit=64 * 1024 * 1024)
        return cls(proc)

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while (msg := await read_message(out)) is not None:
            if "id" in msg and "method" not in msg:
                if msg["id"] is None:
                    self.null_id_errors.append(msg)
                else:
                    self.responses[msg["id"]] = msg
            elif "method" in msg and "id" in msg:  # a request from the server: answer it
                self.send_obj({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            else:
                self.notifications.append(msg)

    def send_bytes(self, body: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(frame(body))

    def send_obj(self, obj: Any) -> None:
        self.send_bytes(json.dumps(obj).encode())

    async def request(self, msg_id: int, method: str, params: Any, timeout: float = 60) -> Any:
        self.send_obj({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return await self.answer(msg_id, timeout)

    async def answer(self, msg_id: Any, timeout: float = 60) -> dict[str, Any]:
        for _ in range(int(timeout / 0.05)):
            if msg_id in self.responses:
                return self.responses[msg_id]
            await asyncio.sleep(0.05)
        raise AssertionError(f"no response to request {msg_id}")

    async def close(self) -> None:
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self.reader.cancel()


def _position(rng: random.Random) -> Any:
    return rng.choice([
        {"line": rng.randint(0, 10**6), "character": rng.randint(0, 10**6)},
        {"line": -1, "character": "x"}, {"line": 3}, None, "here", [1, 2],
        {"line": rng.randint(0, 80), "character": rng.randint(0, 120)},
    ])


async def test_thousands_of_malformed_messages_then_a_correct_completion(tmp_path: Path) -> None:
    kernel = tmp_path / "leaky.cpp"
    text = (CORPUS / "leaky_relu_tail.cpp").read_text()
    kernel.write_text(text)
    uri = kernel.as_uri()
    client = await RawClient.start()
    try:
        init = await client.request(1, "initialize", {
            "processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}})
        assert "capabilities" in init["result"]
        client.send_obj({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        client.send_obj({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": uri, "languageId": "cpp", "version": 1, "text": text}}})
        big = tmp_path / "big.cpp"
        client.send_obj({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": big.as_uri(), "languageId": "cpp", "version": 1,
                             "text": "int x;\n" * 750_000}}})  # 5 MB
        client.send_obj({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {
            "textDocument": {"uri": (tmp_path / "bin.cpp").as_uri(), "languageId": "cpp",
                             "version": 1, "text": "\x00\x01\x02garbage\x00" * 1000}}})
        rng = random.Random(0)
        methods = ["textDocument/completion", "textDocument/hover", "textDocument/signatureHelp",
                   "textDocument/definition", "textDocument/inlayHint", "textDocument/codeLens",
                   "textDocument/documentSymbol", "textDocument/codeAction",
                   "workspace/executeCommand", "no/such/method", "textDocument/references"]
        expected: list[int] = []
        version = 1
        for i in range(2500):
            kind = rng.randrange(8)
            msg_id = 1000 + i
            if kind == 0:
                client.send_bytes(rng.choice([b"{not json", b"\xff\xfe\x00", b"[1, 2", b"{}}"]))
            elif kind == 1:
                client.send_obj(rng.choice([[1, 2, 3], 42, "text", None,
                                            {"jsonrpc": "2.0", "id": msg_id}]))
            elif kind == 2:  # a request with wrong parameter types
                client.send_obj({"jsonrpc": "2.0", "id": msg_id, "method": rng.choice(methods),
                                 "params": rng.choice([{"textDocument": 5}, [], "x", None,
                                                       {"position": "p"}])})
                expected.append(msg_id)
            elif kind == 3:  # a well-formed request at a random (often impossible) position
                method = rng.choice(methods[:7])
                params: dict[str, Any] = {"textDocument": {"uri": uri}}
                pos = _position(rng)
                if method == "textDocument/inlayHint":
                    params["range"] = {"start": {"line": 0, "character": 0},
                                       "end": pos}
                elif method not in ("textDocument/codeLens", "textDocument/documentSymbol"):
                    params["position"] = pos
                client.send_obj({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                 "params": params})
                expected.append(msg_id)
            elif kind == 4:  # a random edit, sometimes past the end of the document
                version += 1
                line = rng.randint(0, 120)
                change = {"range": {"start": {"line": line, "character": rng.randint(0, 90)},
                                    "end": {"line": line + rng.randint(0, 3),
                                            "character": rng.randint(0, 90)}},
                          "text": rng.choice(["", "x", "pipe->", "QuePosition::", "}", "{",
                                              "\n", "/*", "\"", "AllocTensor<", "é中"])}
                client.send_obj({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [change]}})
            elif kind == 5:
                client.send_obj({"jsonrpc": "2.0", "method": "$/cancelRequest",
                                 "params": {"id": msg_id - rng.randint(1, 5)}})
            elif kind == 6:  # a command with bad arguments
                client.send_obj({"jsonrpc": "2.0", "id": msg_id, "method":
                                 "workspace/executeCommand", "params": {
                                     "command": rng.choice(["kernelgen.validate",
                                                            "kernelgen.setReference",
                                                            "kernelgen.nope",
                                                            "kernelgen.acceptCompletion"]),
                                     "arguments": rng.choice([[], [1], ["x"], [{"uri": 3}],
                                                              [{"id": 5}], None])}})
                expected.append(msg_id)
            else:  # a notification with broken params
                client.send_obj({"jsonrpc": "2.0", "method": rng.choice(
                    ["textDocument/didChange", "textDocument/didSave", "textDocument/didClose",
                     "workspace/didChangeConfiguration"]), "params": rng.choice(
                    [{}, {"textDocument": None}, {"settings": {"kernelgen": {"chip": 7}}}, 5])})
            if i % 200 == 0:
                assert client.proc.stdin is not None
                await client.proc.stdin.drain()
        # The document's real text is restored, then a correct answer must come back.
        version += 1
        client.send_obj({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version},
            "contentChanges": [{"text": text}]}})
        line = text.split("\n").index(next(t for t in text.split("\n") if "pipe->InitBuffer" in t))
        col = text.split("\n")[line].index("pipe->") + len("pipe->")
        done = await client.request(9_999_999, "textDocument/completion", {
            "textDocument": {"uri": uri}, "position": {"line": line, "character": col}},
            timeout=120)
        labels = [i["label"] for i in done["result"]["items"]]
        assert labels[0] == "InitBuffer"
        for msg_id in expected:  # every request was answered, with a result or an error
            await client.answer(msg_id, timeout=30)
        assert client.null_id_errors and all(
            e["error"]["code"] == -32700 for e in client.null_id_errors)
        assert client.proc.returncode is None
    finally:
        await client.close()


async def test_serve_over_tcp_answers_initialize() -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = await asyncio.create_subprocess_exec(
        *SERVER, "--tcp", "--host", "127.0.0.1", "--port", str(port),
        stdin=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL, env=env)
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        else:
            raise AssertionError("the TCP server did not listen")
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                           "params": {"processId": None, "rootUri": None,
                                      "capabilities": {}}}).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        length = 0
        while (line := await asyncio.wait_for(reader.readline(), 60)) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        answer = json.loads(await reader.readexactly(length))
        caps = answer["result"]["capabilities"]
        assert caps["completionProvider"]["triggerCharacters"] == [".", ">", ":", "<"]
        assert "inlineCompletionProvider" in caps
        writer.close()
    finally:
        proc.kill()
        await proc.wait()
