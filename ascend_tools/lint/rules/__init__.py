"""Lint rules: each module holds one family; `ALL_RULES` is the order they run in."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ascend_tools.diagnostics import Diagnostic
from ascend_tools.lint.context import LintContext
from ascend_tools.lint.rules import api, copy, pipe, queue, tiling, ub, vector

Rule = Callable[[LintContext], Iterable[Diagnostic]]

# Rules over one analysis unit (a kernel class with its methods, or a free function): their
# results are cached per unit and re-run only for the unit an edit touched.
UNIT_RULES: tuple[Rule, ...] = (
    ub.check_ub_capacity,
    ub.check_buffer_count,
    ub.check_tensors_per_position,
    copy.check_data_copies,
    vector.check_vector_calls,
    queue.check_queue_protocol,
    api.check_unknown_api,
    api.check_chip_support,
)
# Rules over the whole project (host and kernel together), run on every lint.
PROJECT_RULES: tuple[Rule, ...] = (
    tiling.check_missing_tail,
    tiling.check_tiling_mismatch,
    tiling.check_block_dim,
    pipe.check_pipe_and_matmul,
    api.check_unknown_host_api,
)
ALL_RULES: tuple[Rule, ...] = UNIT_RULES + PROJECT_RULES
