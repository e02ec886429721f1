"""`train data`: one dataset from the seed set, the edit store and imported files, deduplicated,
decontaminated against the held-out slice, with its data card."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.chips import DEFAULT_CHIP
from kernelgen_lm.train.from_store import store_records
from kernelgen_lm.train.importer import import_projects, import_records
from kernelgen_lm.train.records import (
    CotRecord,
    DataError,
    HeldOut,
    data_hash,
    decontaminate,
    dedup,
    write_dataset,
)
from kernelgen_lm.train.seed import catalog_records, seed_records

Progress = Callable[[str], None]


class DataRequest(BaseModel):
    out: Path
    stubs: list[Path] = []  # training stubs for the seed set (the held-out ones excluded)
    chips: list[str] = []
    limit: int | None = None  # seed kernels at most
    catalog_limit: int | None = None  # catalog Q/A records at most (0: none)
    store: Path | None = None
    import_file: Path | None = None
    mapping: dict[str, str] | None = None
    import_projects: bool = False  # import_file is a folder of operator projects


class DataResult(BaseModel):
    path: Path
    records: int
    data_hash: str
    counts: dict[str, int]
    dropped: dict[str, int]


def build_dataset(req: DataRequest, held: HeldOut, progress: Progress | None = None) -> DataResult:
    records: list[CotRecord] = []
    dropped: dict[str, int] = {}
    failures: dict[str, str] = {}
    if req.import_file is not None:
        if req.import_projects:
            records += import_projects(req.import_file, (req.chips or [DEFAULT_CHIP])[0], progress)
        elif req.mapping is None:
            raise DataError(
                "--import needs --mapping (which of your fields is which, or "
                "`projects` for a folder of operator projects)"
            )
        else:
            records += import_records(req.import_file, req.mapping)
    if req.store is not None:
        if not req.store.is_file():
            raise DataError(f"{req.store}: no such edit store")
        records += store_records(req.store)
    if req.stubs and req.limit != 0:
        records += seed_records(
            req.stubs, req.chips, limit=req.limit, progress=progress, failures=failures
        )
    if req.catalog_limit != 0:
        records += catalog_records(req.catalog_limit)
    if failures:
        dropped["stubs the rule generator did not validate"] = len(failures)
    before = len(records)
    records = dedup(records)
    if before - len(records):
        dropped["duplicates"] = before - len(records)
    records, held_out = decontaminate(records, held)
    if held_out:
        dropped["held-out evaluation tasks"] = held_out
    notes = [f"held-out slice (never trained on): {', '.join(sorted(held.tasks)) or 'none'}"]
    path = write_dataset(records, req.out, dropped=dropped, notes=notes)
    counts: dict[str, int] = {}
    for r in records:
        counts[r.metadata.origin] = counts.get(r.metadata.origin, 0) + 1
    return DataResult(
        path=path,
        records=len(records),
        data_hash=data_hash(records),
        counts=counts,
        dropped=dropped,
    )
