"""The language server: a thin shell from LSP to `ascend_tools` (analysis) and `kernelgen_lm`
(completion, generation). Handlers convert, schedule and publish; they never analyse."""

from __future__ import annotations

import asyncio
import json
import logging
import os
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from server.lsp import config as settings_mod
from server.lsp.convert import (
    line_range,
    mentioned_locations,
    overlaps,
    path_of,
    to_diagnostic,
    uri_of,
    workspace_edit,
)
from server.lsp.jobs import JobError, run_worker
from server.lsp.protocol import KernelgenProtocol
from server.lsp.workspace import ProjectState, Workspace, is_source, set_text, unlintable

logger = logging.getLogger(__name__)
VERSION = "0.1.0"
STATUS = "kernelgen/status"
LINT = "kernelgen-lint"
NOTICE = "kernelgen"


class KernelgenServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("kernelgen", VERSION, protocol_cls=KernelgenProtocol,
                         text_document_sync_kind=lsp.TextDocumentSyncKind.Incremental)
        self.settings, _ = settings_mod.resolve()
        self._init_options: Any = None
        self.session_initialized = False
        """`initialized` arrived: requests to the client are allowed from now on."""
        self._client_settings: Any = None
        self.kg = Workspace(self.settings.chip)
        self.validations = 0
        self.pending: dict[str, dict[str, Any]] = {}
        """Inline completions offered, by the id their accept command carries (bounded)."""
        self._store: Any = None
        self.background: set[asyncio.Future[Any]] = set()
        self.watcher: Any = None
        self.llm_timeout_s = float(os.environ.get("KERNELGEN_LSP_LLM_TIMEOUT", "3"))
        """Seconds an inline completion waits for the model before the embedded fallback."""
        self.completion_note = ""
        """Why the configured completion backend is not in use right now ("" when it is)."""

    # ------------------------------------------------------------------ errors
    def report_server_error(self, error: Exception, source: Any) -> None:
        """Out-of-band failures become a log message; a body that is not JSON also gets the
        ParseError response JSON-RPC asks for."""
        if isinstance(error, json.JSONDecodeError | UnicodeDecodeError):
            assert isinstance(self.protocol, KernelgenProtocol)
            self.protocol.answer_parse_error()
        self.log(f"{type(error).__name__}: {str(error)[:500]}", lsp.MessageType.Error)

    def log(self, message: str, kind: lsp.MessageType = lsp.MessageType.Info) -> None:
        try:
            self.window_log_message(lsp.LogMessageParams(type=kind, message=message))
        except Exception:  # no client connected (tests of pieces, shutdown)
            logger.info("%s", message)

    @property
    def encoding(self) -> str:
        try:
            return str(self.workspace.position_encoding or lsp.PositionEncodingKind.Utf16)
        except RuntimeError:
            return lsp.PositionEncodingKind.Utf16

    # ------------------------------------------------------------------ settings
    def apply_settings(self, *layers: Any) -> None:
        new, problems = settings_mod.resolve(*layers)
        for p in problems:
            self.log(f"kernelgen settings: {p}", lsp.MessageType.Warning)
        chip_changed = new.chip != self.settings.chip
        self.settings = new
        if chip_changed:
            self.kg.set_chip(new.chip)
            for state in list(self.kg.projects.values()):
                self.schedule_lint(state, delay=0)
            self.refresh_semantic_tokens()

    def refresh_semantic_tokens(self) -> None:
        """Asks the client to request semantic tokens again (the chip decides which APIs are
        marked unavailable), when it supports that and the session is initialized."""
        try:
            caps = self.client_capabilities.workspace
        except (AttributeError, RuntimeError):
            return
        tokens = caps.semantic_tokens if caps is not None else None
        if self.session_initialized and tokens is not None and tokens.refresh_support:
            self.spawn(self.workspace_semantic_tokens_refresh_async(None))

    async def fetch_client_settings(self) -> None:
        caps = self.client_capabilities.workspace
        if caps is None or not caps.configuration:
            return
        try:
            got = await asyncio.wait_for(self.workspace_configuration_async(
                lsp.ConfigurationParams(items=[lsp.ConfigurationItem(
                    section=settings_mod.SECTION)])), 5)
        except Exception as exc:
            self.log(f"workspace/configuration failed: {exc}", lsp.MessageType.Warning)
            return
        self._client_settings = got[0] if got else None
        self.apply_settings(self._init_options, self._client_settings)

    def spawn(self, coro: Any) -> asyncio.Future[Any]:
        """A background task kept referenced until done (its failure is logged, not lost)."""
        task = asyncio.ensure_future(coro)
        self.background.add(task)
        task.add_done_callback(self.background.discard)
        task.add_done_callback(_quiet)
        return task

    # ------------------------------------------------------------------ status, edit store
    def workspace_root(self) -> Path | None:
        try:
            root = self.workspace.root_path
        except RuntimeError:
            return None
        return Path(root) if root else None

    def store(self) -> Any:
        """The accepted-edit store of the workspace (opened on first use), or None when
        recording is off or there is no workspace folder."""
        root = self.workspace_root()
        if not self.settings.record_accepted_edits or root is None:
            return None
        if self._store is None or self._store.path.parent.parent != root:
            from kernelgen_lm.train.store import EditStore

            self._store = EditStore.in_workspace(root)
        return self._store

    def store_path(self) -> str | None:
        from kernelgen_lm.train.store import STORE_PATH

        root = self.workspace_root()
        if not self.settings.record_accepted_edits or root is None:
            return None
        return str(root / STORE_PATH)

    async def status(self) -> dict[str, Any]:
        from server.lsp.inline import backend_reachable

        backend = self.settings.completion.backend
        reachable: bool | None = None
        if backend == "llm":
            reachable = await backend_reachable(self.settings)
        return {
            "version": VERSION,
            "chip": self.settings.chip,
            "completion": {"backend": backend, "reachable": reachable,
                           "note": self.completion_note},
            "editStore": self.store_path(),
            "model": await self.served_model(),
            "settings": self.settings.public(),
            "projects": [str(p.root) for p in self.kg.projects.values()],
        }

    async def served_model(self) -> dict[str, Any]:
        """The LLM the settings name and, when it comes from a model registry, which version:
        a local path into a registry, or what a configured server reports as the `root` of
        the model it serves under that name (vLLM: the model or adapter path that
        `kernelgen model promote --vllm-url` loaded)."""
        from kernelgen_lm.train.registry import served_version
        from kernelgen_lm.train.serving import server_version

        env = self.settings.llm_env()
        name = env.get("KERNELGEN_LLM_MODEL") or env.get("KERNELGEN_LLM_LOCAL_MODEL") or ""
        version = served_version(name)
        source = "path" if version is not None else None
        url = env.get("KERNELGEN_LLM_BASE_URL")
        if version is None and url and env.get("KERNELGEN_LLM_MODEL"):
            version = await server_version(url, env["KERNELGEN_LLM_MODEL"],
                                           env.get("KERNELGEN_LLM_API_KEY"))
            source = "server" if version is not None else None
        return {"name": name or None, "source": source,
                "registryVersion": version.model_dump() if version is not None else None}

    def record_generated(self, result: dict[str, Any], kernel: str) -> None:
        try:
            store = self.store()
            if store is None or not result.get("ok"):
                return
            text = Path(kernel).read_text(encoding="utf-8", errors="replace")
            store.add("generated", kernel, text, source=str(result.get("backend_used") or ""),
                      validation=result.get("validation"), meta={"op": result.get("op")})
        except Exception as exc:
            self.log(f"edit store: {exc}", lsp.MessageType.Warning)

    def record_samples(self, run_dir: str | None, stub: Path, chip: str) -> None:
        """Every LLM sample of a generation, validated or not, as `sample` rows: the failed
        ones are the rejected side of the trainer's preference pairs."""
        if not run_dir:
            return
        try:
            store = self.store()
            if store is None:
                return
            from kernelgen_lm.train.from_store import run_samples

            for row in run_samples(Path(run_dir), stub, chip):
                store.add("sample", row.file, row.suggestion, source="llm",
                          validation=row.validation, meta=row.meta)
        except Exception as exc:
            self.log(f"edit store: {exc}", lsp.MessageType.Warning)

    async def accept_completion(self, ident: str) -> dict[str, Any]:
        from pygls.exceptions import JsonRpcInvalidParams

        item = self.pending.pop(ident, None)
        if item is None:
            raise JsonRpcInvalidParams(f"no inline completion with id {ident!r} is pending")
        store = self.store()
        if store is None:
            return {"recorded": False, "id": ident}
        row = await asyncio.get_running_loop().run_in_executor(None, lambda: store.add(
            "completion", item["file"], item["text"], prefix=item["prefix"],
            suffix=item["suffix"], source=item["source"]))
        return {"recorded": True, "id": ident, "row": row, "store": str(store.path)}

    # ------------------------------------------------------------------ documents
    def text_of(self, uri: str) -> tuple[str, int] | None:
        try:
            doc = self.workspace.get_text_document(uri)
            return doc.source, doc.version or 0
        except Exception:
            return None

    async def opened_or_changed(self, uri: str) -> None:
        path = path_of(uri)
        if path is None or not is_source(path):
            return
        state = await self.kg.run(self.kg.project_of, path)
        got = self.text_of(uri)
        if got is not None:
            state.open_files.setdefault(path, -1)
        # One analyzer per project: an op_host edit re-lints the project's open kernels too.
        self.schedule_lint(state)

    def schedule_lint(self, state: ProjectState, delay: float | None = None) -> None:
        """Debounced lint of a project: a newer change cancels the pending one."""
        if state.lint_task is not None and not state.lint_task.done():
            state.lint_task.cancel()
        wait = self.settings.lint_debounce_ms / 1000 if delay is None else delay
        state.lint_task = asyncio.ensure_future(self._lint_later(state, wait))

    async def _lint_later(self, state: ProjectState, delay: float) -> None:
        await asyncio.sleep(delay)
        texts: dict[str, tuple[str, int]] = {}
        for path in list(state.open_files):
            got = self.text_of(uri_of(path))
            if got is not None:
                texts[path] = got
        encoding = self.encoding
        try:
            result = await self.kg.run(self._lint_now, state, texts, encoding)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.exception("lint failed")
            self.log(f"kernelgen lint failed: {type(exc).__name__}: {exc}", lsp.MessageType.Error)
            return
        for path, (_, version) in texts.items():
            now = self.text_of(uri_of(path))
            if now is not None and now[1] != version:
                return  # a newer version arrived while linting: its own lint publishes
        state.lint, state.fixes, state.notices = result
        for path, (_, version) in texts.items():
            state.open_files[path] = version
        self.publish(state)

    def _lint_now(self, state: ProjectState, texts: dict[str, tuple[str, int]], encoding: str,
                  ) -> tuple[dict[str, list[lsp.Diagnostic]], list[Any],
                             dict[str, list[lsp.Diagnostic]]]:
        """On the analysis thread: new texts in, LSP diagnostics and quick fixes out."""
        notices: dict[str, list[lsp.Diagnostic]] = {}
        for path, (text, _) in texts.items():
            why = unlintable(text)
            if why is not None:
                state.analyzer.remove(path)
                notices[path] = [lsp.Diagnostic(
                    range=lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(0, 0)),
                    message=f"not analysed: {why}", severity=lsp.DiagnosticSeverity.Information,
                    source=NOTICE)]
                continue
            set_text(state.analyzer, path, text)
        an = state.analyzer
        if not an.documents:
            return {}, [], notices
        found = an.lint()
        state.core_diagnostics = found

        def line_text(file: str, line: int) -> str:
            doc = an.documents.get(file)
            if doc is None or line < 1 or line > len(doc.lines.starts):
                return ""
            return doc.lines.line_text(line)

        files = list(an.documents)
        by_file: dict[str, list[lsp.Diagnostic]] = {}
        fixes = []
        for d in found:
            related = mentioned_locations(d.message, files, line_text)
            related += _init_buffer_sites(state, d, line_text) if d.code.startswith("ub-") else []
            diag = to_diagnostic(d, line_text, encoding, related)
            by_file.setdefault(d.file, []).append(diag)
            if d.fix is not None:
                fixes.append((uri_of(d.file), diag, workspace_edit(d.fix, line_text, encoding),
                              d.fix.title))
        return by_file, fixes, notices

    def publish(self, state: ProjectState) -> None:
        files = (set(state.lint) | set(state.validation) | set(state.notices) | state.published
                 | set(state.open_files))
        now: set[str] = set()
        for path in files:
            diags = (state.notices.get(path, []) + state.lint.get(path, [])
                     + state.validation.get(path, []))
            self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
                uri=uri_of(path), diagnostics=diags))
            if diags:
                now.add(path)
        state.published = now

    # ------------------------------------------------------------------ validation
    def notify_status(self, state: str, project: ProjectState | None, message: str,
                      validation: dict[str, Any] | None = None) -> None:
        self.protocol.notify(STATUS, {
            "state": state, "project": str(project.root) if project else None,
            "message": message, "validation": validation})

    def schedule_validation(self, state: ProjectState) -> asyncio.Task[dict[str, Any]]:
        """One validation per project: a newer request cancels (kills) the running one."""
        previous = state.validate_task
        if previous is not None and not previous.done():
            previous.cancel()
        task = asyncio.ensure_future(self._validate(state, previous))
        state.validate_task = task
        return task

    async def _validate(self, state: ProjectState,
                        previous: asyncio.Task[Any] | None) -> dict[str, Any]:
        if previous is not None:
            await asyncio.gather(previous, return_exceptions=True)
        ref = state.reference
        target = state.root if state.is_project else Path(state.key)
        args = ["validate", str(target), "--chip", self.settings.chip]
        if ref is not None:
            args += ["--ref", str(ref)]
        self.notify_status("validating", state, f"validating {target.name} against "
                           f"{ref.name if ref else 'no reference (compile only)'}")
        self.validations += 1
        try:
            report = await run_worker(args)
        except asyncio.CancelledError:
            self.notify_status("cancelled", state, "validation cancelled by a newer request")
            raise
        except JobError as exc:
            state.validation = {}
            self.publish(state)
            self.notify_status("error", state, str(exc))
            raise
        state.last_validation = report
        state.validation = self._validation_diagnostics(state, report)
        self.publish(state)
        self.notify_status("passed" if report.get("ok") else "failed", state,
                           _summary(report), report)
        return report

    def _validation_diagnostics(self, state: ProjectState, report: dict[str, Any],
                                ) -> dict[str, list[lsp.Diagnostic]]:
        from ascend_tools.diagnostics import Diagnostic
        from ascend_tools.project import ProjectError, load_project

        root = state.root
        try:
            project = load_project(root if state.is_project else Path(state.key))
            kernel = str(project.abs(project.kernel_file))
            entry_line = project.entry.line
            root = project.root
        except ProjectError:
            kernel, entry_line = state.key, 1

        def file_of(name: str) -> str:
            p = Path(name)
            return str(p if p.is_absolute() else root / p)

        def line_text(file: str, line: int) -> str:
            doc = state.analyzer.documents.get(file)
            if doc is not None and 1 <= line <= len(doc.lines.starts):
                return doc.lines.line_text(line)
            try:
                lines = Path(file).read_text(errors="replace").splitlines()
            except OSError:
                return ""
            return lines[line - 1] if 0 < line <= len(lines) else ""

        out: dict[str, list[lsp.Diagnostic]] = {}
        for raw in report.get("compile", {}).get("diagnostics", []):
            d = Diagnostic(**raw)
            file = file_of(d.file)
            d = d.model_copy(update={"file": file, "source": "kernelgen-compile"})
            out.setdefault(file, []).append(to_diagnostic(d, line_text, self.encoding))
        for e in report.get("runtime_errors", []):
            file = file_of(e.get("file") or kernel)
            line = int(e.get("line") or entry_line)
            block = f" (block {e['block']})" if e.get("block", -1) >= 0 else ""
            out.setdefault(file, []).append(lsp.Diagnostic(
                range=line_range(line, line_text(file, line)), message=e["message"] + block,
                severity=lsp.DiagnosticSeverity.Error, code=e["code"],
                source="kernelgen-emulator"))
        for case in report.get("cases", []):
            if case.get("ok") or not case.get("message") or report.get("runtime_errors"):
                continue
            figures = ""
            if case.get("max_abs_err") is not None:
                figures = (f" (max abs err {case['max_abs_err']:.3g}, max rel err "
                           f"{case['max_rel_err']:.3g}, {case.get('mismatches', 0)} mismatches)")
            out.setdefault(kernel, []).append(lsp.Diagnostic(
                range=line_range(entry_line, line_text(kernel, entry_line)),
                message=f"case {case['name']}: {case['message']}{figures}",
                severity=lsp.DiagnosticSeverity.Error, code="mismatch",
                source="kernelgen-validate"))
        return out


