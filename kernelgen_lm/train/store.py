"""The accepted-edit store: every inline completion the user accepted and every generated
kernel the user kept, for the offline refresh of the kernel LLM.

SQLite in WAL mode (`.kernelgen/edits.sqlite` in the workspace): a killed server loses nothing
that was committed, and readers (an export running beside the editor) never block the writer.

Schema, version 1 (`PRAGMA user_version`):

    edits(id INTEGER PRIMARY KEY, kind TEXT  -- 'completion' | 'generated'
          created REAL                       -- Unix time
          file TEXT                          -- the file the edit went into
          prefix TEXT, suffix TEXT           -- prompt context (text before / after the cursor)
          suggestion TEXT                    -- the accepted text (or the kernel source)
          source TEXT                        -- engine or backend that produced it
          validation TEXT                    -- validate JSON of a generated kernel, else NULL
          meta TEXT)                         -- JSON object: anything else (op, chip, ...)

API keys and other secrets never reach it: callers pass only texts and results.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1
STORE_PATH = Path(".kernelgen") / "edits.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('completion', 'generated')),
    created REAL NOT NULL,
    file TEXT NOT NULL,
    prefix TEXT NOT NULL DEFAULT '',
    suffix TEXT NOT NULL DEFAULT '',
    suggestion TEXT NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    validation TEXT,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS edits_kind_created ON edits(kind, created);
"""


class StoreError(RuntimeError):
    """The store file cannot be used (a newer schema, a corrupt file); says which."""


@dataclass
class Edit:
    id: int
    kind: str
    created: float
    file: str
    prefix: str
    suffix: str
    suggestion: str
    source: str
    validation: dict[str, Any] | None
    meta: dict[str, Any]


class EditStore:
    """One store file; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{path} has schema version {version}; this version of "
                                 f"kernelgen reads up to {SCHEMA_VERSION}")
            with self._db:
                self._db.executescript(_SCHEMA)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: {exc}") from exc

    @classmethod
    def in_workspace(cls, root: Path) -> EditStore:
        return cls(root / STORE_PATH)

    def add(self, kind: str, file: str, suggestion: str, *, prefix: str = "", suffix: str = "",
            source: str = "", validation: dict[str, Any] | None = None,
            meta: dict[str, Any] | None = None) -> int:
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO edits (kind, created, file, prefix, suffix, suggestion, source, "
                "validation, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (kind, time.time(), file, prefix, suffix, suggestion, source,
                 json.dumps(validation) if validation is not None else None,
                 json.dumps(meta or {})))
            return int(cur.lastrowid or 0)

    def edits(self, kind: str | None = None) -> list[Edit]:
        query = "SELECT * FROM edits" + (" WHERE kind = ?" if kind else "") + " ORDER BY id"
        with self._lock:
            rows = self._db.execute(query, (kind,) if kind else ()).fetchall()
        return [Edit(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                     json.loads(r[8]) if r[8] else None, json.loads(r[9] or "{}")) for r in rows]

    def export_jsonl(self, out: Path) -> int:
        """Writes every edit as one JSON line (for datasets); returns how many."""
        rows = self.edits()
        with out.open("w", encoding="utf-8") as f:
            for e in rows:
                f.write(json.dumps(e.__dict__) + "\n")
        return len(rows)

    def close(self) -> None:
        with self._lock:
            self._db.close()
