"""Benchmarks and task suites.

Speed and memory targets live here, never in timed test assertions.
"""