def _summary(report: dict[str, Any]) -> str:
    if not report.get("compile", {}).get("ok"):
        return "compile failed"
    if not report.get("cases"):
        return "compiled (no reference: not run)"
    cases = report["cases"]
    passed = sum(1 for c in cases if c.get("ok"))
    text = f"{passed}/{len(cases)} cases passed"
    codes = sorted({e["code"] for e in report.get("runtime_errors", [])})
    return text + (f"; emulator stopped on {', '.join(codes)}" if codes else "")


def _init_buffer_sites(state: ProjectState, d: Any, line_text: Any,
                       ) -> list[lsp.DiagnosticRelatedInformation]:
    """The InitBuffer calls of the unit a UB diagnostic is about (where its bytes come from)."""
    model = state.analyzer.model
    if model is None:
        return []
    doc = model.documents.get(d.file)
    if doc is None:
        return []
    anchor = model.chunk_at(d.file, doc.lines.offset(d.line, d.column))
    unit = model.unit_of(anchor) if anchor else None
    out = []
    for call in model.calls_by_name.get("InitBuffer", []):
        if unit is not None and model.unit_of(call.chunk) != unit:
            continue
        cdoc = model.documents[call.chunk.file]
        line, _ = cdoc.lines.position(call.start)
        text = cdoc.data[call.start:call.end].decode("utf-8", errors="replace")
        out.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=uri_of(call.chunk.file),
                                  range=line_range(line, line_text(call.chunk.file, line))),
            message=f"{' '.join(text.split())[:120]}"))
    return out


