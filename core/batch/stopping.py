"""Stopping the sheets a process is running, so that each one cleans up after itself.

A sheet runs in a thread of a Dask worker, where no signal arrives: when the worker
closes (the run was stopped, the cluster shuts down) or is told to stop with SIGTERM,
:func:`stop_running_sheets` raises :class:`~core.interrupts.Stopped` in every thread
running a sheet and waits a bounded time for them to finish unwinding: temporary files,
temporary folders (``/dev/shm``) and partial outputs go with them, as after a Ctrl-C of a
one-sheet command.

The exception lands at the thread's next Python instruction, which may be in a garbage
collector's callback (Dask's workers have one) or a ``__del__``: Python then prints it
("Exception ignored in ...", a traceback on the command's stderr) and drops it, and the
sheet goes on. While :func:`stop_running_sheets` waits, such a dropped Stopped is kept off
stderr and raised again in its thread.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time
from collections.abc import Iterator

from ..interrupts import Stopped, stop_thread

_running: set[int] = set()
_changed = threading.Condition()
_dropped: set[int] = set()      # sheet threads whose Stopped Python dropped (unraisable)
RETRY_S = 0.05                  # how often a dropped Stopped is raised again


@contextlib.contextmanager
def running_sheet() -> Iterator[None]:
    """Mark the calling thread as running a sheet for the duration of the block."""
    ident = threading.get_ident()
    with _changed:
        _running.add(ident)
    try:
        yield
    finally:
        with _changed:
            _running.discard(ident)
            _changed.notify_all()


def running_sheets() -> int:
    """How many threads of this process are running a sheet now."""
    with _changed:
        return len(_running)


def stop_running_sheets(timeout: float, signum: int = signal.SIGTERM) -> bool:
    """Stop every thread running a sheet and wait until they have unwound.

    Parameters
    ----------
    timeout : float
        Seconds to wait, at most (a long C call finishes before the thread can stop).
    signum : int
        The stop signal the threads are told of (its name ends up in their errors).

    Returns
    -------
    bool
        True when no sheet runs any more.
    """
    deadline = time.monotonic() + timeout
    previous = sys.unraisablehook

    def keep_dropped(unraisable) -> None:
        ident = threading.get_ident()
        if issubclass(unraisable.exc_type, Stopped) and ident in _running:
            _dropped.add(ident)         # raised again below, not printed
        else:
            previous(unraisable)

    sys.unraisablehook = keep_dropped
    try:
        with _changed:
            for ident in list(_running):
                stop_thread(ident, signum)
            while _running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                _changed.wait(min(left, RETRY_S))
                for ident in _dropped & _running:
                    _dropped.discard(ident)
                    stop_thread(ident, signum)
        return True
    finally:
        sys.unraisablehook = previous
        _dropped.clear()
