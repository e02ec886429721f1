"""Promotion reaching a running vLLM server, and which registry version a server serves.

A promoted adapter version is loaded into a vLLM server that serves its base, through vLLM's
dynamic LoRA endpoints (`POST /v1/load_lora_adapter`, in place under the clients' model name;
the server must run with `--enable-lora` and `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`). vLLM
cannot swap a base model's weights while running, so a merged version (or an adapter the
server cannot load) needs a restart: the update then says so, with the exact command.

Adapters and models are always named by their versioned, resolved path (never through
`current`), so the `root` that `GET /v1/models` reports tells which version really serves.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import Literal

import httpx
from pydantic import BaseModel

from kernelgen_lm.backends.openai_compat import api_root
from kernelgen_lm.train.registry import Registry, ServedVersion, served_version

DEFAULT_NAME = "kernelgen"  # the model name clients request (KERNELGEN_LLM_MODEL)
# vLLM's default --max-lora-rank; an adapter of a higher rank needs the flag.
VLLM_DEFAULT_MAX_LORA_RANK = 16


class ServerUpdate(BaseModel):
    server: str
    version: str
    action: Literal["loaded", "already-serving", "restart-needed", "unreachable"]
    model: str  # the name clients request
    message: str
    command: str | None = None  # the restart command, when one is needed


def _same_path(a: str | None, b: str | Path | None) -> bool:
    if not a or not b:
        return False
    try:
        return Path(a).expanduser().resolve() == Path(b).expanduser().resolve()
    except (OSError, RuntimeError):
        return False


def _detail(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return r.text.strip()[:300]
    if isinstance(body, dict):
        err = body.get("error", body.get("detail", body))
        if isinstance(err, dict):
            err = err.get("message", err)
        return str(err)[:300]
    return str(body)[:300]


def _lora_rank(adapter: Path) -> int | None:
    try:
        return int(json.loads((adapter / "adapter_config.json").read_text())["r"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def restart_command(registry: Registry, version: str, name: str = DEFAULT_NAME) -> str:
    """The `vllm serve` command that serves the version as `name`: an adapter on its base
    with runtime LoRA updates on (so the next adapter promotion loads without a restart), a
    merged version's full weights otherwise."""
    meta = registry.meta(version)
    vdir = (registry.versions_dir / version).resolve()
    if meta.kind == "adapter" and meta.base_path:
        adapter = vdir / meta.serve_path
        rank = _lora_rank(adapter)
        args = [
            "vllm",
            "serve",
            meta.base_path,
            "--enable-lora",
            "--lora-modules",
            f"{name}={adapter}",
        ]
        if rank is not None and rank > VLLM_DEFAULT_MAX_LORA_RANK:
            args += ["--max-lora-rank", str(rank)]
        return "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True " + shlex.join(args)
    full = registry.full_dir(version) or registry.serve_dir(version)
    return shlex.join(["vllm", "serve", str(full.resolve()), "--served-model-name", name])


def _models(client: httpx.Client, root: str) -> list[dict]:
    r = client.get(root + "/models")
    r.raise_for_status()
    data = r.json().get("data", [])
    return [m for m in data if isinstance(m, dict)]


def point_vllm(
    base_url: str,
    registry: Registry,
    version: str,
    name: str = DEFAULT_NAME,
    api_key: str | None = None,
    timeout_s: float = 120.0,
) -> ServerUpdate:
    """Makes the vLLM server at `base_url` serve `version` as `name` where it can (an adapter
    over the base it serves), else says a restart is needed and with which command."""
    root = api_root(base_url)
    meta = registry.meta(version)
    vdir = registry.versions_dir / version
    command = restart_command(registry, version, name)

    def restart(why: str) -> ServerUpdate:
        return ServerUpdate(
            server=base_url,
            version=version,
            action="restart-needed",
            model=name,
            message=f"{why}; restart it with the command given",
            command=command,
        )

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(timeout=timeout_s, headers=headers) as client:
        try:
            models = _models(client, root)
        except (httpx.HTTPError, ValueError) as exc:
            return ServerUpdate(
                server=base_url,
                version=version,
                action="unreachable",
                model=name,
                command=command,
                message=f"{root}/models did not answer ({exc}); start the "
                "server with the command given",
            )
        mine = [m for m in models if m.get("id") == name]
        if mine and (
            _same_path(mine[0].get("root"), vdir / meta.serve_path)
            or _same_path(mine[0].get("root"), registry.full_dir(version))
        ):
            return ServerUpdate(
                server=base_url,
                version=version,
                action="already-serving",
                model=name,
                message=f"{name} already serves {version}",
            )
        if meta.kind != "adapter":
            return restart(
                f"{version} is a merged model and vLLM cannot swap the weights of a running model"
            )
        bases = [m for m in models if not m.get("parent")]
        if not any(
            _same_path(m.get("root"), meta.base_path) or m.get("root") == meta.base for m in bases
        ):
            served = ", ".join(str(m.get("root")) for m in bases) or "nothing"
            return restart(
                f"the server serves {served}, not the base of {version} ({meta.base_path})"
            )
        adapter = str((vdir / meta.serve_path).resolve())
        # `load_inplace` swaps the adapter behind the name at once (vLLM 0.32 has it); an older
        # server refuses a taken name, and then the name is unloaded first (a short gap).
        load = {"lora_name": name, "lora_path": adapter, "load_inplace": True}
        try:
            r = client.post(f"{root}/load_lora_adapter", json=load)
            if r.status_code == 400 and mine and "already" in _detail(r):
                r = client.post(f"{root}/unload_lora_adapter", json={"lora_name": name})
                if r.status_code == 200:
                    r = client.post(f"{root}/load_lora_adapter", json=load)
        except httpx.HTTPError as exc:
            return restart(f"loading the adapter failed ({type(exc).__name__}: {exc})")
        if r.status_code == 404 and _detail(r) == "Not Found":  # the route is not there
            return restart(
                "the server does not load adapters at run time (no "
                f"{r.request.url.path}: it needs --enable-lora and "
                "VLLM_ALLOW_RUNTIME_LORA_UPDATING=True)"
            )
        if r.status_code != 200:
            return restart(
                f"the server refused {r.request.url.path} (HTTP {r.status_code}: {_detail(r)})"
            )
        return ServerUpdate(
            server=base_url,
            version=version,
            action="loaded",
            model=name,
            message=f"{name} now serves {version} (adapter {adapter})",
        )


async def server_version(
    base_url: str, name: str, api_key: str | None = None, timeout_s: float = 2.0
) -> ServedVersion | None:
    """The registry version a model server serves under `name`, from the `root` its
    `GET /v1/models` reports (vLLM: the model or adapter path); None when the server does not
    answer, does not serve `name`, or serves it from outside a registry."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        async with httpx.AsyncClient(timeout=timeout_s, headers=headers) as client:
            r = await client.get(api_root(base_url) + "/models")
        r.raise_for_status()
        data = r.json().get("data", [])
    except (httpx.HTTPError, ValueError, OSError, AttributeError):
        return None
    for m in data:
        if isinstance(m, dict) and m.get("id") == name and isinstance(m.get("root"), str):
            return served_version(m["root"])
    return None
