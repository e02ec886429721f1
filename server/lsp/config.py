"""Server settings: `initializationOptions`, then `workspace/configuration` (section
`kernelgen`) and `workspace/didChangeConfiguration` override; the CLI's `KERNELGEN_LLM_*`
environment variables are the fallback for the LLM backend."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from ascend_tools.chips import DEFAULT_CHIP, UnknownChipError, get_chip

SECTION = "kernelgen"


class CompletionSettings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    backend: Literal["embedded", "llm", "off"] = "embedded"


class LlmSettings(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    base_url: str = Field("", alias="baseUrl")
    model: str = ""
    api_key: SecretStr | None = Field(None, alias="apiKey")


class Settings(BaseModel):
    """What the editor can set; camelCase on the wire, as editors write settings."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    chip: str = DEFAULT_CHIP
    validate_on_save: bool = Field(True, alias="validateOnSave")
    lint_debounce_ms: int = Field(100, alias="lintDebounceMs", ge=0, le=10_000)
    completion: CompletionSettings = CompletionSettings()
    llm: LlmSettings = LlmSettings()
    record_accepted_edits: bool = Field(True, alias="recordAcceptedEdits")

    @field_validator("chip")
    @classmethod
    def _known_chip(cls, value: str) -> str:
        try:
            return get_chip(value).name
        except UnknownChipError as exc:
            raise ValueError(str(exc)) from None

    def llm_env(self) -> dict[str, str]:
        """The `KERNELGEN_LLM_*` variables a worker process (generation) should see: the
        editor's settings where given, else what the server's own environment says."""
        env = {k: v for k, v in os.environ.items() if k.startswith("KERNELGEN_LLM_")}
        if self.llm.base_url:
            env["KERNELGEN_LLM_BASE_URL"] = self.llm.base_url
        if self.llm.model:
            env["KERNELGEN_LLM_MODEL"] = self.llm.model
        if self.llm.api_key is not None:
            env["KERNELGEN_LLM_API_KEY"] = self.llm.api_key.get_secret_value()
        return env

    def public(self) -> dict[str, Any]:
        """The settings as the status command shows them (the API key never appears)."""
        data = self.model_dump(by_alias=True, mode="json")
        data["llm"].pop("apiKey", None)
        return data


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = _merge(dict(out[key]), value)
        else:
            out[key] = value
    return out


def env_defaults(env: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Settings the environment implies: an LLM backend when `KERNELGEN_LLM_BASE_URL` is set."""
    env = os.environ if env is None else env
    llm: dict[str, Any] = {}
    if env.get("KERNELGEN_LLM_BASE_URL"):
        llm["baseUrl"] = env["KERNELGEN_LLM_BASE_URL"]
    if env.get("KERNELGEN_LLM_MODEL"):
        llm["model"] = env["KERNELGEN_LLM_MODEL"]
    if env.get("KERNELGEN_LLM_API_KEY"):
        llm["apiKey"] = env["KERNELGEN_LLM_API_KEY"]
    return {"llm": llm} if llm else {}


def resolve(*layers: Any, env: Mapping[str, str] | None = None) -> tuple[Settings, list[str]]:
    """Settings from the environment fallback and the editor's layers (later layers win).

    A layer that is not an object, or a value of the wrong type, is skipped with a message
    instead of failing: a typo in an editor's settings must not take the server down."""
    problems: list[str] = []
    data = env_defaults(env)
    for layer in layers:
        if layer is None:
            continue
        if not isinstance(layer, Mapping):
            problems.append(f"ignored settings that are not an object: {type(layer).__name__}")
            continue
        section = layer.get(SECTION, layer) if SECTION in layer else layer
        if not isinstance(section, Mapping):
            problems.append("ignored a `kernelgen` settings section that is not an object")
            continue
        layer_values = dict(section)
        candidate = _merge(data, layer_values)
        for _ in range(8):  # each round drops the values the last validation rejected
            try:
                Settings.model_validate(candidate)
                break
            except ValidationError as exc:
                for err in exc.errors():
                    where = ".".join(str(p) for p in err["loc"])
                    problems.append(f"ignored setting {where}: {err['msg']}")
                    layer_values = _drop(layer_values, err["loc"])
                candidate = _merge(data, layer_values)
        data = candidate
    try:
        return Settings.model_validate(data), problems
    except ValidationError as exc:  # a value dropping could not repair
        problems.append(f"settings reset to defaults: {exc.errors()[0]['msg']}")
        return Settings(), problems


def _drop(data: dict[str, Any], loc: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(data)
    if not loc:
        return out
    head = loc[0]
    if len(loc) == 1 or not isinstance(out.get(head), Mapping):
        out.pop(head, None)
    else:
        out[head] = _drop(dict(out[head]), loc[1:])
    return out
