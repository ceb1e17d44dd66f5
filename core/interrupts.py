"""Signals that stop a command (Ctrl-C, ``kill``, ``timeout``, a closed terminal) as one
exception, so every ``finally`` and :func:`core.atomic.atomic_outputs` clean-up runs.

Inside :func:`signals_raise` (used by :func:`core.cli.run_cli`) SIGINT, SIGTERM and SIGHUP
raise :class:`Interrupted`, a ``KeyboardInterrupt``: code that already cleans up after a
Ctrl-C cleans up after a ``kill`` too. The exception is raised once; signals arriving while
the program unwinds are ignored so the clean-up itself is never cut short. Inside
:func:`deferred` (renaming finished outputs into place) a signal waits until the block ends.

Exit status of an interrupted command: 128 + the signal number (130 SIGINT, 143 SIGTERM,
129 SIGHUP), as shells report a process killed by that signal.

A Dask worker runs a sheet in a thread that no signal reaches; :func:`stop_thread` raises
:class:`Stopped` in it instead, so that its clean-up runs as it would after a Ctrl-C.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import threading
from collections.abc import Iterator

#: The signals turned into :class:`Interrupted` (those that exist on this platform).
SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                if hasattr(signal, name))


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived; ``signum`` says which, ``exit_code`` is 128 + signum."""

    def __init__(self, signum: int) -> None:
        self.signum = int(signum)
        super().__init__(f"interrupted by {signal_name(signum)}")

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class Stopped(Interrupted):
    """Raised by :func:`stop_thread` in a thread running work that must stop (a worker
    process closing, or told to stop by SIGTERM); as a stop signal, SIGTERM by default."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)


def signal_name(signum: int) -> str:
    """``"SIGTERM"`` for 15, etc."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


_received: int | None = None   # the signal already raised (later ones are ignored)
_pending: int | None = None    # a signal that arrived inside deferred()
_deferring = 0


def received() -> int | None:
    """The stop signal received inside :func:`signals_raise`, if any (for code that must
    tell an interruption from another failure of a C library it was inside)."""
    return _received


def pending() -> int | None:
    """A stop signal waiting for the end of a :func:`deferred` block, if any: long C calls
    made inside one (GDAL writes) poll it from their progress callback and stop early."""
    return _pending


def _handler(signum: int, _frame: object) -> None:
    global _received, _pending
    if _received is not None:
        return                      # already unwinding: let the clean-up finish
    if _deferring:
        _pending = signum
        return
    _received = signum
    raise Interrupted(signum)


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """Turn SIGINT, SIGTERM and SIGHUP into :class:`Interrupted` inside the block.

    Only the main thread can install handlers; elsewhere the block runs unchanged.
    """
    global _received, _pending
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    _received = _pending = None
    for s in SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h if h is not None else signal.SIG_DFL)
        _received = _pending = None


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Hold a stop signal until the block ends (for a few renames that belong together)."""
    global _deferring, _pending, _received
    _deferring += 1
    try:
        yield
    finally:
        _deferring -= 1
        if not _deferring and _pending is not None and _received is None:
            signum, _pending = _pending, None
            _received = signum
            raise Interrupted(signum)


def stop_thread(ident: int, signum: int = signal.SIGTERM) -> bool:
    """Stop the Python thread ``ident`` as a stop signal stops the main thread.

    :class:`Stopped` is raised in that thread at its next Python instruction (a long C
    call, an OpenCV filter or a GDAL write, finishes first; GDAL writes that poll
    :func:`pending` stop at their next progress step), unless the thread is inside
    :func:`deferred`, which raises it when its block ends. Returns False when no such
    thread exists.
    """
    global _pending
    if _pending is None and _received is None:
        _pending = signum           # seen by GDAL's progress callbacks and by deferred()
    if _deferring:
        return True
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident),
                                                      ctypes.py_object(Stopped))
    return done == 1
