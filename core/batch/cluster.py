"""The Dask cluster of a directory run: a local one started for the run, or an existing one.

A local cluster (``--workers N``) is N worker processes, one thread each, that:

- never see a Ctrl-C or a closed terminal: SIGINT and SIGHUP sent to the whole process
  group (what a terminal does) are blocked in them, and in multiprocessing's resource
  tracker, so only the command reacts (one line, exit 128 + the signal) and closes the
  cluster itself;
- stop the sheet they are running when they close or receive SIGTERM
  (:class:`SheetStopper`): its temporary files and folders go with it;
- keep quiet: Dask's log lines and warnings (its dashboard's "Port 8787 is already in
  use", shutdown chatter) are hidden in the command and in the workers unless
  ``--cluster-logs`` asks for them. The dashboard listens on a free port of 127.0.0.1.

An existing cluster (``--scheduler``) is reached within :data:`CONNECT_TIMEOUT_S` and must
have a worker within :data:`WORKERS_TIMEOUT_S`, else an InputError.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing.resource_tracker
import os
import signal
import threading
import warnings
from collections.abc import Iterator

from distributed import Client, LocalCluster
from distributed.diagnostics.plugin import WorkerPlugin

from ..errors import InputError
from .stopping import stop_running_sheets

CONNECT_TIMEOUT_S = 15      # reaching an existing scheduler
WORKERS_TIMEOUT_S = 30      # waiting for a worker to join it
START_TIMEOUT_S = 120       # starting a local cluster
STOP_WAIT_S = 3.0           # a closing worker waits this long for its sheet to unwind
#: Signals a terminal sends to the whole process group, kept from the workers.
TERMINAL_SIGNALS = frozenset(getattr(signal, n) for n in ("SIGINT", "SIGHUP")
                             if hasattr(signal, n))
_DASK_MODULES = r"(distributed|dask|tornado)(\.|$)"


@contextlib.contextmanager
def quiet_dask(show: bool = False) -> Iterator[None]:
    """Hide Dask's log lines and warnings in this process for the duration of the block
    (``show``: leave them as Dask configures them)."""
    if show:
        yield
        return
    filters = warnings.filters[:]
    warnings.filterwarnings("ignore", module=_DASK_MODULES)
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(logging.NOTSET)
        warnings.filters[:] = filters


@contextlib.contextmanager
def _terminal_signals_blocked() -> Iterator[None]:
    """Block :data:`TERMINAL_SIGNALS` in the calling thread while the block starts
    processes: threads and processes started meanwhile inherit the blocked set (worker
    processes keep it through ``exec``; Dask's threads that start later workers, after a
    worker died, too); signals that arrive meanwhile wait until the block ends."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, TERMINAL_SIGNALS)
    try:
        # the resource tracker, started now rather than by a Dask thread, survives SIGHUP
        multiprocessing.resource_tracker.ensure_running()
        signal.pthread_sigmask(signal.SIG_BLOCK, TERMINAL_SIGNALS)  # ensure_running unblocks
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class SheetStopper(WorkerPlugin):
    """Runs in each worker of a local cluster: the sheet it runs stops cleanly when the
    worker closes, or when the worker receives SIGTERM (it then exits with status 143 and
    the sheet runs again on another worker); Dask's messages stay hidden (``show``)."""

    name = "graticule-sheet-stopper"

    def __init__(self, show_logs: bool = False) -> None:
        self.show_logs = show_logs

    def setup(self, worker) -> None:
        if not self.show_logs:
            warnings.filterwarnings("ignore", module=_DASK_MODULES)
            logging.disable(logging.CRITICAL)
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _exit_on_sigterm)

    def teardown(self, worker) -> None:
        if str(getattr(worker.status, "name", worker.status)).startswith("closing"):
            stop_running_sheets(STOP_WAIT_S)


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    stop_running_sheets(STOP_WAIT_S, signum)
    os._exit(128 + signum)


@contextlib.contextmanager
def local_cluster(n_workers: int, show_logs: bool = False) -> Iterator[Client]:
    """A client of a new local cluster of ``n_workers`` single-threaded processes, closed
    (its workers stopped, their sheets unwound) when the block ends, however it ends."""
    cluster = None
    with quiet_dask(show_logs):
        try:
            with _terminal_signals_blocked():   # a signal now waits until cluster is set
                cluster = LocalCluster(
                    n_workers=n_workers, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=None,
                    scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                    silence_logs=logging.WARNING if show_logs else logging.CRITICAL,
                    timeout=START_TIMEOUT_S)
            with Client(cluster) as client:
                client.register_plugin(SheetStopper(show_logs))
                yield client
        finally:
            if cluster is not None:
                cluster.close()


@contextlib.contextmanager
def existing_cluster(address: str, show_logs: bool = False) -> Iterator[Client]:
    """A client of the cluster whose scheduler is at ``address``; InputError when it
    cannot be reached or has no worker."""
    with quiet_dask(show_logs):
        try:
            client = Client(address, timeout=CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {address} ({exc}); start "
                             "it with `dask scheduler` or correct --scheduler / "
                             "$DASK_SCHEDULER_ADDRESS", field="scheduler",
                             value=address) from None
        with client:
            try:
                client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
            except (OSError, TimeoutError):
                raise InputError(f"the Dask scheduler at {address} has no worker; start some "
                                 f"with `dask worker {address}`", field="scheduler",
                                 value=address) from None
            yield client
