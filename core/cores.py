"""How many cores this process may use."""

from __future__ import annotations

import os


def usable_cores() -> int:
    """The number of cores this process may use: its CPU affinity on Linux, else every
    core of the machine (at least 1).

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:     # not on Linux
        return max(1, os.cpu_count() or 1)
