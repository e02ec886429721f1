"""Backends against real model servers and a real local model; configuration from the env."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import free_port
from pydantic import SecretStr

from kernelgen_lm.backends import (
    Backend,
    BackendConfigError,
    BackendError,
    BackendUnreachable,
    ChatMessage,
    OpenAICompatibleBackend,
    OpenAIConfig,
    TransformersBackend,
    configured_backend,
)

CHAT = [ChatMessage(role="user", content="Write an AscendC kernel.")]


def _server(url: str, model: Path | str, **kw: object) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(OpenAIConfig(base_url=url, model=str(model), **kw))  # type: ignore[arg-type]


def test_chat_and_plain_completion_through_transformers_serve(
    transformers_server: str, random_model: Path
) -> None:
    backend = _server(transformers_server, random_model)
    assert isinstance(backend, Backend)
    chat = backend.generate(CHAT, max_tokens=12)
    plain = backend.generate("#include", max_tokens=12)
    assert len(chat) == 1 and len(plain) == 1
    assert chat[0].finish_reason == "length" and chat[0].text
    assert plain[0].finish_reason == "length" and plain[0].text


def test_k_samples_come_back_even_when_the_server_ignores_n(
    transformers_server: str, random_model: Path
) -> None:
    got = _server(transformers_server, random_model).generate(
        CHAT, n=3, max_tokens=8, temperature=1.0
    )
    assert len(got) == 3


def test_streaming_yields_the_same_text_as_a_greedy_call(
    transformers_server: str, random_model: Path
) -> None:
    backend = _server(transformers_server, random_model)
    pieces = list(backend.stream(CHAT, max_tokens=16))
    assert len(pieces) > 1
    assert "".join(pieces) == backend.generate(CHAT, max_tokens=16)[0].text


def test_unknown_model_is_a_clear_error_naming_it(transformers_server: str) -> None:
    backend = _server(transformers_server, "/no/such/model-dir", retries=0)
    with pytest.raises(BackendError, match="model-dir"):
        backend.generate(CHAT, max_tokens=4)


def test_unreachable_server_is_retried_then_reported_without_the_api_key() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    backend = _server(url, "m", retries=2, backoff_s=0.01, api_key=SecretStr("sk-very-secret"))
    with pytest.raises(
        BackendUnreachable, match=r"cannot reach the model server .* after 3 tries"
    ) as err:
        backend.generate(CHAT)
    assert "sk-very-secret" not in str(err.value)
    assert "sk-very-secret" not in repr(backend) and "sk-very-secret" not in backend.name


def test_transformers_backend_runs_a_local_model(random_model: Path) -> None:
    backend = TransformersBackend(random_model, seed=0)
    greedy = backend.generate(CHAT, n=2, max_tokens=10)
    assert len(greedy) == 2 and greedy[0].text == greedy[1].text
    assert "".join(backend.stream(CHAT, max_tokens=10)) == greedy[0].text
    sampled = backend.generate("int", n=2, max_tokens=10, temperature=1.0)
    assert len(sampled) == 2


def test_configured_backend_reads_the_environment(random_model: Path) -> None:
    assert configured_backend({}) is None
    server = configured_backend(
        {
            "KERNELGEN_LLM_BASE_URL": "http://gpu-box:8000/v1",
            "KERNELGEN_LLM_MODEL": "qwen",
            "KERNELGEN_LLM_API_KEY": "k",
        }
    )
    assert isinstance(server, OpenAICompatibleBackend)
    assert server.name == "openai:qwen@http://gpu-box:8000"
    local = configured_backend({"KERNELGEN_LLM_LOCAL_MODEL": str(random_model)})
    assert isinstance(local, TransformersBackend)


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"KERNELGEN_LLM_BASE_URL": "http://h:8000"}, "KERNELGEN_LLM_MODEL is not"),
        ({"KERNELGEN_LLM_BASE_URL": "h:8000", "KERNELGEN_LLM_MODEL": "m"}, "must start with http"),
        (
            {
                "KERNELGEN_LLM_BASE_URL": "http://h",
                "KERNELGEN_LLM_MODEL": "m",
                "KERNELGEN_LLM_TIMEOUT": "x",
            },
            "not a number",
        ),
        ({"KERNELGEN_LLM_LOCAL_MODEL": "/no/such/dir"}, "not a model directory"),
    ],
)
def test_half_configured_environment_is_a_clear_error(env: dict[str, str], message: str) -> None:
    with pytest.raises(BackendConfigError, match=message):
        configured_backend(env)