def build_server() -> KernelgenServer:
    """The server with every feature registered."""
    ls = KernelgenServer()

    @ls.feature(lsp.INITIALIZE)
    def initialize(params: lsp.InitializeParams) -> None:
        ls._init_options = params.initialization_options
        ls.apply_settings(ls._init_options)

    @ls.feature(lsp.INITIALIZED)
    async def initialized(params: lsp.InitializedParams) -> None:
        ls.session_initialized = True
        ls.kg.warm_up()
        root = ls.workspace_root()
        if root is not None and root.is_dir():
            try:
                from server.lsp.watch import WorkspaceWatcher

                # Watching a big tree adds one inotify watch per folder: off the event loop.
                ls.watcher = await asyncio.to_thread(
                    WorkspaceWatcher, ls, root, asyncio.get_running_loop())
            except Exception as exc:  # inotify limits, a vanished folder: lint still works
                ls.log(f"not watching {root}: {exc}", lsp.MessageType.Warning)
        await ls.fetch_client_settings()

    @ls.feature(lsp.SHUTDOWN)
    def shutdown(*_: Any) -> None:
        if ls.watcher is not None:
            ls.watcher.stop()

    @ls.feature(lsp.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(params: lsp.DidChangeConfigurationParams) -> None:
        if params.settings:
            ls._client_settings = params.settings
            ls.apply_settings(ls._init_options, ls._client_settings)
        else:
            await ls.fetch_client_settings()

    @ls.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(params: lsp.DidOpenTextDocumentParams) -> None:
        await ls.opened_or_changed(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(params: lsp.DidChangeTextDocumentParams) -> None:
        await ls.opened_or_changed(params.text_document.uri)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    async def did_save(params: lsp.DidSaveTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is None or not is_source(path) or not ls.settings.validate_on_save:
            return
        state = await ls.kg.run(ls.kg.project_of, path)
        task = ls.schedule_validation(state)
        task.add_done_callback(_quiet)

    @ls.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(params: lsp.DidCloseTextDocumentParams) -> None:
        path = path_of(params.text_document.uri)
        if path is None:
            return
        state = await ls.kg.run(ls.kg.close, path)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=params.text_document.uri, diagnostics=[]))
        if state is not None:
            state.lint.pop(path, None)
            state.notices.pop(path, None)
            state.validation.pop(path, None)
            state.published.discard(path)
            if state.open_files:
                ls.schedule_lint(state)

    @ls.feature(lsp.TEXT_DOCUMENT_CODE_ACTION, lsp.CodeActionOptions(
        code_action_kinds=[lsp.CodeActionKind.QuickFix]))
    def code_action(params: lsp.CodeActionParams) -> list[lsp.CodeAction]:
        path = path_of(params.text_document.uri)
        state = ls.kg.known_project_of(path) if path else None
        if state is None:
            return []
        out = []
        for uri, diag, edit, title in state.fixes:
            if uri == params.text_document.uri and overlaps(diag.range, params.range):
                out.append(lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix,
                                          diagnostics=[diag], edit=edit, is_preferred=True))
        return out

    from server.lsp import commands, features, inline, semantic

    features.register(ls)
    commands.register(ls)
    inline.register(ls)
    semantic.register(ls)
    return ls


def _quiet(task: asyncio.Task[Any]) -> None:
    """Background validations report through kernelgen/status; nothing is left unretrieved."""
    if not task.cancelled():
        task.exception()


def dumps(obj: Any) -> str:
    return json.dumps(obj, default=str)
