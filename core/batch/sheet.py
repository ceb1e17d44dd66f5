"""What runs for one sheet, in this process or on a Dask worker: the command's work
function, timed, its failure turned into a result, and the sheet's thumbnail.

Everything here crosses process boundaries, so it is plain data or module-level functions.
"""

from __future__ import annotations

import os
import resource
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2

from ..atomic import atomic_output
from ..errors import InputError
from ..imageio import read_image
from ..interrupts import Stopped, signal_name
from ..tempfiles import remove_stale
from .stopping import running_sheet

#: Failures of one sheet that a batch reports and goes on past (others are bugs: raised).
SHEET_FAILURES = (InputError, OSError, ValueError, RuntimeError, MemoryError)

#: Thumbnail width in the collection summary, pixels.
THUMBNAIL_WIDTH = 240


@dataclass(frozen=True)
class SheetReport:
    """What a command's work function may return about one sheet (all optional).

    Attributes
    ----------
    text : str
        Lines printed for the sheet (as the single-sheet mode prints them).
    intersections : int or None
        Graticule intersections found.
    rmse_px : float or None
        RMS residual of the fitted transform, pixels (georeferencing).
    certainty : float or None
        The margin of the grid values read over the runner-up (natural-log units), when
        the labels printed on the sheet named the grid (georeferencing).
    warnings : tuple of str
        Warnings about the result.
    """

    text: str = ""
    intersections: int | None = None
    rmse_px: float | None = None
    warnings: tuple[str, ...] = ()
    certainty: float | None = None


@dataclass(frozen=True)
class Outcome:
    """The result of one sheet of a batch.

    ``status`` is "ok", "failed" (``error`` says why), "skipped" (outputs already
    complete) or "stopped" (the run, or its worker, stopped before the sheet finished);
    ``seconds`` (None when not known) is the wall time of the work and ``cpu_seconds``
    the CPU time of its process meanwhile (all threads; far below ``seconds`` when the
    machine is shared);
    ``worker`` names the process that ran it (``host:pid``) and ``peak_mb`` its peak
    resident memory so far, MB.
    """

    name: str
    status: str
    seconds: float | None = None
    report: SheetReport = field(default_factory=SheetReport)
    error: str = ""
    worker: str = ""
    peak_mb: float | None = None
    cpu_seconds: float | None = None


def failure_message(exc: BaseException) -> str:
    """One line for a failed sheet: the InputError's own words, else the exception type."""
    return str(exc) if isinstance(exc, InputError) else f"{type(exc).__name__}: {exc}"


def run_sheet(work: Callable[[object], object], item: object, name: str,
              thumbnail: Path | None = None, clean: Sequence[Path] = ()) -> Outcome:
    """Run ``work(item)`` and return its :class:`Outcome` (failures included).

    ``thumbnail``: where to write a small JPEG of the sheet (``item`` is then its path),
    even when the work failed; a sheet that cannot be read gets none. ``clean``: folders
    whose stale temporary files (:mod:`core.tempfiles`: left by a process of this host
    that was killed) are removed first. A worker told to stop (:mod:`.stopping`) ends the
    sheet with status "stopped".
    """
    remove_stale(clean)
    start, cpu = time.perf_counter(), time.process_time()
    report, error, status = SheetReport(), "", "ok"
    try:
        with running_sheet():
            result = work(item)
        if isinstance(result, SheetReport):
            report = result
    except SHEET_FAILURES as exc:
        error, status = failure_message(exc), "failed"
    except Stopped as exc:
        error, status = f"stopped by {signal_name(exc.signum)} before it finished", "stopped"
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    if thumbnail is not None and status != "stopped":
        write_thumbnail(Path(item), thumbnail)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return Outcome(name=name, status=status, seconds=seconds,
                   report=report, error=error, worker=f"{socket.gethostname()}:{os.getpid()}",
                   peak_mb=round(peak_mb, 1), cpu_seconds=cpu)


def write_thumbnail(image: Path, target: Path, width: int = THUMBNAIL_WIDTH) -> bool:
    """Write a ``width`` px wide JPEG of ``image`` to ``target`` atomically; False (nothing
    written) when the image cannot be read."""
    try:
        img = read_image(image, reduce=8)
    except (InputError, OSError, ValueError):
        return False
    h, w = img.shape[:2]
    if w > width:
        img = cv2.resize(img, (width, max(1, round(h * width / w))),
                         interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", cv2.cvtColor(img, cv2.COLOR_RGB2BGR),
                           [cv2.IMWRITE_JPEG_QUALITY, 80])
    if not ok:
        return False
    with atomic_output(target) as tmp:
        tmp.write_bytes(buf.tobytes())
    return True
