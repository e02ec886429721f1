"""The model registry: versioned model directories, one promoted, promotion atomic and
reversible.

    REGISTRY/
      versions/v0001/meta.json      VersionMeta: base, adapter or merged, data hash, metrics
      versions/v0001/model/         a full model (merged)   or   adapter/  a peft adapter
                                    (an adapter version gets model/ too, its merged copy,
                                    when it is first promoted: every server loads it)
      versions/v0001/base/          the tiny base an adapter or a merge came from (tiny only)
      PROMOTED                      {"version": "v0002", "history": ["v0001"]}
      current -> versions/v0002     symlink for servers: `current/model` is always full weights
      metrics.png                   evaluation metrics per version
      .runs/<run id>/               training in progress (never read as a version)

A version appears only by renaming a finished directory into `versions/`, a merged copy only by
renaming a finished `.model.tmp`, and the pointer and the symlink change only by `os.replace`
of a complete temporary file (after the merged copy exists): a run killed at any moment leaves
the registry as it was. Writers take `.lock` (one refresh or promotion at a time).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

POINTER = "PROMOTED"
CURRENT = "current"
FULL = "model"  # the full-weights directory of every promoted version
_VERSION = re.compile(r"^v(\d{4,})$")


class RegistryError(RuntimeError):
    """The registry cannot do what was asked (unknown version, nothing to roll back to)."""


class VersionMeta(BaseModel):
    version: str = ""
    created: float
    base: str
    kind: Literal["adapter", "merged"]
    serve_path: str  # relative to the version directory: the model (merged) or the adapter
    base_path: str | None = None  # for adapters: the base model the adapter applies to
    data_hash: str
    metrics: dict[str, float] = {}
    train: dict[str, object] = {}
    parent: str | None = None  # the promoted version when this one was trained
    # Full weights relative to the version directory, for servers without LoRA: serve_path for
    # merged versions, the merged copy of an adapter version once it was promoted.
    full_path: str | None = None

    def full(self) -> str | None:
        return self.serve_path if self.kind == "merged" else self.full_path


class Pointer(BaseModel):
    version: str | None = None
    history: list[str] = []  # previously promoted versions, oldest first


class VersionInfo(BaseModel):
    version: str
    promoted: bool
    metrics: dict[str, float]
    created: float
    kind: str
    base: str
    data_hash: str


class Registry:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.versions_dir = root / "versions"
        self.runs_dir = root / ".runs"

    def ensure(self) -> None:
        self.versions_dir.mkdir(parents=True, exist_ok=True)
        self.runs_dir.mkdir(parents=True, exist_ok=True)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One writer at a time (the lock dies with its process, even under SIGKILL)."""
        self.ensure()
        with (self.root / ".lock").open("a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    # -- reading ---------------------------------------------------------------------------

    def versions(self) -> list[str]:
        if not self.versions_dir.is_dir():
            return []
        names = [
            p.name
            for p in self.versions_dir.iterdir()
            if _VERSION.match(p.name) and (p / "meta.json").is_file()
        ]
        return sorted(names, key=lambda n: int(n[1:]))

    def meta(self, version: str) -> VersionMeta:
        path = self.versions_dir / version / "meta.json"
        if not _VERSION.match(version) or not path.is_file():
            known = ", ".join(self.versions()) or "none"
            raise RegistryError(f"no version {version!r} in {self.root} (versions: {known})")
        return VersionMeta.model_validate_json(path.read_text())

    def pointer(self) -> Pointer:
        path = self.root / POINTER
        if not path.is_file():
            return Pointer()
        return Pointer.model_validate_json(path.read_text())

    def promoted(self) -> str | None:
        return self.pointer().version

    def serve_dir(self, version: str) -> Path:
        """What the version is: a full model (merged) or a peft adapter directory."""
        return self.versions_dir / version / self.meta(version).serve_path

    def full_dir(self, version: str) -> Path | None:
        """Full weights every server loads (None for an adapter version never promoted)."""
        full = self.meta(version).full()
        return self.versions_dir / version / full if full else None

    def listing(self) -> list[VersionInfo]:
        current = self.promoted()
        out = []
        for v in self.versions():
            m = self.meta(v)
            out.append(
                VersionInfo(
                    version=v,
                    promoted=v == current,
                    metrics=m.metrics,
                    created=m.created,
                    kind=m.kind,
                    base=m.base,
                    data_hash=m.data_hash,
                )
            )
        return out

    # -- writing ---------------------------------------------------------------------------

    def add(self, staged: Path, meta: VersionMeta) -> str:
        """Moves a finished directory in as the next version (one rename: all or nothing)."""
        self.ensure()
        existing = [int(v[1:]) for v in self.versions()]
        # Numbers of directories without meta.json (impossible by construction) are skipped too.
        taken = existing + [
            int(m.group(1)) for p in self.versions_dir.iterdir() if (m := _VERSION.match(p.name))
        ]
        version = f"v{max(taken, default=0) + 1:04d}"
        meta.version = version
        meta.created = meta.created or time.time()
        _write_atomic(staged / "meta.json", meta.model_dump_json(indent=1))
        os.rename(staged, self.versions_dir / version)
        return version

    def _set_pointer(self, pointer: Pointer) -> None:
        _write_atomic(self.root / POINTER, pointer.model_dump_json())
        link = self.root / CURRENT
        tmp = self.root / f".{CURRENT}.tmp"
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()
        if pointer.version is None:
            with contextlib.suppress(FileNotFoundError):
                link.unlink()
            return
        tmp.symlink_to(Path("versions") / pointer.version)
        os.replace(tmp, link)

    def materialise(self, version: str) -> Path:
        """The version's full weights, made for an adapter version on first call by merging
        the adapter into its base (peft merge_and_unload): `transformers serve`, a vLLM
        without LoRA and every other server load it. The copy costs the base's size on disk."""
        meta = self.meta(version)
        full = meta.full()
        vdir = self.versions_dir / version
        if full and (vdir / full / "config.json").is_file():
            return vdir / full
        if meta.kind != "adapter" or not meta.base_path:
            raise RegistryError(
                f"{version}: no full weights under {vdir} and no adapter to "
                "merge (the version directory is damaged)"
            )
        tmp = vdir / f".{FULL}.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        merge_adapter(vdir / meta.serve_path, meta.base_path, tmp)
        shutil.rmtree(vdir / FULL, ignore_errors=True)
        os.rename(tmp, vdir / FULL)
        meta.full_path = FULL
        _write_atomic(vdir / "meta.json", meta.model_dump_json(indent=1))
        return vdir / FULL

    def promote(self, version: str) -> Pointer:
        """Points `PROMOTED` and `current` at the version, once its full weights exist."""
        self.meta(version)  # exists
        old = self.pointer()
        self.materialise(version)
        if old.version == version:
            return old
        history = [*old.history, old.version] if old.version else list(old.history)
        new = Pointer(version=version, history=history)
        self._set_pointer(new)
        return new

    def rollback(self) -> Pointer:
        """Back to the version promoted before the current one."""
        old = self.pointer()
        if not old.history:
            raise RegistryError(
                f"nothing to roll back to in {self.root} (promoted: {old.version or 'none'})"
            )
        new = Pointer(version=old.history[-1], history=old.history[:-1])
        self.materialise(new.version)  # type: ignore[arg-type]
        self._set_pointer(new)
        return new


def merge_adapter(adapter: Path, base: str, dest: Path) -> Path:
    """Writes the base with the adapter merged in (and the adapter's tokenizer, else the
    base's) to `dest`, in the base's own dtype."""
    try:
        from peft import PeftModel
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:
        raise RegistryError(
            f"merging an adapter needs the training extra ({exc}): pip install -e '.[train]'"
        ) from exc
    try:
        model = AutoModelForCausalLM.from_pretrained(base, dtype="auto")
        model = PeftModel.from_pretrained(model, str(adapter)).merge_and_unload()
        has_tokenizer = (adapter / "tokenizer_config.json").is_file()
        tokenizer = AutoTokenizer.from_pretrained(str(adapter) if has_tokenizer else base)
    except (OSError, ValueError) as exc:
        raise RegistryError(f"cannot merge adapter {adapter} into base {base!r}: {exc}") from exc
    model.save_pretrained(str(dest))
    tokenizer.save_pretrained(str(dest))
    return dest


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    with tmp.open("w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def no_regression(
    new: dict[str, float], old: dict[str, float] | None, tolerance: float = 0.0
) -> tuple[bool, str]:
    """Promotion rule: no metric the promoted version has may get worse."""
    if not old:
        return True, "no promoted version to compare with"
    worse = [
        f"{k} {new.get(k, 0.0):.3f} < {v:.3f}"
        for k, v in sorted(old.items())
        if new.get(k, 0.0) < v - tolerance
    ]
    if worse:
        return False, "regressed: " + ", ".join(worse)
    return True, "no regression against the promoted version"


def plot_metrics(registry: Registry) -> Path | None:
    """metrics.png: each evaluation metric per version (None without matplotlib)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    infos = registry.listing()
    names = sorted({k for i in infos for k in i.metrics})
    if not infos or not names:
        return None
    fig, ax = plt.subplots(figsize=(max(5, len(infos) * 0.8), 3.5))
    xs = list(range(len(infos)))
    for name in names:
        ax.plot(xs, [i.metrics.get(name, 0.0) for i in infos], marker="o", label=name)
    ax.set_xticks(xs, [i.version + ("*" if i.promoted else "") for i in infos])
    ax.set_ylim(-0.05, 1.05)
    ax.set_title("evaluation per version (* promoted)")
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    out = registry.root / "metrics.png"
    tmp = registry.root / ".metrics.png.tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, out)
    return out


class ServedVersion(BaseModel):
    registry: str
    version: str
    promoted: bool
    kind: str


def served_version(model: str) -> ServedVersion | None:
    """The registry version a model path points into (`REGISTRY/current/model`,
    `REGISTRY/versions/v0003/adapter`, ...), so the server can say which version serves;
    None for hub ids, server-side names and paths outside a registry."""
    if not model:
        return None
    try:
        path = Path(model).expanduser().resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    for d in (path, *path.parents):
        if _VERSION.match(d.name) and d.parent.name == "versions" and (d / "meta.json").is_file():
            reg = Registry(d.parent.parent)
            try:
                meta = reg.meta(d.name)
                promoted = reg.promoted()
            except (ValueError, OSError):
                return None
            return ServedVersion(
                registry=str(reg.root), version=d.name, promoted=promoted == d.name, kind=meta.kind
            )
    return None
