"""The generate-validate-repair loop end to end, against a real `transformers serve` process."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ADD_REF, BROKEN, CHIP, free_port

from kernelgen_lm.backends import OpenAICompatibleBackend, OpenAIConfig
from kernelgen_lm.llm import LlmGeneration, run_llm_generation
from kernelgen_lm.llm.examples import load_examples


def _backend(url: str, model: Path | str, retries: int = 1) -> OpenAICompatibleBackend:
    return OpenAICompatibleBackend(
        OpenAIConfig(base_url=url, model=str(model), retries=retries, backoff_s=0.01)
    )


def _prompt(result: LlmGeneration, round_no: int, sample: int) -> list[dict[str, str]]:
    assert result.work_dir is not None
    path = result.work_dir / f"round{round_no}" / f"sample{sample}" / "prompt.json"
    return json.loads(path.read_text())


def check_scripted_repair(result: LlmGeneration, out: Path) -> None:
    """Round 0 fails to compile, its compiler feedback reaches round 1, round 1 validates."""
    stages = [a.stage for a in result.attempts]
    assert stages == ["compile", "done"], [a.model_dump() for a in result.attempts]
    assert "Addd" in result.attempts[0].message
    repair = _prompt(result, 1, 0)
    assert repair[-2] == {"role": "assistant", "content": BROKEN.strip()}
    assert result.work_dir is not None
    first_answer = (result.work_dir / "round0" / "sample0" / "answer.txt").read_text()
    assert first_answer.strip() == BROKEN.strip()
    assert "Compilation failed:" in repair[-1]["content"]
    assert "Addd" in repair[-1]["content"]
    assert result.ok and result.validation is not None and result.validation.ok
    assert result.project == out
    assert "Add(c, a, b, BLOCK);" in (out / "add_custom.cpp").read_text()
    stored = [e for e in load_examples() if e.origin == "validated"]
    assert len(stored) == 1 and "add_custom.cpp" in stored[0].files


def test_scripted_model_repairs_a_compile_error_through_the_server(
    transformers_server: str, scripted_model: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    messages: list[str] = []
    result = run_llm_generation(
        ADD_REF,
        out,
        backend=_backend(transformers_server, scripted_model),
        chip=CHIP,
        samples=1,
        max_repairs=2,
        progress=messages.append,
    )
    check_scripted_repair(result, out)
    assert any("round 0: compile" in m for m in messages)
    assert messages[-1].startswith("kept a validated LLM sample")


def test_malformed_model_output_is_a_parse_failure_fed_back(
    transformers_server: str, random_model: Path, tmp_path: Path
) -> None:
    result = run_llm_generation(
        ADD_REF,
        tmp_path / "out",
        backend=_backend(transformers_server, random_model),
        chip=CHIP,
        samples=2,
        max_repairs=1,
        max_tokens=48,
    )
    assert not result.ok and result.project is None and result.validation is None
    assert [a.stage for a in result.attempts] == ["parse"] * 4
    assert all("no <file" in a.message for a in result.attempts)
    assert result.error is not None and "no LLM sample validated after 1 repair" in result.error
    repair = _prompt(result, 1, 1)
    assert "Your answer could not be used" in repair[-1]["content"]
    assert not (tmp_path / "out").exists()


def test_unreachable_server_is_reported_as_an_llm_stage_failure(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    said: list[str] = []
    result = run_llm_generation(
        ADD_REF,
        tmp_path / "out",
        backend=_backend(url, "any"),
        chip=CHIP,
        samples=2,
        max_repairs=1,
        progress=said.append,
    )
    assert not result.ok
    assert [a.stage for a in result.attempts] == ["llm"]
    assert result.error is not None and "cannot reach the model server at" in result.error
    assert said[-1] == result.error


def test_bad_reference_is_reported_not_raised(tmp_path: Path) -> None:
    ref = tmp_path / "broken_ref.py"
    ref.write_text("import torch\nclass NotAModel: pass\n")
    result = run_llm_generation(
        ref,
        tmp_path / "out",
        backend=_backend("http://127.0.0.1:9", "m"),
        chip=CHIP,
        samples=1,
        max_repairs=0,
    )
    assert not result.ok and result.attempts[0].stage == "capture"
    assert "Model" in (result.error or "")
