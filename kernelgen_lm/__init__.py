"""Everything that produces kernels: capture, plan, lowering, LLM backends, generation, training.

Imports `ascend_tools`; knows nothing of LSP.
"""
