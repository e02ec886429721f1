"""tree-sitter parsing of AscendC into a KernelModel (facts), kept incremental per document.

Entry points: `Document(path, text).update(text, edit)`, `KernelModel(documents)`,
`Evaluator(model, chip, shapes).eval(expr, chunk, order)`.
"""

from ascend_tools.parse.document import Document, SourceEdit, diff_edit
from ascend_tools.parse.evaluate import Evaluator, Value
from ascend_tools.parse.model import KernelModel, QueueInfo

__all__ = ["Document", "Evaluator", "KernelModel", "QueueInfo", "SourceEdit", "Value",
           "diff_edit"]
