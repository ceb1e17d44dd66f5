"""Run a work function over the sheets of a collection: skip those already done, spread the
others over the workers, print each sheet's lines, write the collection summary and report
the failures at the end.

Whatever ends the run (its end, Ctrl-C or another stop signal, a lost cluster), the summary
lists the sheets that finished, and the temporary files of processes that died under it
(a worker killed by the system) are removed once those processes are gone
(:mod:`core.tempfiles`); those of other live processes, another run into the same folder,
are left alone.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from ..cli import EXIT_OK, EXIT_SOME_FAILED, progress
from ..errors import InputError
from ..interrupts import Interrupted, signal_name
from ..tempfiles import remove_stale
from .execute import ClusterLostError, sheet_runner
from .options import BatchOptions
from .plan import plan_for
from .resume import is_complete
from .sheet import Outcome, write_thumbnail
from .summary import carried_over, read_previous, thumbnail_path, thumbs_folder, write_summary

T = TypeVar("T")
PathList = Callable[[T], Sequence[Path | None]]


def run_batch(items: Sequence[T], work: Callable[[T], object], *,
              name: Callable[[T], str] = str, desc: str = "",
              options: BatchOptions | None = None, outputs: PathList | None = None,
              inputs: PathList | None = None, summary: Path | None = None) -> int:
    """Apply ``work`` to every item, going on past failures; report them at the end.

    Parameters
    ----------
    items : sequence
        The sheets (paths) or other items.
    work : callable
        ``work(item)``; may return a :class:`~core.batch.SheetReport`. A failure is an
        InputError, OSError, ValueError, RuntimeError or MemoryError. With more than one
        worker it must be picklable: a module-level function or a ``functools.partial``.
    name : callable
        The item's name in messages and in the summary.
    desc : str
        Progress bar label (the bar shows on a terminal only).
    options : BatchOptions, optional
        Workers, scheduler and ``force``; default: one after another in this process.
    outputs, inputs : callable, optional
        The files an item must have when done, and those they are made from (default: the
        item). With ``outputs``, items whose outputs are complete and newer than their
        inputs are skipped unless ``options.force``.
    summary : Path, optional
        Folder of the collection summary (``summary.csv``, ``summary.html``, thumbnails).

    Returns
    -------
    int
        EXIT_OK when no item failed, EXIT_SOME_FAILED otherwise. A stop signal
        (KeyboardInterrupt) or a lost cluster (:class:`~core.batch.execute.ClusterLostError`)
        is raised again once the summary of the finished sheets is written.
    """
    tell = options is not None       # a command's directory mode: say where the sheets go
    options = options or BatchOptions()
    items = list(items)
    names = [name(i) for i in items]
    outs = [[p for p in outputs(i) if p is not None] if outputs is not None else []
            for i in items]
    folders = _folders(outs, summary)
    remove_stale(folders)            # what processes killed in earlier runs left
    previous = read_previous(summary) if summary is not None else {}
    outcomes: dict[int, Outcome] = {}
    for k, item in enumerate(items):
        if outputs is not None and not options.force and is_complete(
                outs[k], inputs(item) if inputs is not None else [item]):
            outcomes[k] = carried_over(Outcome(names[k], "skipped"), previous.get(names[k]))
            if summary is not None and not thumbnail_path(summary, names[k]).is_file():
                write_thumbnail(Path(item), thumbnail_path(summary, names[k]))
    if outcomes:
        print(f"{len(outcomes)} of {len(items)} already done, skipped (--force redoes them)",
              file=sys.stderr)
    jobs = [(k, items[k], names[k], thumbnail_path(summary, names[k]) if summary else None,
             _folders([outs[k]], None)) for k in range(len(items)) if k not in outcomes]
    plan = plan_for(options, [items[k] for k, *_ in jobs])
    if plan.say and tell:
        print(plan.say, file=sys.stderr)
    start = time.perf_counter()
    try:
        with sheet_runner(plan.workers, options.scheduler, options.cluster_logs) as run:
            for k, outcome in progress(run(work, jobs), total=len(jobs), desc=desc):
                outcomes[k] = outcome
                if outcome.report.text:
                    tqdm.write(outcome.report.text, file=sys.stdout)
    except (KeyboardInterrupt, ClusterLostError) as exc:
        if summary is not None:
            _summary_of_a_stopped_run(exc, summary, items, names, outcomes, desc)
        if isinstance(exc, ClusterLostError):
            done = sum(o.status != "skipped" for o in outcomes.values())
            raise ClusterLostError(f"{exc}; {done} of {len(jobs)} sheets finished"
                              + (f" (summary: {summary / 'summary.html'})" if summary else "")
                              + "; run the command again to do the rest") from None
        raise
    finally:
        remove_stale(folders)        # the workers of this run are gone by now
        _remove_empty_folders(outs, outcomes, keep=summary)
    ordered = [outcomes[k] for k in range(len(items))]
    failed = [o for o in ordered if o.status != "ok" and o.status != "skipped"]
    if summary is not None:
        paths = write_summary(summary, ordered, _title(desc, items, summary))
        print(f"{len(jobs)} processed in {time.perf_counter() - start:.1f} s, "
              f"{len(items) - len(jobs)} skipped, {len(failed)} failed; summary: {paths[1]}",
              file=sys.stderr)
    if failed:
        print(f"{len(failed)} of {len(items)} failed:", file=sys.stderr)
        for o in failed:
            print(f"  {o.name}: {o.error}", file=sys.stderr)
        return EXIT_SOME_FAILED
    return EXIT_OK


def _title(desc: str, items: Sequence[object], summary: Path) -> str:
    return f"{desc or 'collection'}: {Path(items[0]).parent if items else summary}"


def _folders(outs: Sequence[Sequence[Path]], summary: Path | None) -> tuple[Path, ...]:
    """Every folder the run (or one sheet: ``outs`` of one) writes in: the outputs'
    folders, and the summary's and its thumbnails' when ``summary`` is given."""
    found = dict.fromkeys(p.parent for paths in outs for p in paths)
    if summary is not None:
        found.update(dict.fromkeys([summary, thumbs_folder(summary)]))
    return tuple(found)


def _remove_empty_folders(outs: Sequence[Sequence[Path]], outcomes: dict[int, Outcome],
                          keep: Path | None) -> None:
    """Remove the output folders of sheets that did not finish when nothing is in them
    (a worker killed after creating the folder of a sheet's outputs)."""
    for k, paths in enumerate(outs):
        if k in outcomes and outcomes[k].status in ("ok", "skipped"):
            continue
        for folder in {p.parent for p in paths} - {keep}:
            with contextlib.suppress(OSError):
                folder.rmdir()       # only when empty


def _summary_of_a_stopped_run(exc: BaseException, summary: Path, items: Sequence[object],
                              names: Sequence[str], outcomes: dict[int, Outcome],
                              desc: str) -> None:
    """Write the summary of a run stopped by a signal or a lost cluster: the sheets that
    finished, and the others as "stopped" (a summary that cannot be written is left)."""
    why = (f"interrupted by {signal_name(exc.signum)}" if isinstance(exc, Interrupted)
           else "interrupted by SIGINT" if isinstance(exc, KeyboardInterrupt) else str(exc))
    rows = [outcomes.get(k) or Outcome(names[k], "stopped", error=f"not finished: {why}")
            for k in range(len(items))]
    with contextlib.suppress(OSError, InputError):
        write_summary(summary, rows, _title(desc, items, summary))
