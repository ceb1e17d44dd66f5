"""Resumable collections: a sheet is done when every output it must have exists and is
newer than every file it was made from."""

from __future__ import annotations

import contextlib
import glob
import os
from collections.abc import Iterable
from pathlib import Path


def is_complete(outputs: Iterable[str | os.PathLike],
                inputs: Iterable[str | os.PathLike | None]) -> bool:
    """True when every output is a non-empty file at least as new as every input.

    Parameters
    ----------
    outputs : iterable of paths
        The files a finished sheet always has (optional extras left out). None is False.
    inputs : iterable of paths
        The files the outputs were made from (the sheet, its mask ...); None and missing
        entries are skipped.
    """
    outputs = [Path(p) for p in outputs]
    if not outputs:
        return False
    oldest = None
    for p in outputs:
        try:
            st = p.stat()
        except OSError:
            return False
        if not p.is_file() or st.st_size == 0:
            return False
        oldest = st.st_mtime if oldest is None else min(oldest, st.st_mtime)
    for p in inputs:
        if p is None:
            continue
        with contextlib.suppress(OSError):
            if Path(p).stat().st_mtime > oldest:
                return False
    return True


def remove_leftovers(outputs: Iterable[str | os.PathLike], keep: Path | None = None) -> None:
    """Remove the temporary files of :mod:`core.atomic` that a worker stopped in the middle
    of a sheet left beside ``outputs`` (``.<stem>.tmp<pid>...``), and their folders when
    that leaves them empty (except ``keep``)."""
    folders = set()
    for p in map(Path, outputs):
        if not p.parent.is_dir():
            continue
        for tmp in p.parent.glob(f".{glob.escape(p.stem)}.tmp*"):
            with contextlib.suppress(OSError):
                tmp.unlink()
        folders.add(p.parent)
    for folder in folders - {keep}:
        with contextlib.suppress(OSError):
            folder.rmdir()       # only when empty
