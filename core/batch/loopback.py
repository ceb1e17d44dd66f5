"""A throwaway Dask cluster of separate processes on this machine (127.0.0.1): a
``dask scheduler`` and ``dask worker`` processes, started like on a real cluster. Used by
the tests and the scale benchmark to run directory modes with ``--scheduler``.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path


def _dask_command() -> str:
    """The ``dask`` command of this Python environment."""
    beside = Path(sys.executable).with_name("dask")
    return str(beside) if beside.exists() else "dask"


def _stop(procs: list[subprocess.Popen], timeout: float) -> None:
    for p in reversed(procs):        # workers first, then the scheduler
        if p.poll() is None:
            p.terminate()
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=timeout)


@contextlib.contextmanager
def loopback_cluster(workdir: Path, n_workers: int = 2, *,
                     env: Mapping[str, str] | None = None,
                     timeout: float = 60.0) -> Iterator[str]:
    """Start a scheduler and ``n_workers`` single-threaded workers on 127.0.0.1.

    Parameters
    ----------
    workdir : Path
        Folder for the scheduler file, the workers' scratch space and the logs
        (``scheduler.log``, ``workers.log``).
    n_workers : int
        Worker processes (one thread each).
    env : mapping, optional
        Environment of the processes (default: this one), e.g. with ``PYTHONPATH`` set to
        the project.
    timeout : float
        Seconds to wait for the cluster to be up with all its workers, and for each
        process to stop at the end.

    Yields
    ------
    str
        The scheduler address (``tcp://127.0.0.1:PORT``); every process is stopped when the
        block ends.
    """
    from distributed import Client

    workdir.mkdir(parents=True, exist_ok=True)
    scheduler_file = workdir / "scheduler.json"
    scheduler_file.unlink(missing_ok=True)
    env = dict(os.environ if env is None else env)
    dask = _dask_command()
    procs: list[subprocess.Popen] = []
    try:
        with (workdir / "scheduler.log").open("w") as log:
            procs.append(subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                 "--scheduler-file", str(scheduler_file)], env=env, stdout=log, stderr=log))
        deadline = time.monotonic() + timeout
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            if procs[0].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the Dask scheduler did not start; see {workdir}")
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        with (workdir / "workers.log").open("w") as log:
            procs.append(subprocess.Popen(
                [dask, "worker", address, "--nworkers", str(n_workers), "--nthreads", "1",
                 "--host", "127.0.0.1", "--no-dashboard", "--local-directory", str(workdir),
                 "--death-timeout", str(int(timeout))], env=env, stdout=log, stderr=log))
        with Client(address, timeout=timeout) as client:
            client.wait_for_workers(n_workers, timeout=max(1.0, deadline - time.monotonic()))
        yield address
    finally:
        _stop(procs, timeout)
