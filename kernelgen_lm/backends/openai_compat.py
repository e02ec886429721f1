"""Backend for OpenAI-compatible HTTP servers (vLLM's `vllm serve`, `transformers serve`, ...).

Chats go to `/v1/chat/completions`, raw prompts to `/v1/completions`. Connection failures,
timeouts, 429 and 5xx answers are retried with exponential backoff; everything else becomes a
`BackendError` whose message names the server and the model but never the API key.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx
from pydantic import BaseModel, ConfigDict, SecretStr

from kernelgen_lm.backends.base import (
    BackendConfigError,
    BackendError,
    BackendUnreachable,
    ChatMessage,
    Completion,
    ModelNotFound,
    Prompt,
)

RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class OpenAIConfig(BaseModel):
    """Where the server is and how patiently to talk to it."""

    model_config = ConfigDict(frozen=True)

    base_url: str
    model: str
    api_key: SecretStr | None = None
    timeout_s: float = 300.0
    connect_timeout_s: float = 5.0
    retries: int = 3
    backoff_s: float = 0.5


def api_root(base_url: str) -> str:
    """`http://h:8000`, `http://h:8000/` and `http://h:8000/v1` all mean `http://h:8000/v1`."""
    root = base_url.strip().rstrip("/")
    if not root.startswith(("http://", "https://")):
        raise BackendConfigError(
            f"model server URL {base_url!r} must start with http:// or https://"
        )
    return root if root.endswith("/v1") else root + "/v1"


def _error_detail(response: httpx.Response) -> str:
    """The server's own error text (vLLM: {"error": {"message": ...}}, FastAPI: {"detail": ...})."""
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:500]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body.get("message")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:500]
    return json.dumps(body)[:500]


def _is_model_error(status: int, detail: str) -> bool:
    low = detail.lower()
    return status == 404 or ("model" in low and ("not exist" in low or "not found" in low))


