"""Lint configuration: the chip, rules switched off per project, optional input shapes.

Per project, `kernelgen.toml` (or `[tool.kernelgen.lint]` in pyproject.toml) at the project root:

    [lint]
    chip = "ascend910b2"
    ignore = ["missing-tail"]
    shapes = [[8, 2048], [8, 2048]]
"""

from __future__ import annotations

from pathlib import Path

import tomllib
from pydantic import BaseModel, ValidationError

from ascend_tools.chips import DEFAULT_CHIP

CONFIG_FILES = ("kernelgen.toml", "pyproject.toml")


class LintConfigError(ValueError):
    """The configuration file is unreadable or malformed; the message says which and why."""


class LintConfig(BaseModel):
    chip: str = DEFAULT_CHIP
    ignore: list[str] = []
    shapes: list[list[int]] | None = None
    """Input shapes (test binding) used to evaluate host tiling values."""


def load_config(root: Path) -> LintConfig | None:
    """The project's lint settings, or None when it has none."""
    for name in CONFIG_FILES:
        path = root / name
        if not path.is_file():
            continue
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise LintConfigError(f"{path}: {exc}") from exc
        section = data.get("lint") if name == "kernelgen.toml" else (
            data.get("tool", {}).get("kernelgen", {}).get("lint"))
        if section is None:
            continue
        try:
            return LintConfig(**section)
        except ValidationError as exc:
            raise LintConfigError(f"{path}: bad [lint] section: {exc.errors()[0]['msg']}") from exc
    return None
