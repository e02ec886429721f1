"""A JSON-RPC protocol that answers every malformed message instead of dropping it.

pygls 2.1 logs and drops a request whose params do not parse (the client waits forever) and
gives command handlers their arguments but not the `workDoneToken`. Here a request that cannot
be read gets an InvalidParams (or InvalidRequest) error response, a body that is not JSON a
ParseError response with a null id, and `workspace/executeCommand` hands the whole params to
the server's command table.

pygls 2.1 also keeps the future of every async notification handler (each `didChange`, with
its params) in `_request_futures` under a fresh uuid that nothing removes: the server grew
about 2.6 kB per keystroke. Here every handler's future leaves that table when it is done."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, lsp_method

logger = logging.getLogger(__name__)
LOG_LIMIT = 2000


class _Unreadable:
    """Stands for a message already answered with an error; `handle_message` skips it."""

    jsonrpc = "2.0"


UNREADABLE = _Unreadable()


class KernelgenProtocol(LanguageServerProtocol):
    def structure_message(self, data: dict[str, Any]) -> Any:
        if not isinstance(data, dict) or "jsonrpc" not in data:
            return data
        try:
            if "method" in data and not isinstance(data["method"], str):
                raise JsonRpcInvalidRequest("method must be a string")
            if "id" in data and not isinstance(data["id"], (int, str)) and data["id"] is not None:
                raise JsonRpcInvalidRequest("id must be a number or a string")
            return super().structure_message(data)
        except JsonRpcException as exc:
            self._answer_unreadable(data, exc)
        except Exception as exc:  # a converter bug must not take the connection down
            self._answer_unreadable(data, JsonRpcInvalidParams(str(exc)[:200]))
        return UNREADABLE

    def _answer_unreadable(self, data: dict[str, Any], exc: JsonRpcException) -> None:
        method = str(data.get("method", ""))[:100]
        msg_id = data.get("id")
        if "method" in data and isinstance(msg_id, (int, str)):
            error = exc.to_response_error()
            error.message = f"{method}: {error.message or 'invalid params'}"
            self._send_response(msg_id, error=error)
        logger.warning("unreadable message %r (id %r): %s", method, msg_id,
                       type(exc).__name__)

    def handle_message(self, message: Any) -> None:
        if message is UNREADABLE:
            return
        if not hasattr(message, "jsonrpc"):
            # Valid JSON that is no JSON-RPC message at all (an array, a number, ...).
            logger.warning("ignored a message that is not a JSON-RPC object")
            if isinstance(message, dict) and isinstance(message.get("id"), (int, str)):
                self._send_response(message["id"], error=JsonRpcInvalidRequest(
                    "not a JSON-RPC 2.0 message").to_response_error())
            return
        super().handle_message(message)

    def _execute_handler(self, msg_id: Any, handler: Callable[..., Any],
                         callback: Callable[..., Any], args: Any = None,
                         kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args, kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            # Deferred to a later loop turn: a thread future's callbacks run inside `cancel()`,
            # and pygls' shutdown cancels while iterating the table.
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # a generator handler resumed on a worker thread
                future.add_done_callback(lambda done: self._forget(msg_id, done))
            else:
                future.add_done_callback(
                    lambda done: loop.call_soon_threadsafe(self._forget, msg_id, done))

    def _forget(self, msg_id: Any, future: Any) -> None:
        """Drops a finished handler's future (a request's response is already sent by then: its
        own callback ran first)."""
        if self._request_futures.get(msg_id) is future:
            del self._request_futures[msg_id]

    def answer_parse_error(self) -> None:
        """A body that is not JSON: JSON-RPC answers with a ParseError and a null id."""
        self._send_data({"jsonrpc": "2.0", "id": None,
                         "error": {"code": -32700, "message": "Parse error: invalid JSON"}})

    @lsp_method(lsp.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: lsp.ExecuteCommandParams) -> Any:
        handler = self.fm.commands.get(params.command)
        if handler is None:
            raise JsonRpcInvalidParams(f"unknown command {params.command!r}")
        result = yield handler, (params,), None
        return result


class TruncatingFormatter(logging.Formatter):
    """Log lines cut to `LOG_LIMIT` characters: pygls logs whole params (megabytes for a big
    document) when a handler fails, and a settings dump must never carry the API key."""

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        return text if len(text) <= LOG_LIMIT else text[:LOG_LIMIT] + f"... [{len(text)} chars]"