class OpenAICompatibleBackend:
    """k completions or a token stream from an OpenAI-compatible server."""

    def __init__(self, config: OpenAIConfig, *, transport: httpx.BaseTransport | None = None):
        self.config = config
        self._root = api_root(config.base_url)
        headers = {"Accept": "application/json"}
        if config.api_key is not None and config.api_key.get_secret_value():
            headers["Authorization"] = f"Bearer {config.api_key.get_secret_value()}"
        timeout = httpx.Timeout(config.timeout_s, connect=config.connect_timeout_s)
        self._client = httpx.Client(headers=headers, timeout=timeout, transport=transport)

    @property
    def name(self) -> str:
        return f"openai:{self.config.model}@{self._root.removesuffix('/v1')}"

    def __repr__(self) -> str:
        return f"OpenAICompatibleBackend({self.name})"

    def close(self) -> None:
        self._client.close()

    # -- requests ---------------------------------------------------------------------------

    def _body(
        self, prompt: Prompt, *, n: int, max_tokens: int, temperature: float, stop: Sequence[str]
    ) -> tuple[str, dict[str, Any]]:
        body: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if n != 1:
            body["n"] = n
        if stop:
            body["stop"] = list(stop)
        if isinstance(prompt, str):
            body["prompt"] = prompt
            return "/completions", body
        body["messages"] = [ChatMessage.model_validate(m).model_dump() for m in prompt]
        return "/chat/completions", body

    def _send(self, path: str, body: dict[str, Any], *, stream: bool) -> httpx.Response:
        """POST with retries; returns a response with a 2xx status (streamed if asked)."""
        url = self._root + path
        last = ""
        for attempt in range(self.config.retries + 1):
            if attempt:
                time.sleep(self.config.backoff_s * 2 ** (attempt - 1))
            try:
                request = self._client.build_request("POST", url, json=body)
                response = self._client.send(request, stream=stream)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                last = f"{type(exc).__name__}: {exc}"
                continue
            except httpx.TimeoutException as exc:
                raise BackendUnreachable(
                    f"model server {self._root} did not answer within "
                    f"{self.config.timeout_s:.0f} s ({type(exc).__name__})"
                ) from exc
            if response.is_success:
                return response
            if stream:
                response.read()
                response.close()
            detail = _error_detail(response)
            if _is_model_error(response.status_code, detail):
                raise ModelNotFound(
                    f"model server {self._root} does not serve model {self.config.model!r} "
                    f"(HTTP {response.status_code}: {detail})"
                )
            if response.status_code in RETRY_STATUS:
                last = f"HTTP {response.status_code}: {detail}"
                continue
            raise BackendError(
                f"model server {self._root} rejected the request "
                f"(HTTP {response.status_code}: {detail})"
            )
        if last.startswith("HTTP"):
            raise BackendError(
                f"model server {self._root} kept failing for model {self.config.model!r} after "
                f"{self.config.retries + 1} tries ({last}){self._listing_hint()}"
            )
        raise BackendUnreachable(
            f"cannot reach the model server at {self._root} after "
            f"{self.config.retries + 1} tries ({last})"
        )

    def served_models(self) -> list[str]:
        """Model ids the server lists at `/v1/models` (one try, no retries)."""
        try:
            response = self._client.get(self._root + "/models", timeout=10)
            response.raise_for_status()
            return [str(m["id"]) for m in response.json().get("data", [])]
        except (httpx.HTTPError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise BackendError(f"model server {self._root} did not list its models: {exc}") from exc

    def _listing_hint(self) -> str:
        """A hint for failures that a wrong model name can cause (some servers answer 500)."""
        try:
            served = self.served_models()
        except BackendError:
            return ""
        if self.config.model in served:
            return ""
        listed = ", ".join(served[:10]) or "none"
        return f"; the server lists these models: {listed} (check KERNELGEN_LLM_MODEL)"

    @staticmethod
    def _choice_text(choice: dict[str, Any]) -> str:
        if "message" in choice:
            return (choice["message"] or {}).get("content") or ""
        return choice.get("text") or ""

    def generate(
        self,
        prompt: Prompt,
        *,
        n: int = 1,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> list[Completion]:
        """`n` completions; servers that ignore `n` (transformers serve) are asked again."""
        out: list[Completion] = []
        while len(out) < n:
            path, body = self._body(
                prompt, n=n - len(out), max_tokens=max_tokens, temperature=temperature, stop=stop
            )
            response = self._send(path, body, stream=False)
            try:
                choices = response.json()["choices"]
                got = [
                    Completion(text=self._choice_text(c), finish_reason=c.get("finish_reason"))
                    for c in choices
                ]
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise BackendError(
                    f"model server {self._root} sent an answer that is not an OpenAI completion: "
                    f"{response.text[:200]!r}"
                ) from exc
            if not got:
                raise BackendError(f"model server {self._root} returned no choices")
            out.extend(got)
        return out[:n]

    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """Text pieces of one completion, read from the server's SSE stream."""
        path, body = self._body(
            prompt, n=1, max_tokens=max_tokens, temperature=temperature, stop=stop
        )
        body["stream"] = True
        response = self._send(path, body, stream=True)
        try:
            for line in response.iter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[len("data:") :].strip()
                if data == "[DONE]":
                    break
                try:
                    event = json.loads(data)
                except ValueError as exc:
                    raise BackendError(
                        f"model server {self._root} sent a bad event: {data[:200]!r}"
                    ) from exc
                if "error" in event:
                    raise BackendError(
                        f"model server {self._root} failed mid-stream: {event['error']}"
                    )
                for choice in event.get("choices", []):
                    if "delta" in choice:
                        piece = (choice["delta"] or {}).get("content")
                    else:
                        piece = choice.get("text")
                    if piece:
                        yield piece
        except httpx.TransportError as exc:
            raise BackendUnreachable(
                f"model server {self._root} dropped the stream: {exc}"
            ) from exc
        finally:
            response.close()
