"""Scoring metrics, each equal to its reference implementation (see README.md, "Metrics").

Library functions live in one module per metric family; ``python -m core.metrics COMMAND``
is the command line (``python -m core.metrics --help`` lists the commands).
"""
