"""The LLM path of kernel generation: prompt, tagged answers, validate-and-repair loop."""

from kernelgen_lm.llm.loop import LlmGeneration, run_llm_generation

__all__ = ["LlmGeneration", "run_llm_generation"]
