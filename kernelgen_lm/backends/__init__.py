"""LLM backends behind one protocol: OpenAI-compatible servers (vLLM) and local transformers.

Configuration from the environment: see `config.py` (`KERNELGEN_LLM_BASE_URL`,
`KERNELGEN_LLM_MODEL`, `KERNELGEN_LLM_API_KEY`, `KERNELGEN_LLM_LOCAL_MODEL`).
"""

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
from kernelgen_lm.backends.config import configured_backend
from kernelgen_lm.backends.openai_compat import OpenAICompatibleBackend, OpenAIConfig
from kernelgen_lm.backends.transformers_local import TransformersBackend

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
