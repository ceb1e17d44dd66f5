"""Write outputs atomically: to a temporary name beside the target, renamed when complete.

A crash, an error or Ctrl-C never leaves a half-written file under the final name. The
temporary name keeps the target's suffix, because OpenCV and GDAL pick the format from it,
and names the process that made it, so that a run removes only its own temporary files and
those whose maker is gone (:mod:`core.tempfiles`).
"""

from __future__ import annotations

import contextlib
import glob
import itertools
import os
import shutil
from collections.abc import Iterator, Sequence
from pathlib import Path

from .errors import InputError
from .interrupts import deferred
from .outputs import writable_folder_problem
from .tempfiles import temporary_name


def temporary_path(target: str | os.PathLike) -> Path:
    """A hidden temporary path in the target's directory with the target's suffix, naming
    this process and host (:func:`core.tempfiles.temporary_name`)."""
    t = Path(target)
    return t.with_name(temporary_name(t.stem, "".join(t.suffixes[-1:])))


def _leftovers(tmp: Path) -> list[Path]:
    """``tmp`` and the files libraries put beside it (``.aux.xml``, ``-journal``, ``-wal``,
    ``.ovr``; helpers named ``.<tmp stem>.*``)."""
    folder = tmp.parent
    if not folder.is_dir():
        return []
    found = {tmp} if tmp.exists() or tmp.is_symlink() else set()
    for pattern in (glob.escape(tmp.name) + "*", "." + glob.escape(tmp.stem) + ".*"):
        found.update(folder.glob(pattern))
    return sorted(found)


def _remove(paths: Sequence[Path]) -> None:
    for p in paths:
        with contextlib.suppress(OSError):
            if p.is_dir() and not p.is_symlink():
                shutil.rmtree(p)
            else:
                p.unlink(missing_ok=True)


def _make_folders(finals: Sequence[Path]) -> list[Path]:
    """Create the targets' folders; return those created (outermost first)."""
    created: list[Path] = []
    for f in finals:
        if f.is_dir():
            raise InputError(f"{f} is a folder; give a file name")
        problem = writable_folder_problem(f.parent)
        if problem:
            raise InputError(f"cannot write {f}: {problem}; choose another place")
        missing = []
        d = Path(os.path.abspath(f.parent))
        while not d.exists():
            missing.append(d)
            d = d.parent
        for d in reversed(missing):
            try:
                d.mkdir()
            except FileExistsError:
                continue
            except OSError as exc:
                raise InputError(f"cannot create the folder {d} ({exc.strerror}); choose "
                                 "another place") from None
            created.append(d)
    return created


_marker_numbers = itertools.count()   # two blocks of one process: two markers


def _hold_folders(finals: Sequence[Path], created: list[Path]) -> list[Path]:
    """Put an empty marker file (a temporary name of this process, ``.busy``) in each
    output folder, so that no other process removes the folder as empty (the clean-up of a
    run stopped while this one writes in the same place) before this one has written;
    a folder removed in between is made again. Returns the markers."""
    markers: list[Path] = []
    for f in {p.parent: p for p in finals}.values():
        marker = f.with_name(temporary_name(f.stem, f".{next(_marker_numbers)}.busy"))
        for _ in range(5):
            try:
                marker.touch()
                break
            except FileNotFoundError:      # removed since _make_folders: make it again
                created.extend(_make_folders([f]))
        markers.append(marker)
    return markers


@contextlib.contextmanager
def atomic_outputs(targets: Sequence[str | os.PathLike]) -> Iterator[list[Path]]:
    """Yield temporary paths for ``targets``; rename them all only if the block succeeds.

    Files the block did not create are skipped at rename time (optional outputs). On any
    exception (an error, Ctrl-C, a stop signal turned into an exception by
    :mod:`core.interrupts`) every temporary file and the files libraries wrote beside it
    are removed, folders created for the outputs are removed again when empty, and the
    targets are left untouched. A folder that cannot be written is an InputError. While
    the block runs, a marker keeps each output folder from being removed as empty by
    another process's clean-up (two runs writing into one folder).
    """
    finals = [Path(t) for t in targets]
    created = _make_folders(finals)
    markers = _hold_folders(finals, created)
    temps = [temporary_path(f) for f in finals]
    try:
        yield temps
    except BaseException:
        for tmp in temps:
            _remove(_leftovers(tmp))
        _remove(markers)
        for d in reversed(created):
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    with deferred():     # the renames belong together: a stop signal waits for them
        for tmp, final in zip(temps, finals, strict=True):
            if tmp.exists():
                os.replace(tmp, final)
        for tmp in temps:
            _remove(_leftovers(tmp))
        _remove(markers)


@contextlib.contextmanager
def atomic_output(target: str | os.PathLike) -> Iterator[Path]:
    """Yield one temporary path, renamed to ``target`` when the block succeeds."""
    with atomic_outputs([target]) as (tmp,):
        yield tmp


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``target`` atomically."""
    with atomic_output(target) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
