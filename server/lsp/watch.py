"""watchdog on the workspace: a kernel, host, reference or kernelgen.toml changed outside the
editor is re-read and re-linted, and re-validated when its project was validated before."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from server.lsp.project import CONFIG_FILE
from server.lsp.workspace import is_source

SETTLE_S = 0.2


class WorkspaceWatcher:
    def __init__(self, ls: Any, root: Path, loop: asyncio.AbstractEventLoop) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        self.ls = ls
        self.loop = loop
        self.pending: dict[str, asyncio.TimerHandle] = {}
        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.is_directory or event.event_type not in (
                        "modified", "created", "moved", "deleted", "closed"):
                    return
                target = getattr(event, "dest_path", "") or event.src_path
                path = target.decode() if isinstance(target, bytes) else str(target)
                if watcher.relevant(path):
                    loop.call_soon_threadsafe(watcher.changed, path)

        self.observer = Observer()
        self.observer.schedule(Handler(), str(root), recursive=True)
        self.observer.daemon = True
        self.observer.start()

    @staticmethod
    def relevant(path: str) -> bool:
        p = Path(path)
        if ".kernelgen" in p.parts or "__pycache__" in p.parts:
            return False
        return is_source(path) or p.name == CONFIG_FILE or p.suffix == ".py"

    def changed(self, path: str) -> None:
        """Coalesces the burst of events one save makes, then acts once."""
        old = self.pending.pop(path, None)
        if old is not None:
            old.cancel()
        self.pending[path] = self.loop.call_later(
            SETTLE_S, lambda: self.ls.spawn(self._act(path)))

    async def _act(self, path: str) -> None:
        self.pending.pop(path, None)
        ls = self.ls
        for state in list(ls.kg.projects.values()):
            if not _inside(Path(path), state.root) and path != state.key:
                continue
            ref = state.reference
            touched = path in state.analyzer.documents or path == str(ref) or (
                Path(path).name == CONFIG_FILE and Path(path).parent == state.root)
            if not touched and not (is_source(path) and state.is_project):
                continue
            if is_source(path) and path not in state.open_files:
                await ls.kg.run(ls.kg.load_from_disk, state, path)
                ls.schedule_lint(state)
            if state.last_validation is not None and ls.settings.validate_on_save:
                ls.schedule_validation(state).add_done_callback(_quiet)

    def stop(self) -> None:
        self.observer.stop()


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _quiet(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
