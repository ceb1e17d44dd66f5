"""Run a work function over the sheets of a collection: skip those already done, spread the
others over the workers, print each sheet's lines, write the collection summary and report
the failures at the end."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from tqdm import tqdm

from ..cli import EXIT_OK, EXIT_SOME_FAILED, progress
from .execute import sheet_runner
from .options import BatchOptions
from .resume import is_complete, remove_leftovers
from .sheet import Outcome, write_thumbnail
from .summary import carried_over, read_previous, thumbnail_path, write_summary

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
        EXIT_OK when no item failed, EXIT_SOME_FAILED otherwise.
    """
    options = options or BatchOptions()
    items = list(items)
    names = [name(i) for i in items]
    previous = read_previous(summary) if summary is not None else {}
    outcomes: dict[int, Outcome] = {}
    for k, item in enumerate(items):
        if outputs is not None and not options.force and is_complete(
                [p for p in outputs(item) if p is not None],
                inputs(item) if inputs is not None else [item]):
            outcomes[k] = carried_over(Outcome(names[k], "skipped"), previous.get(names[k]))
            if summary is not None and not thumbnail_path(summary, names[k]).is_file():
                write_thumbnail(Path(item), thumbnail_path(summary, names[k]))
    if outcomes:
        print(f"{len(outcomes)} of {len(items)} already done, skipped (--force redoes them)",
              file=sys.stderr)
    jobs = [(k, items[k], names[k], thumbnail_path(summary, names[k]) if summary else None)
            for k in range(len(items)) if k not in outcomes]
    start = time.perf_counter()
    try:
        with sheet_runner(options, len(jobs)) as run:
            for k, outcome in progress(run(work, jobs), total=len(jobs), desc=desc):
                outcomes[k] = outcome
                if outcome.report.text:
                    tqdm.write(outcome.report.text, file=sys.stdout)
    except BaseException:
        if outputs is not None:     # a stopped worker may have left temporary files
            for k, item, *_ in jobs:
                if k not in outcomes:
                    remove_leftovers([p for p in outputs(item) if p is not None], keep=summary)
        raise
    ordered = [outcomes[k] for k in range(len(items))]
    failed = [o for o in ordered if o.status == "failed"]
    if summary is not None:
        paths = write_summary(summary, ordered, f"{desc or 'collection'}: "
                              f"{Path(items[0]).parent if items else summary}")
        print(f"{len(jobs)} processed in {time.perf_counter() - start:.1f} s, "
              f"{len(items) - len(jobs)} skipped, {len(failed)} failed; summary: {paths[1]}",
              file=sys.stderr)
    if failed:
        print(f"{len(failed)} of {len(items)} failed:", file=sys.stderr)
        for o in failed:
            print(f"  {o.name}: {o.error}", file=sys.stderr)
        return EXIT_SOME_FAILED
    return EXIT_OK
