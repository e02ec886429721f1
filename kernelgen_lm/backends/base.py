"""What every LLM backend offers: k completions of a chat or a raw prompt, or a token stream.

The generator and the inline-completion engine only see this protocol, so a vLLM server, any
other OpenAI-compatible server and a local transformers model are interchangeable.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    role: Role
    content: str


# A chat (sent to a chat endpoint / chat template) or a raw text prompt (plain completion).
Prompt = str | Sequence[ChatMessage]


class Completion(BaseModel):
    """One sampled answer; `finish_reason` is `stop`, `length` (cut at max_tokens) or None."""

    text: str
    finish_reason: str | None = None


class BackendError(RuntimeError):
    """A backend could not answer; the message is meant for the user and carries no secrets."""


class BackendUnreachable(BackendError):
    """The model server did not answer at all (connection refused, DNS, timeouts)."""


class ModelNotFound(BackendError):
    """The server answered but does not serve the configured model."""


class BackendConfigError(BackendError):
    """The environment or settings describe no usable backend."""


@runtime_checkable
class Backend(Protocol):
    """An LLM that completes chats or raw prompts."""

    @property
    def name(self) -> str:
        """Short description for attempts and logs, e.g. `openai:qwen@http://host:8000`."""
        ...

    def generate(
        self,
        prompt: Prompt,
        *,
        n: int = 1,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> list[Completion]:
        """`n` independent completions of `prompt`."""
        ...

    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """One completion, yielded as text pieces while the model produces them."""
        ...


def cut_at_stop(text: str, stop: Sequence[str]) -> tuple[str, bool]:
    """`text` up to the first stop string (excluded) and whether one was found."""
    cuts = [i for i in (text.find(s) for s in stop if s) if i >= 0]
    return (text[: min(cuts)], True) if cuts else (text, False)
