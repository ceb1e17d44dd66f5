"""Where the sheets run: one after another in this process, or one Dask task each on a
local cluster (``--workers N``: N processes, one thread each) or on an existing cluster
(``--scheduler``). Either way the outcomes come back as the sheets finish.

The work function travels to the workers by reference (module and name), so it must be a
module-level function or a ``functools.partial`` of one; :func:`importable` turns the
functions of a command run as ``python -m core.x`` (module ``__main__``) into the same
functions of the importable module ``core.x.__main__``.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import logging
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from ..errors import InputError
from .options import BatchOptions
from .sheet import Outcome, run_sheet

#: One sheet to run: (its position in the batch, the item, its name, its thumbnail path).
Job = tuple[int, object, str, Path | None]
Runner = Callable[[Callable[[object], object], Sequence[Job]], Iterator[tuple[int, Outcome]]]

CONNECT_TIMEOUT_S = 15      # reaching an existing scheduler
WORKERS_TIMEOUT_S = 30      # waiting for a worker to join it
START_TIMEOUT_S = 120       # starting a local cluster


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
    for k, item, name, thumb in jobs:
        yield k, run_sheet(work, item, name, thumb)


def _on_cluster(client, work: Callable[[object], object],
                jobs: Sequence[Job]) -> Iterator[tuple[int, Outcome]]:
    from distributed import as_completed
    from distributed.scheduler import KilledWorker

    work = importable(work)
    run = uuid.uuid4().hex[:8]
    futures = {client.submit(run_sheet, work, item, name, thumb, key=f"sheet-{run}-{k}",
                             pure=False): (k, name) for k, item, name, thumb in jobs}
    for future in as_completed(futures):
        k, name = futures.pop(future)
        try:
            yield k, future.result()
        except KilledWorker:
            yield k, Outcome(name, "failed", error="the worker process running it died "
                                                   "(out of memory?); give fewer --workers")
        except (ImportError, RuntimeError) as exc:
            # run_sheet returns the sheets' own failures: these come from Dask itself, most
            # often a scheduler or worker that cannot unpickle the task (no project there)
            first = " ".join(str(exc).split()).split(". ")[0] or type(exc).__name__
            raise InputError(f"the Dask cluster cannot run the sheets ({first}); install this "
                             "project on the scheduler and every worker (or put it on their "
                             "PYTHONPATH)") from None


@contextlib.contextmanager
def sheet_runner(options: BatchOptions, n_jobs: int) -> Iterator[Runner]:
    """A function running jobs and yielding ``(position, Outcome)`` as they finish.

    In this process when there is nothing to do, or no scheduler is given and at most one
    worker would be busy; else on a Dask cluster that is closed when the block ends,
    however it ends (an error, Ctrl-C, a stop signal). Local workers are fresh
    interpreters (Dask's default start method, spawn): forking this process instead would
    start them faster but can hang them when it has used OpenCV's thread pool.
    """
    if n_jobs == 0 or (options.scheduler is None and min(options.workers, n_jobs) <= 1):
        yield _in_process
        return
    with _dask_client(options, n_jobs) as client:
        yield functools.partial(_on_cluster, client)


@contextlib.contextmanager
def _dask_client(options: BatchOptions, n_jobs: int) -> Iterator[object]:
    from distributed import Client, LocalCluster

    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.ERROR)     # no start-up and shut-down chatter on stderr
    cluster = None
    try:
        if options.scheduler is not None:
            client = _connect(Client, options.scheduler)
        else:
            cluster = LocalCluster(n_workers=min(options.workers, n_jobs),
                                   threads_per_worker=1, processes=True,
                                   dashboard_address=None, silence_logs=logging.ERROR,
                                   timeout=START_TIMEOUT_S)
            client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()
        log.setLevel(level)


def _connect(client_class, address: str):
    try:
        client = client_class(address, timeout=CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"cannot reach the Dask scheduler at {address} ({exc}); start it "
                         "with `dask scheduler` or correct --scheduler / "
                         "$DASK_SCHEDULER_ADDRESS", field="scheduler", value=address) from None
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
    except (OSError, TimeoutError):
        client.close()
        raise InputError(f"the Dask scheduler at {address} has no worker; start some with "
                         f"`dask worker {address}`", field="scheduler", value=address) from None
    return client
