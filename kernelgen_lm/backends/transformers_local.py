"""Backend that runs a local Hugging Face model directory in-process (CPU is fine).

For machines without a model server: the same model files vLLM would serve, loaded with
transformers. torch and transformers are imported on first use so that importing the backends
package stays cheap.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kernelgen_lm.backends.base import (
    BackendConfigError,
    BackendError,
    ChatMessage,
    Completion,
    Prompt,
    cut_at_stop,
)


class TransformersBackend:
    """k completions or a token stream from a local model directory."""

    def __init__(self, model_dir: Path | str, *, device: str = "cpu", seed: int | None = None):
        path = Path(model_dir).expanduser()
        # A peft adapter directory loads too (transformers applies it to its base model).
        if not ((path / "config.json").is_file() or (path / "adapter_config.json").is_file()):
            raise BackendConfigError(
                f"local model {str(path)!r} is not a model directory (no config.json or "
                "adapter_config.json); point KERNELGEN_LLM_LOCAL_MODEL at a directory written "
                "by save_pretrained"
            )
        self.model_dir = path
        self.device = device
        self.seed = seed
        self._loaded: tuple[Any, Any] | None = None
        self.loaded_from: Path | None = None  # the resolved directory the model came from
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return f"transformers:{self.model_dir.name}"

    def __repr__(self) -> str:
        return f"TransformersBackend({self.model_dir})"

    def _load(self) -> tuple[Any, Any]:
        """The model, loaded again when `model_dir` (a link such as a model registry's
        `current/model`) now resolves elsewhere: a promotion or rollback takes effect at the
        next request, without a restart."""
        with self._lock:
            target = self.model_dir.resolve()
            if self._loaded is None or target != self.loaded_from:
                from transformers import AutoModelForCausalLM, AutoTokenizer

                try:
                    tokenizer = AutoTokenizer.from_pretrained(target)
                    model = AutoModelForCausalLM.from_pretrained(target).to(self.device)
                except (OSError, ValueError) as exc:
                    raise BackendConfigError(
                        f"cannot load local model {str(self.model_dir)!r}: {exc}"
                    ) from exc
                model.eval()
                self._loaded = (tokenizer, model)
                self.loaded_from = target
            return self._loaded

    def _input_ids(self, tokenizer: Any, prompt: Prompt) -> Any:
        if isinstance(prompt, str):
            return tokenizer(prompt, return_tensors="pt").input_ids
        messages = [ChatMessage.model_validate(m).model_dump() for m in prompt]
        if tokenizer.chat_template:
            ids = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
            )
            return ids["input_ids"]
        text = "".join(f"{m['role']}: {m['content']}\n" for m in messages) + "assistant: "
        return tokenizer(text, return_tensors="pt").input_ids

    def _gen_kwargs(self, tokenizer: Any, max_tokens: int, temperature: float) -> dict[str, Any]:
        pad = tokenizer.pad_token_id
        kwargs: dict[str, Any] = {
            "max_new_tokens": max_tokens,
            "pad_token_id": tokenizer.eos_token_id if pad is None else pad,
        }
        if temperature > 0:
            kwargs.update(do_sample=True, temperature=temperature, top_k=0, top_p=1.0)
        else:
            kwargs.update(do_sample=False)
        return kwargs

    def generate(
        self,
        prompt: Prompt,
        *,
        n: int = 1,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> list[Completion]:
        import torch

        tokenizer, model = self._load()
        ids = self._input_ids(tokenizer, prompt).to(self.device)
        if self.seed is not None:
            torch.manual_seed(self.seed)
        kwargs = self._gen_kwargs(tokenizer, max_tokens, temperature)
        reps = n if temperature > 0 else 1  # greedy decoding gives n identical answers
        with torch.no_grad():
            out = model.generate(ids, num_return_sequences=reps, **kwargs)
        results: list[Completion] = []
        for row in out:
            new = row[ids.shape[1] :]
            text = tokenizer.decode(new, skip_special_tokens=True)
            text, stopped = cut_at_stop(text, stop)
            hit_eos = tokenizer.eos_token_id is not None and tokenizer.eos_token_id in new.tolist()
            reason = "stop" if stopped or hit_eos or len(new) < max_tokens else "length"
            results.append(Completion(text=text, finish_reason=reason))
        return (results * n)[:n] if reps == 1 else results

    def stream(
        self,
        prompt: Prompt,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.0,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """Text pieces from a TextIteratorStreamer fed by generation in a worker thread."""
        import torch
        from transformers import TextIteratorStreamer

        tokenizer, model = self._load()
        ids = self._input_ids(tokenizer, prompt).to(self.device)
        streamer = TextIteratorStreamer(tokenizer, skip_prompt=True, skip_special_tokens=True)
        kwargs = self._gen_kwargs(tokenizer, max_tokens, temperature)

        failure: list[BaseException] = []

        def work() -> None:
            try:
                with torch.no_grad():
                    model.generate(ids, streamer=streamer, **kwargs)
            except BaseException as exc:  # surfaced in the caller's thread below
                failure.append(exc)
                streamer.end()

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        seen = ""
        for piece in streamer:
            text, stopped = cut_at_stop(seen + piece, stop)
            if len(text) > len(seen):
                yield text[len(seen) :]
            seen = text
            if stopped:
                for _ in streamer:  # drain so the worker can finish
                    pass
                break
        worker.join()
        if failure:
            raise BackendError(f"local model {self.model_dir.name} failed: {failure[0]!r}")
