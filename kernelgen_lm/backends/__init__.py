"""LLM backends behind one protocol: OpenAI-compatible servers (vLLM) and local transformers.

Configuration from the environment: see `config.py` (`KERNELGEN_LLM_BASE_URL`,
`KERNELGEN_LLM_MODEL`, `KERNELGEN_LLM_API_KEY`, `KERNELGEN_LLM_LOCAL_MODEL`).

The backends are imported on first use (PEP 562): the language server reads the message types in
`base` at start-up and must not pay for httpx until it talks to a model server.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from kernelgen_lm.backends.base import (
    Backend,
    BackendConfigError,
    BackendError,
    BackendUnreachable,
    ChatMessage,
    Completion,
    ModelNotFound,
    Prompt,
)

if TYPE_CHECKING:
    from kernelgen_lm.backends.config import configured_backend
    from kernelgen_lm.backends.openai_compat import OpenAICompatibleBackend, OpenAIConfig
    from kernelgen_lm.backends.transformers_local import TransformersBackend

_LAZY = {
    "configured_backend": "config",
    "OpenAICompatibleBackend": "openai_compat",
    "OpenAIConfig": "openai_compat",
    "TransformersBackend": "transformers_local",
}

__all__ = [
    "Backend",
    "BackendConfigError",
    "BackendError",
    "BackendUnreachable",
    "ChatMessage",
    "Completion",
    "ModelNotFound",
    "OpenAICompatibleBackend",
    "OpenAIConfig",
    "Prompt",
    "TransformersBackend",
    "configured_backend",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
