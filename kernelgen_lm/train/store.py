"""The accepted-edit store: every inline completion the user accepted and every generated
kernel the user kept, for the offline refresh of the kernel LLM.

SQLite in WAL mode (`.kernelgen/edits.sqlite` in the workspace): a killed server loses nothing
that was committed, and readers (an export running beside the editor) never block the writer.

Schema, version 2 (`PRAGMA user_version`):

    edits(id INTEGER PRIMARY KEY, kind TEXT  -- 'completion' | 'generated' | 'sample'
          created REAL                       -- Unix time
          file TEXT                          -- the file the edit went into
          prefix TEXT, suffix TEXT           -- prompt context (text before / after the cursor)
          suggestion TEXT                    -- the accepted text (or the kernel source)
          source TEXT                        -- engine or backend that produced it
          validation TEXT                    -- validate JSON of a generated kernel, else NULL
          meta TEXT)                         -- JSON object: anything else (op, chip, ...)

`sample` rows are the generation loop's samples, validated or not (the failed ones make the
trainer's preference pairs); `meta` carries their task (`task`, `reference`, `chip`, `prompt`).

Migrations run on open, inside one transaction: version 1 (no `sample` kind) is rebuilt into
version 2 with its rows kept. A newer version than this code knows is refused, never rewritten.

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

SCHEMA_VERSION = 2
KINDS = ("completion", "generated", "sample")
STORE_PATH = Path(".kernelgen") / "edits.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS edits (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL CHECK (kind IN ('completion', 'generated', 'sample')),
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


# Version 1 allowed only 'completion' and 'generated': SQLite cannot alter a CHECK, so the
# table is rebuilt under the new schema and the rows copied across.
_MIGRATE_1_TO_2 = (
    """
ALTER TABLE edits RENAME TO edits_v1;
DROP INDEX IF EXISTS edits_kind_created;
"""
    + _SCHEMA
    + """
INSERT INTO edits (id, kind, created, file, prefix, suffix, suggestion, source, validation, meta)
    SELECT id, kind, created, file, prefix, suffix, suggestion, source, validation, meta
    FROM edits_v1;
DROP TABLE edits_v1;
"""
)


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
                raise StoreError(
                    f"{path} has schema version {version}; this version of "
                    f"kernelgen reads up to {SCHEMA_VERSION}"
                )
            self._migrate(version)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: {exc}") from exc

    def _migrate(self, version: int) -> None:
        """Brings the file to SCHEMA_VERSION in one transaction (a crash leaves the old one)."""
        has_table = self._db.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'edits'"
        ).fetchone()
        script = _MIGRATE_1_TO_2 if has_table and version == 1 else _SCHEMA
        if version == SCHEMA_VERSION and has_table:
            return
        self._db.isolation_level = None  # explicit BEGIN/COMMIT around the whole script
        try:
            self._db.executescript(
                f"BEGIN IMMEDIATE;\n{script}\nPRAGMA user_version={SCHEMA_VERSION};\nCOMMIT;"
            )
        except sqlite3.DatabaseError:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        finally:
            self._db.isolation_level = ""

    @classmethod
    def in_workspace(cls, root: Path) -> EditStore:
        return cls(root / STORE_PATH)

    def add(
        self,
        kind: str,
        file: str,
        suggestion: str,
        *,
        prefix: str = "",
        suffix: str = "",
        source: str = "",
        validation: dict[str, Any] | None = None,
        meta: dict[str, Any] | None = None,
    ) -> int:
        if kind not in KINDS:
            raise ValueError(f"edit kind {kind!r} is not one of {KINDS}")
        with self._lock, self._db:
            cur = self._db.execute(
                "INSERT INTO edits (kind, created, file, prefix, suffix, suggestion, source, "
                "validation, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    kind,
                    time.time(),
                    file,
                    prefix,
                    suffix,
                    suggestion,
                    source,
                    json.dumps(validation) if validation is not None else None,
                    json.dumps(meta or {}),
                ),
            )
            return int(cur.lastrowid or 0)

    def edits(self, kind: str | None = None) -> list[Edit]:
        query = "SELECT * FROM edits" + (" WHERE kind = ?" if kind else "") + " ORDER BY id"
        with self._lock:
            rows = self._db.execute(query, (kind,) if kind else ()).fetchall()
        return [
            Edit(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                json.loads(r[8]) if r[8] else None,
                json.loads(r[9] or "{}"),
            )
            for r in rows
        ]

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
