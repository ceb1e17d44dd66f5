"""Corrupt JPEG data: refused by default, accepted on request with a warning per file.

A JPEG damaged in the middle (a bad copy, a broken download whose end is intact) still
decodes: libjpeg fills what it cannot read with grey or garbage and only writes a warning
on the process's standard error ("Corrupt JPEG data: premature end of data segment").
OpenCV gives no other sign, so a sheet half made of garbage would be processed, and a
wrong graticule or georeference written with exit status 0. GDAL reports the same
warnings (``GDAL_ERROR_ON_LIBJPEG_WARNING`` turns them into errors).

:func:`libjpeg_warnings` catches what C code writes on file descriptor 2 while a JPEG is
decoded (other lines are written out again unchanged); :func:`check_decoded` turns
libjpeg's corruption warnings into an InputError naming the file, unless the decoding runs
inside :func:`accepting_corrupt_jpeg` (``--accept-corrupt``), which collects one warning
per file instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError, option
from .gdal_config import gdal_config

#: Beginnings of libjpeg's messages about damaged data (jerror.h: JWRN_*).
CORRUPTION = ("Corrupt JPEG data", "Premature end of JPEG file", "Invalid SOS parameters",
              "Inconsistent progression sequence")

_capture_lock = threading.Lock()
_accepted: list[str] | None = None   # warnings of accepted files; None: refuse
_policy_lock = threading.Lock()


@contextlib.contextmanager
def libjpeg_warnings() -> Iterator[list[str]]:
    """Collect libjpeg's corruption warnings written on stderr (fd 2) during the block.

    Yields a list that is filled when the block ends; every other line written on fd 2
    meanwhile (by any thread) is written to stderr again. One block at a time in the
    process (a lock); without a usable fd 2 (Windows GUI, closed stderr) nothing is
    caught.
    """
    found: list[str] = []
    if sys.platform == "win32":
        yield found
        return
    with _capture_lock:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError, AttributeError):
            yield found
            return
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 2)
            try:
                yield found
            finally:
                os.dup2(saved, 2)
                os.close(saved)
                sink.seek(0)
                text = sink.read().decode("utf-8", "replace")
        other = []
        for line in text.splitlines():
            (found if line.strip().startswith(CORRUPTION) else other).append(line.strip())
        if other:
            os.write(2, ("\n".join(other) + "\n").encode("utf-8", "replace"))


@contextlib.contextmanager
def accepting_corrupt_jpeg(accept: bool = True) -> Iterator[list[str]]:
    """Within the block, decode JPEGs with corrupt data instead of refusing them (when
    ``accept``); yields the list of warnings, one per such file, filled as they are read.

    Process-wide (the decoding may run on other threads of the same sheet): one sheet at a
    time, as commands and Dask workers run them.
    """
    global _accepted
    warnings: list[str] = []
    if not accept:
        yield warnings
        return
    with _policy_lock:
        previous, _accepted = _accepted, warnings
    try:
        yield warnings
    finally:
        with _policy_lock:
            _accepted = previous


def corrupt_jpeg_accepted() -> bool:
    """True inside :func:`accepting_corrupt_jpeg` (for GDAL's own JPEG reads)."""
    return _accepted is not None


def corrupt_jpeg_error(path: str | os.PathLike, detail: str) -> InputError:
    """The error for a JPEG whose data is corrupt (``detail``: libjpeg's words)."""
    return InputError(f"{path}: the JPEG data is damaged (libjpeg: {_words(detail)}), part "
                      "of the image would be garbage; copy or scan it again, or give "
                      f"{option('accept-corrupt')} to use it as decoded",
                      field="accept-corrupt", value=str(path))


def _words(detail: str) -> str:
    text = " ".join(detail.split()).rstrip(".")
    return text.split("libjpeg: ", 1)[-1].split(" (this warning")[0]


def check_decoded(path: str | os.PathLike, warnings: list[str]) -> None:
    """Refuse ``path`` when libjpeg warned of corrupt data while decoding it (InputError),
    or record one warning for it inside :func:`accepting_corrupt_jpeg`."""
    if not warnings:
        return
    accepted = _accepted
    if accepted is None:
        raise corrupt_jpeg_error(path, warnings[0])
    note = (f"{Path(path).name}: the JPEG data is damaged (libjpeg: {_words(warnings[0])}); "
            "used as decoded (--accept-corrupt)")
    with _policy_lock:
        if note not in accepted:
            accepted.append(note)


@contextlib.contextmanager
def gdal_reads_checked(path: str | os.PathLike) -> Iterator[None]:
    """GDAL's reads of the JPEG ``path`` in the block: its libjpeg warnings raise, turned
    into :func:`corrupt_jpeg_error`, unless inside :func:`accepting_corrupt_jpeg`."""
    strict = "FALSE" if corrupt_jpeg_accepted() else "TRUE"
    try:
        with gdal_config(GDAL_ERROR_ON_LIBJPEG_WARNING=strict):
            yield
    except RuntimeError as exc:
        if "libjpeg" in str(exc) and not corrupt_jpeg_accepted():
            raise corrupt_jpeg_error(path, str(exc)) from None
        raise
