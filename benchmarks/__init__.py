"""Benchmarks: each prints the numbers behind a speed or quality target (see docs/benchmarks.md).

Run one with ``.venv/bin/python -m benchmarks.<name>`` or through its ``make bench-*`` target.
"""
