"""`workspace/executeCommand`: each command takes one JSON object as its only argument."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcInvalidParams

from ascend_tools.config import write_reference
from server.lsp.convert import path_of, uri_of
from server.lsp.jobs import JobError, run_worker

VALIDATE = "kernelgen.validate"
GENERATE = "kernelgen.generateKernel"
SET_REFERENCE = "kernelgen.setReference"
ACCEPT = "kernelgen.acceptCompletion"
STATUS = "kernelgen.status"


def argument(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
    args = params.arguments or [{}]
    if len(args) != 1 or not isinstance(args[0], dict):
        raise JsonRpcInvalidParams(f"{params.command} takes one JSON object as its argument")
    return args[0]


def file_arg(arg: dict[str, Any], key: str = "uri") -> str:
    uri = arg.get(key)
    path = path_of(uri) if isinstance(uri, str) else None
    if path is None:
        raise JsonRpcInvalidParams(f"`{key}` must be a file:// URI, got {uri!r}")
    return path


def register(ls: Any) -> None:
    @ls.command(VALIDATE)
    async def validate(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
        path = file_arg(argument(params))
        if not Path(path).exists():
            raise JsonRpcInvalidParams(f"no such file: {path}")
        state = await ls.kg.run(ls.kg.project_of, path)
        try:
            return await ls.schedule_validation(state)
        except JobError as exc:
            raise JsonRpcInvalidParams(f"validation could not run: {exc}") from None

    @ls.command(SET_REFERENCE)
    async def set_ref(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
        arg = argument(params)
        path = file_arg(arg)
        ref = arg.get("reference")
        if not isinstance(ref, str) or not ref:
            raise JsonRpcInvalidParams("`reference` must be a path or a file:// URI")
        ref_path = Path(path_of(ref) or ref) if ref.startswith("file:") else Path(ref)
        state = await ls.kg.run(ls.kg.project_of, path)
        if not ref_path.is_absolute():
            ref_path = state.root / ref_path
        if not ref_path.is_file():
            raise JsonRpcInvalidParams(f"no such reference file: {ref_path}")
        try:
            written = write_reference(state.root, ref_path)
        except (OSError, ValueError) as exc:
            raise JsonRpcInvalidParams(f"cannot write kernelgen.toml: {exc}") from None
        return {"config": str(written), "reference": str(state.reference)}

    @ls.command(STATUS)
    async def status(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
        return await ls.status()

    @ls.command(GENERATE)
    async def generate(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
        arg = argument(params)
        stub = Path(file_arg(arg))
        if not stub.is_file():
            raise JsonRpcInvalidParams(f"no such stub file: {stub}")
        backend = arg.get("backend", "auto")
        if backend not in ("auto", "rules", "llm"):
            raise JsonRpcInvalidParams("`backend` must be auto, rules or llm")
        chip = arg.get("chip") or ls.settings.chip
        out = arg.get("outDir")
        out_dir = Path(path_of(out) or out) if isinstance(out, str) and out else (
            stub.parent / f"{stub.stem}_kernel")
        token = params.work_done_token
        progress = ls.work_done_progress
        if token is not None:
            progress.begin(token, lsp.WorkDoneProgressBegin(
                title="Generate kernel", message=stub.name, cancellable=True))
        job = asyncio.ensure_future(run_worker(
            ["generate", str(stub), "--out", str(out_dir), "--backend", backend, "--chip", chip],
            env=ls.settings.llm_env(),
            on_progress=(lambda m: progress.report(token, lsp.WorkDoneProgressReport(message=m)))
            if token is not None else None))
        if token is not None:
            cancel = progress.tokens.get(token)
            if cancel is not None:
                cancel.add_done_callback(lambda f: job.cancel() if f.cancelled() else None)
        try:
            result = await job
        except asyncio.CancelledError:
            if token is not None:
                progress.end(token, lsp.WorkDoneProgressEnd(message="cancelled"))
            raise
        except JobError as exc:
            if token is not None:
                progress.end(token, lsp.WorkDoneProgressEnd(message=f"failed: {exc}"))
            raise JsonRpcInvalidParams(f"generation could not run: {exc}") from None
        if token is not None:
            progress.end(token, lsp.WorkDoneProgressEnd(
                message="validated" if result.get("ok") else (result.get("error") or "failed")))
        ls.record_samples(result.pop("llm_run", None), stub, chip)
        kernel = result.pop("kernel_file", None)
        if kernel:
            ls.record_generated(result, kernel)
            ls.spawn(_show(ls, kernel))
        return result

    @ls.command(ACCEPT)
    async def accept(params: lsp.ExecuteCommandParams) -> dict[str, Any]:
        arg = argument(params)
        ident = arg.get("id")
        if not isinstance(ident, str):
            raise JsonRpcInvalidParams("`id` must be the string the inline completion carried")
        return await ls.accept_completion(ident)


async def _show(ls: Any, file: str) -> None:
    try:
        await ls.window_show_document_async(lsp.ShowDocumentParams(
            uri=uri_of(file), take_focus=True))
    except Exception as exc:  # a client without showDocument still gets the result
        ls.log(f"could not open {file}: {exc}", lsp.MessageType.Warning)


def new_id() -> str:
    return uuid.uuid4().hex
