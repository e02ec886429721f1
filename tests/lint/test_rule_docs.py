"""Every code the linter can emit is a shared RuleCode and has a one-line description."""

from __future__ import annotations

import re
from pathlib import Path

from ascend_tools.diagnostics import RuleCode
from ascend_tools.lint.rules import RULE_DOCS

RULES_DIR = Path(__file__).resolve().parents[2] / "ascend_tools" / "lint" / "rules"


def test_rule_docs_use_shared_codes() -> None:
    assert set(RULE_DOCS) <= {c.value for c in RuleCode}


def test_every_emitted_code_is_documented() -> None:
    used = set()
    for path in RULES_DIR.glob("*.py"):
        used |= set(re.findall(r"RuleCode\.([A-Z_]+)\.value", path.read_text()))
    assert used, "no rule codes found in the rule modules"
    assert {RuleCode[name].value for name in used} <= set(RULE_DOCS)
