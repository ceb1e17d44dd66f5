"""Keep freed memory in the process for the next image instead of returning it at once.

A sheet's images are a few large buffers (a 10000 x 10000 RGB decode is 300 MB) that are
allocated and freed again for every step and every sheet. glibc's ``malloc`` maps each
buffer above 32 MB afresh (``mmap``) and unmaps it when freed, so every reuse touches new
pages: one page fault per 4 KiB, which the kernel must zero. On this project's 2-core
virtual machine that cost as much system time as the JPEG decode's own work (6 sheets of
8000 px: 2.6 s of system time for 1.7 s of decoding, 0.5 s once freed memory is kept), and
page faults of two processes slow each other down, so two workers were barely faster than
one.

:func:`reuse_freed_memory` tells glibc to serve large buffers from its heap and keep what is
freed there (``mallopt(M_MMAP_MAX, 0)``, ``mallopt(M_TRIM_THRESHOLD, 2 GiB)``), and to use that
one heap for every thread (``mallopt(M_ARENA_MAX, 1)``): a thread's own arena gave its large
buffers back at once, so a map-area mask decoded on a second thread while the sheet was
(``core.graticule``) faulted its 100 MB in anew every time, 0.4 s of system time. The process's
resident memory then stays at its peak until it exits, and buffers of many sizes fragment
the heap, so the peak grows: the commands whose steps hold a few buffers of one size call
it (``core.graticule``, ``core.georef``, ``core.maparea``, in their process or Dask worker),
``core.blocks`` does not (its shapes level peaked at 4.5 GB instead of 3.3 GB on a
10000 x 10000 sheet), nor does the plugin (QGIS is a long-lived host).
"""

from __future__ import annotations

import ctypes
import functools
import sys

M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
M_ARENA_MAX = -8

#: Free memory at the top of the heap above this size is returned to the system, bytes.
TRIM_THRESHOLD_BYTES = 2**31 - 1


@functools.cache
def reuse_freed_memory() -> bool:
    """Make glibc keep freed memory for reuse in this process (once; later calls do nothing).

    Returns
    -------
    bool
        True when the setting took effect (Linux with glibc); False elsewhere (macOS,
        Windows, musl), where nothing changes.

    Examples
    --------
    >>> reuse_freed_memory() in (True, False)
    True
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                          TRIM_THRESHOLD_BYTES)) \
        and bool(mallopt(M_ARENA_MAX, 1))
