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
10000 x 10000 sheet), nor does the plugin (QGIS is a long-lived host): they keep freed
memory only while the networks run, tile after tile (:func:`freed_memory_kept`), and give
it back after.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import sys
from collections.abc import Iterator

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_MMAP_MAX = -4
M_ARENA_MAX = -8

#: Free memory at the top of the heap above this size is returned to the system, bytes.
TRIM_THRESHOLD_BYTES = 2**31 - 1
#: glibc's defaults, restored after :func:`freed_memory_kept`: most mapped chunks, trim
#: threshold (bytes) and the mmap threshold its dynamic setting reaches on 64-bit (bytes).
DEFAULT_MMAP_MAX = 65536
DEFAULT_TRIM_THRESHOLD_BYTES = 128 * 1024
DEFAULT_MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024


def _mallopt():
    """glibc's ``mallopt`` (None off Linux/glibc)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return None
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return mallopt


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
    mallopt = _mallopt()
    if mallopt is None:
        return False
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                          TRIM_THRESHOLD_BYTES)) \
        and bool(mallopt(M_ARENA_MAX, 1))


def keeps_freed_memory() -> bool:
    """True once :func:`reuse_freed_memory` has been called in this process."""
    return bool(reuse_freed_memory.cache_info().currsize)


@contextlib.contextmanager
def freed_memory_kept() -> Iterator[None]:
    """Within the block, keep freed memory for reuse as :func:`reuse_freed_memory` does;
    after it, give the free memory back (``malloc_trim``) and map large buffers again.

    For a step that allocates and frees the same large buffers many times in a process
    that must not keep its peak afterwards (the plugin in QGIS, ``core.blocks``): OpenCV
    DNN's tile buffers (a few 100 MB each, 50-70 forward passes on a 10000 px sheet)
    cost 4 million page faults and 14 s of system time without it, 0.15 million and
    1 s with it. Nothing changes where :func:`reuse_freed_memory` is in effect already.

    Examples
    --------
    >>> with freed_memory_kept():
    ...     buffers = [bytearray(50_000_000) for _ in range(2)]
    """
    mallopt = _mallopt()
    if mallopt is None or keeps_freed_memory():
        yield
        return
    mallopt(M_MMAP_MAX, 0)
    mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)
    try:
        yield
    finally:
        mallopt(M_MMAP_THRESHOLD, DEFAULT_MMAP_THRESHOLD_BYTES)
        mallopt(M_TRIM_THRESHOLD, DEFAULT_TRIM_THRESHOLD_BYTES)
        mallopt(M_MMAP_MAX, DEFAULT_MMAP_MAX)
        with contextlib.suppress(AttributeError):
            ctypes.CDLL(None).malloc_trim(0)
