"""Which backend the environment asks for.

- `KERNELGEN_LLM_BASE_URL`: an OpenAI-compatible server, e.g. `http://localhost:8000` or
  `http://localhost:8000/v1` (vLLM: `vllm serve MODEL`; also `transformers serve MODEL`).
- `KERNELGEN_LLM_MODEL`: the model name that server serves (required with the URL).
- `KERNELGEN_LLM_API_KEY`: bearer token for the server, if it wants one (never logged).
- `KERNELGEN_LLM_LOCAL_MODEL`: a local model directory (save_pretrained layout), run in-process
  with transformers.
- `KERNELGEN_LLM_TIMEOUT`: seconds to wait for one answer from the server (default 300).

A server URL wins over a local model when both are set; neither set means no LLM backend.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from pydantic import SecretStr

from kernelgen_lm.backends.base import Backend, BackendConfigError
from kernelgen_lm.backends.openai_compat import OpenAICompatibleBackend, OpenAIConfig
from kernelgen_lm.backends.transformers_local import TransformersBackend

ENV_BASE_URL = "KERNELGEN_LLM_BASE_URL"
ENV_MODEL = "KERNELGEN_LLM_MODEL"
ENV_API_KEY = "KERNELGEN_LLM_API_KEY"
ENV_LOCAL_MODEL = "KERNELGEN_LLM_LOCAL_MODEL"
ENV_TIMEOUT = "KERNELGEN_LLM_TIMEOUT"


def configured_backend(env: Mapping[str, str] | None = None) -> Backend | None:
    """The backend the environment describes, or None; a half-done setting is an error."""
    env = os.environ if env is None else env
    base_url = env.get(ENV_BASE_URL, "").strip()
    local = env.get(ENV_LOCAL_MODEL, "").strip()
    if base_url:
        model = env.get(ENV_MODEL, "").strip()
        if not model:
            raise BackendConfigError(
                f"{ENV_BASE_URL} is set but {ENV_MODEL} is not: name the model the server serves"
            )
        timeout_text = env.get(ENV_TIMEOUT, "300").strip() or "300"
        try:
            timeout = float(timeout_text)
        except ValueError:
            raise BackendConfigError(
                f"{ENV_TIMEOUT}={timeout_text!r} is not a number of seconds"
            ) from None
        key = env.get(ENV_API_KEY, "")
        return OpenAICompatibleBackend(
            OpenAIConfig(
                base_url=base_url,
                model=model,
                api_key=SecretStr(key) if key else None,
                timeout_s=timeout,
            )
        )
    if local:
        return TransformersBackend(local)
    return None
