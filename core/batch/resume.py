"""Resumable collections: a sheet is done when every output it must have exists, is newer
than every file it was made from, and is whole.

Outputs are renamed into place only once complete (:mod:`core.atomic`); a GeoPackage is
also opened to check it has its layers (:func:`whole_geopackage`), so a file written by an
older version that did not check its writes is done again rather than taken for done."""

from __future__ import annotations

import contextlib
import os
import sqlite3
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
        if p.suffix.lower() == ".gpkg" and not whole_geopackage(p):
            return False
        oldest = st.st_mtime if oldest is None else min(oldest, st.st_mtime)
    for p in inputs:
        if p is None:
            continue
        with contextlib.suppress(OSError):
            if Path(p).stat().st_mtime > oldest:
                return False
    return True


def whole_geopackage(path: str | os.PathLike) -> bool:
    """True when ``path`` is a GeoPackage whose every listed table exists (at least one),
    read with SQLite (read-only, no GDAL: a few milliseconds)."""
    uri = Path(path).resolve().as_uri() + "?mode=ro"
    try:
        with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=1.0)) as db:
            tables = [t for (t,) in db.execute("SELECT table_name FROM gpkg_contents")]
            if not tables:
                return False
            for t in tables:
                db.execute(f'SELECT 1 FROM "{t.replace(chr(34), chr(34) * 2)}" LIMIT 1')
    except (sqlite3.Error, OSError, ValueError):
        return False
    return True
