"""Where the sheets run: one after another in this process, or one Dask task each on a
local cluster (``--workers N``: N processes, one thread each) or on an existing cluster
(``--scheduler``). Either way the outcomes come back as the sheets finish.

A run on a cluster ends within a bounded time when the cluster fails under it: a lost
scheduler at once, a cluster with no worker left after :data:`NO_WORKER_TIMEOUT_S`; both
raise :class:`ClusterLostError` (one ``error:`` line, exit 2) after the
outcomes of the sheets that finished.

The work function travels to the workers by reference (module and name), so it must be a
module-level function or a ``functools.partial`` of one; :func:`importable` turns the
functions of a command run as ``python -m core.x`` (module ``__main__``) into the same
functions of the importable module ``core.x.__main__``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import os
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..errors import InputError
from .sheet import Outcome, run_sheet

#: One sheet to run: (its position in the batch, the item, its name, its thumbnail path,
#: the folders whose stale temporary files the worker removes first).
Job = tuple[int, object, str, Path | None, tuple[Path, ...]]
Runner = Callable[[Callable[[object], object], Sequence[Job]], Iterator[tuple[int, Outcome]]]

#: Seconds a cluster may have no worker before the run ends (environment variable
#: ``GRATICULE_NO_WORKER_TIMEOUT`` overrides it).
NO_WORKER_TIMEOUT_S = 30.0
POLL_S = 1.0                # how often a run on a cluster checks the cluster is still there
READY_STEP_S = 0.05         # how often it looks for sheets that finished meanwhile


class ClusterLostError(InputError):
    """The cluster can no longer run the sheets: its scheduler is gone, or it has had no
    worker for :func:`no_worker_timeout` seconds."""


def importable(work: Callable) -> Callable:
    """``work`` with functions of the ``__main__`` module replaced by the same functions
    of that module's importable name, so that other processes can unpickle them."""
    if isinstance(work, functools.partial):
        return functools.partial(importable(work.func), *work.args, **work.keywords)
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    if getattr(work, "__module__", None) == "__main__" and spec is not None:
        module = importlib.import_module(spec.name)
        return functools.reduce(getattr, work.__qualname__.split("."), module)
    return work


def _in_process(work: Callable[[object], object],
                jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
    for k, item, name, thumb, clean in jobs:
        yield k, run_sheet(work, item, name, thumb, clean)


def no_worker_timeout() -> float:
    """Seconds a cluster may have no worker before the run ends (see
    :data:`NO_WORKER_TIMEOUT_S`)."""
    text = os.environ.get("GRATICULE_NO_WORKER_TIMEOUT", "")
    try:
        return max(1.0, float(text)) if text else NO_WORKER_TIMEOUT_S
    except ValueError:
        raise InputError(f"GRATICULE_NO_WORKER_TIMEOUT={text!r} is not a number of "
                         "seconds") from None


def _on_cluster(client, where: str, work: Callable[[object], object],
                jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
    """Run ``jobs`` on the cluster of ``client``, yielding the outcomes as the sheets finish.

    Dask fetches each outcome in the background (never a blocking call here): a worker
    may die between the end of a sheet and the fetch of its outcome (the OOM killer, a
    whole cluster killed), and Dask then runs the sheet again, which waits for a worker
    forever when none is left. This loop meanwhile watches the cluster and ends the run
    (:class:`ClusterLostError`) when its scheduler is gone or it has had no worker for
    :func:`no_worker_timeout` seconds; a worker that joins in time (a nanny's new worker
    process) runs the sheet again and the run goes on.
    """
    from distributed import as_completed

    work = importable(work)
    run = uuid.uuid4().hex[:8]
    futures = {client.submit(run_sheet, work, item, name, thumb, clean,
                             key=f"sheet-{run}-{k}", pure=False): (k, name)
               for k, item, name, thumb, clean in jobs}
    finished = as_completed(futures, loop=client.loop, with_results=True,
                            raise_errors=False)
    limit, idle_since = no_worker_timeout(), None
    lost = ClusterLostError(f"lost the Dask scheduler at {where} (it stopped answering)")
    while futures:
        for future, result in _finished(finished, POLL_S):
            k, name = futures.pop(future)
            outcome = _outcome(client, result, name)
            if outcome is None:
                raise lost
            yield k, outcome
        if not futures:
            return
        if client.status not in ("running", "newly-created"):
            raise lost
        try:
            workers = client.scheduler_info().get("workers", {})
        except OSError:             # the connection to the scheduler broke
            raise lost from None
        if workers:
            idle_since = None
        elif idle_since is None:
            idle_since = time.monotonic()
        elif time.monotonic() - idle_since > limit:
            raise ClusterLostError(f"the Dask cluster at {where} has had no worker for "
                                   f"{limit:.0f} s; start workers with `dask worker {where}`")


def _finished(finished, timeout: float) -> list[tuple[object, object]]:
    """The ``(future, result)`` pairs of ``finished`` (a ``distributed.as_completed`` with
    results) ready now, waiting up to ``timeout`` s for a first one."""
    deadline = time.monotonic() + timeout
    while not finished.has_ready() and time.monotonic() < deadline:
        time.sleep(READY_STEP_S)
    return finished.next_batch(block=False)


def _outcome(client, result: object, name: str) -> Outcome | None:
    """The outcome of a sheet from what Dask fetched for it (``as_completed`` without
    raising): the sheet's Outcome, its task's error as ``(type, exception, traceback)``, or
    a CancelledError. None when it was cancelled because the scheduler went away."""
    from distributed.scheduler import KilledWorker

    if isinstance(result, Outcome):
        return result
    if isinstance(result, tuple) and len(result) == 3 and isinstance(result[1], BaseException):
        exc = result[1]
        if isinstance(exc, KilledWorker):
            return Outcome(name, "failed", error="the worker process running it died "
                                                 "(out of memory?); give fewer --workers")
        if isinstance(exc, ImportError | RuntimeError):
            # run_sheet returns the sheets' own failures: these come from Dask itself, most
            # often a scheduler or worker that cannot unpickle the task (no project there)
            first = " ".join(str(exc).split()).split(". ")[0] or type(exc).__name__
            raise InputError(f"the Dask cluster cannot run the sheets ({first}); install "
                             "this project on the scheduler and every worker (or put it on "
                             "their PYTHONPATH)") from None
        raise exc.with_traceback(result[2])
    # cancelled
    if client.status not in ("running", "newly-created"):
        return None
    return Outcome(name, "failed", error="the Dask cluster dropped it (cancelled); run "
                                         "the command again")


@contextlib.contextmanager
def sheet_runner(workers: int, scheduler: str | None = None,
                 show_logs: bool = False) -> Iterator[Runner]:
    """A function running jobs and yielding ``(position, Outcome)`` as they finish.

    In this process when ``workers`` is 1 and no ``scheduler`` is given; else on a Dask
    cluster (a local one of ``workers`` processes, or the one at ``scheduler``) that is
    closed when the block ends, however it ends (an error, Ctrl-C, a stop signal). Local
    workers are fresh interpreters (Dask's default start method, spawn): forking this
    process instead would start them faster but can hang them when it has used OpenCV's
    thread pool.
    """
    if scheduler is None and workers <= 1:
        yield _in_process
        return
    from .cluster import existing_cluster, local_cluster

    if scheduler is not None:
        with existing_cluster(scheduler, show_logs) as client:
            yield functools.partial(_on_cluster, client, scheduler)
    else:
        with local_cluster(workers, show_logs) as client:
            yield functools.partial(_on_cluster, client, "the local cluster")
