"""Static analysis of AscendC kernels: rules over the KernelModel -> diagnostics with fixes."""

from ascend_tools.lint.analyzer import (
    Analyzer,
    LintError,
    lint_path,
    project_files,
    vendor_internal_uses,
)
from ascend_tools.lint.config import LintConfig, LintConfigError, load_config
from ascend_tools.lint.fixes import apply_fix

__all__ = [
    "Analyzer", "LintConfig", "LintConfigError", "LintError", "apply_fix", "lint_path",
    "load_config", "project_files", "vendor_internal_uses",
]
