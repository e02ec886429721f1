"""Lint configuration: the chip, rules switched off per project, optional input shapes.

Per project, the `[lint]` section of `kernelgen.toml` (or `[tool.kernelgen.lint]` in
pyproject.toml) at the project root, read by `ascend_tools.config`:

    [lint]
    chip = "ascend910b2"
    ignore = ["missing-tail"]
    shapes = [[8, 2048], [8, 2048]]

The top-level `auto_sync` (ascend_tools.config) reaches the rules as `LintConfig.auto_sync`.
"""

from __future__ import annotations

from pathlib import Path

from ascend_tools.config import ConfigError, LintConfig, load_project_config

LintConfigError = ConfigError

__all__ = ["LintConfig", "LintConfigError", "load_config"]


def load_config(root: Path) -> LintConfig | None:
    """The project's lint settings (with the project's top-level `auto_sync` and `defines`),
    or None when it has none."""
    config = load_project_config(root)
    if config.lint is None and (not config.auto_sync or config.defines):
        return LintConfig(auto_sync=config.auto_sync, defines=config.defines)
    return config.lint
