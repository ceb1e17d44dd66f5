"""Scoring metrics, each equal to its reference implementation (see docs/metrics-*.md).

Library functions live in one module per metric family; ``python -m core.metrics COMMAND``
is the command line (``python -m core.metrics --help`` lists the commands).
"""
