"""Where a directory run goes by default: one process, or a local Dask cluster.

One process runs the sheets one after another, each step of a sheet on every core where
the step is threaded (OpenCV, GDAL); a local cluster of W worker processes runs W sheets
at once, one thread each, after a start of a few seconds (fresh interpreters importing
the project). Which is faster depends on the cores, on how many sheets there are and how
big, and on the command: how much of one sheet's work already uses every core in one
process. :func:`choose_workers` estimates both from a :class:`WorkProfile` of the command
measured with ``make bench-scale`` (docs/whole-atlases.md, "Where the sheets run") and
takes the cluster only when it is clearly faster.

The model, for N sheets of ``mpx_i`` megapixels on C cores:

- one sheet's work on one thread: ``T_i = seconds_per_mpx * mpx_i``;
- one process: ``T_one = sum_i T_i * (1 - threaded + threaded / C)`` (Amdahl: the
  ``threaded`` share of the work spreads over the C cores);
- a local cluster of ``W = min(C, N, memory / peak)`` workers:
  ``T_cluster = start_s + max(sum_i T_i * contention / W, max_i T_i * contention)``
  (``contention``: how much slower a single-threaded sheet runs beside W - 1 others,
  sharing memory bandwidth and caches, than alone);
- the cluster when ``T_cluster * (1 + MARGIN) < T_one``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

#: The cluster must be estimated this much faster than one process to be chosen: when
#: the two are that close, one process is kept (less memory, lines in sheet order).
MARGIN = 0.05


@dataclass(frozen=True)
class WorkProfile:
    """How one sheet of a command uses the machine (``make bench-scale --command``).

    Attributes
    ----------
    seconds_per_mpx : float
        Seconds of one sheet's work on a single thread, per megapixel of the sheet.
    threaded : float
        Share (0-1) of that work that one process spreads over every core.
    contention : float
        Slow-down (>= 1) of a single-threaded sheet running beside others on the other
        cores, against running alone.
    peak_mb_per_mpx : float
        Peak memory of a worker process, MB per megapixel of the sheet.
    start_s : float
        Seconds to start a local cluster and reach its first sheet.
    """

    seconds_per_mpx: float
    threaded: float
    contention: float
    peak_mb_per_mpx: float
    start_s: float = 2.5


@dataclass(frozen=True)
class Plan:
    """The way chosen: ``workers`` 1 is this process; ``reason`` says why, for the user."""

    workers: int
    reason: str
    one_process_s: float
    cluster_s: float


def choose_workers(profile: WorkProfile, megapixels: Sequence[float], cores: int,
                   memory_mb: float | None = None) -> Plan:
    """Choose between one process and a local cluster for sheets of ``megapixels``.

    Parameters
    ----------
    profile : WorkProfile
        The command's figures.
    megapixels : sequence of float
        Size of each sheet to do, Mpx (width x height / 1e6).
    cores : int
        Cores this process may use.
    memory_mb : float, optional
        Memory available to the workers, MB (default: no limit).

    Returns
    -------
    Plan

    Examples
    --------
    >>> p = WorkProfile(seconds_per_mpx=0.01, threaded=0.45, contention=1.3,
    ...                 peak_mb_per_mpx=9)
    >>> choose_workers(p, [72.0] * 6, cores=2).workers
    1
    >>> choose_workers(p, [72.0] * 200, cores=16).workers
    16
    """
    n = len(megapixels)
    seconds = [profile.seconds_per_mpx * m for m in megapixels]
    total = sum(seconds)
    one = total * (1 - profile.threaded + profile.threaded / max(1, cores))
    workers = min(cores, n)
    if memory_mb is not None and megapixels:
        per_worker = profile.peak_mb_per_mpx * max(megapixels)
        workers = min(workers, max(1, math.floor(memory_mb / max(per_worker, 1.0))))
    if workers <= 1:
        why = ("one sheet" if n <= 1 else "one core" if cores <= 1
               else "memory for one worker only")
        return Plan(1, why, one, math.inf)
    cluster = profile.start_s + max(total * profile.contention / workers,
                                    max(seconds) * profile.contention)
    if cluster * (1 + MARGIN) < one:
        return Plan(workers, f"about {one / cluster:.1f}x faster than one process "
                             f"(estimated {cluster:.0f} s against {one:.0f} s)", one, cluster)
    return Plan(1, f"as fast as a local cluster of {workers} workers here (estimated "
                   f"{one:.0f} s against {cluster:.0f} s with its start)", one, cluster)


#: The commands' figures ("work" names of :class:`~core.batch.BatchOptions`), measured on
#: the 2-core machine of docs/atlas-runs.md. graticule: the quiet runs of 2026-12-06 (8000 px
#: sheets: 0.35-0.43 s wall and 0.48-0.55 s CPU in one process, 0.72 s in each of two
#: workers, a cluster's start about 2 s). georef (``--gcps-only``), maparea and blocks:
#: ``make bench-scale --calibrate`` of 2026-12-07 on a busy machine (load 8-14; each
#: profile's start_s from the same runs, so their ratios hold). shapes: blocks' figures
#: with the time and memory of the shapes level in docs/maparea-blocks.md (about twice).
PROFILES: dict[str, WorkProfile] = {
    "graticule": WorkProfile(seconds_per_mpx=0.0078, threaded=0.45, contention=1.45,
                             peak_mb_per_mpx=10.0, start_s=2.5),
    "georef": WorkProfile(seconds_per_mpx=0.092, threaded=0.26, contention=1.85,
                          peak_mb_per_mpx=11.0, start_s=4.1),
    "maparea": WorkProfile(seconds_per_mpx=0.050, threaded=0.21, contention=1.17,
                           peak_mb_per_mpx=5.4, start_s=5.3),
    "blocks": WorkProfile(seconds_per_mpx=0.36, threaded=0.52, contention=1.0,
                          peak_mb_per_mpx=17.0, start_s=3.7),
    "shapes": WorkProfile(seconds_per_mpx=0.72, threaded=0.52, contention=1.0,
                          peak_mb_per_mpx=33.0, start_s=3.7),
}


@dataclass(frozen=True)
class Choice:
    """Where a run goes: ``workers`` local processes (1: this process; ignored with a
    scheduler) and the line that tells the user (empty when there is nothing to do)."""

    workers: int
    say: str


def plan_for(options, items: Sequence[object]) -> Choice:
    """Where the ``items`` (sheet paths) of a run with ``options`` (a
    :class:`~core.batch.BatchOptions`) go, and the line saying so."""
    from ..cores import usable_cores

    n = len(items)
    sheets = f"{n} sheet{'s' if n != 1 else ''} to do"
    if n == 0:
        return Choice(1, "")
    if options.scheduler is not None:
        return Choice(1, f"{sheets} on the Dask cluster at {options.scheduler}")
    if options.workers is not None:
        workers = min(options.workers, n)
        return Choice(workers, f"{sheets}, {_where(workers)} (--workers {options.workers})")
    profile = PROFILES[options.work or "graticule"]
    plan = choose_workers(profile, sheet_megapixels(items), usable_cores(),
                          available_memory_mb())
    return Choice(plan.workers, f"{sheets}, {_where(plan.workers)}: {plan.reason} "
                                "(--workers N chooses)")


def _where(workers: int) -> str:
    return ("one after another in this process" if workers <= 1
            else f"on a local Dask cluster of {workers} processes")


def sheet_megapixels(items: Sequence[object]) -> list[float]:
    """The size of each sheet, Mpx, from its header (an item that is not a readable image
    counts as the mean of the others)."""
    from PIL import Image

    sizes: list[float | None] = []
    for item in items:
        try:
            with Image.open(item) as im:
                sizes.append(im.size[0] * im.size[1] / 1e6)
        except Exception:   # not a path, not an image, unreadable: its work fails fast
            sizes.append(None)
    known = [s for s in sizes if s is not None]
    mean = sum(known) / len(known) if known else 0.0
    return [mean if s is None else s for s in sizes]


def available_memory_mb() -> float | None:
    """Memory available for new processes, MB (Linux's MemAvailable), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        return None
    return None
