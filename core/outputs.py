"""The one check every output path goes through before any work starts.

:func:`check_outputs` refuses, with one :class:`~core.errors.InputError` line:

- an output that *is* one of the inputs, however it is spelled: the same path, ``./x``, a
  symbolic link to it or a hard link (same device and inode), so a run never replaces the
  scan, mask, GCP file or ground truth it reads;
- an output file that is a folder, or an output folder that is a file;
- an output whose folder cannot be created (a parent is a file) or is not writable
  (permissions, read-only file system).

It creates nothing: folders are made by :func:`core.atomic.atomic_outputs` when the
results are written, and removed again if the writing fails. When the writing itself fails
(a disk that fills up, a file system that refuses writes), :func:`write_errors` turns the
writer's failure (GDAL's and OGR's RuntimeError, an OSError, a PNG encoder's refusal) into
the same kind of one-line error.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from .errors import InputError, option

PathLike = str | os.PathLike
Outputs = Mapping[str, PathLike | None] | Iterable[PathLike | None]


def _named(outputs: Outputs) -> list[tuple[str | None, Path]]:
    """``[(option name or None, path)]`` from a mapping option -> path or a list of paths."""
    items = outputs.items() if isinstance(outputs, Mapping) else ((None, p) for p in outputs)
    return [(name, Path(p)) for name, p in items if p is not None and p is not True]


def _label(name: str | None, path: Path) -> str:
    return f"{option(name)} {path}" if name else str(path)


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def writable_folder_problem(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` (which may not exist yet), or None.

    The nearest existing ancestor must be a folder the process may write in; the missing
    part is created later.
    """
    folder = Path(folder)
    probe = folder
    while not probe.exists():
        if probe.is_symlink():
            return f"{probe} is a broken symbolic link"
        parent = probe.parent
        if parent == probe:     # "." or "/" missing: the working folder is gone
            return f"{folder} cannot be created"
        probe = parent
    if not probe.is_dir():
        return f"{probe} is a file, not a folder"
    if not os.access(probe, os.W_OK | os.X_OK):
        why = "read-only" if _read_only(probe) else "not writable"
        return f"folder {probe} is {why}"
    return None


def _read_only(folder: Path) -> bool:
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def input_files(path: PathLike | None) -> list[Path]:
    """The files a command reads from an input: the file itself, or every file directly
    in a folder (to protect them all from an output named inside it)."""
    if path is None:
        return []
    p = Path(path)
    if p.is_dir():
        return [c for c in p.iterdir() if c.is_file()]
    return [p]


def check_outputs(files: Outputs = (), *, folders: Outputs = (),
                  inputs: Iterable[PathLike | None] = ()) -> None:
    """Raise InputError unless every output can be written without touching an input.

    Parameters
    ----------
    files : mapping or iterable
        Output files, as ``{"output": path}`` (the option that names them, for the message:
        ``--output x.csv ...``) or a plain list of paths. None entries are skipped.
    folders : mapping or iterable
        Output folders (created if missing).
    inputs : iterable of paths
        Every file the command reads (missing or None entries are skipped). Folders given
        here protect nothing inside them: list the files.

    Examples
    --------
    >>> check_outputs({"output": "sheet.jpg"}, inputs=["sheet.jpg"])  # doctest: +SKIP
    InputError: --output sheet.jpg is an input; writing it would destroy it, so choose ...
    """
    protected = {}
    for p in inputs:
        if p is None:
            continue
        ident = _identity(Path(p))
        if ident is not None:
            protected.setdefault(ident, Path(p))
    for name, path in _named(folders):
        label = _label(name, path)
        if path.exists() and not path.is_dir():
            raise InputError(f"{label} is a file, not a folder; give an output folder",
                             field=name, value=str(path))
        problem = writable_folder_problem(path)
        if problem:
            raise InputError(f"cannot write in {label}: {problem}; choose another place",
                             field=name, value=str(path))
    for name, path in _named(files):
        label = _label(name, path)
        if path.is_dir():
            raise InputError(f"{label} is a folder; give a file name", field=name,
                             value=str(path))
        ident = _identity(path)
        if ident is not None and ident in protected:
            same = protected[ident]
            what = "" if str(same) == str(path) else f" ({same})"
            raise InputError(f"{label} is an input{what}; writing it would destroy it, so "
                             "choose another output name", field=name, value=str(path))
        problem = writable_folder_problem(path.parent)
        if problem:
            raise InputError(f"cannot write {label}: {problem}; choose another place",
                             field=name, value=str(path))


_FULL_WORDS = ("no space left", "disk is full", "disk full", "free disk space")


def _full(folder: Path) -> bool:
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


def cannot_write(target: PathLike, reason: str | None = None) -> InputError:
    """The error for an output that could not be written: its path, why (``reason``, else
    what the file system says: full or read-only) and what to do."""
    target = Path(target)
    folder = target.parent
    why = " ".join(str(reason or "").split())
    if any(w in why.lower() for w in _FULL_WORDS):
        why = "no space left on the device"
    elif not why or "write error" in why.lower():
        why = ("no space left on the device" if _full(folder)
               else "the file system is read-only" if _read_only(folder)
               else why or "the file system refused it")
    elif len(why) > 160:             # an SQL statement or a GDAL call: its end says why
        why = "... " + why[-150:]
    return InputError(f"cannot write {target}: {why}; free some space or choose another "
                      "place", value=str(target))


@contextlib.contextmanager
def write_errors(target: PathLike) -> Iterator[None]:
    """Turn a writer's failure inside the block into :func:`cannot_write` for ``target``:
    GDAL's and OGR's RuntimeError and OSError (an InputError passes unchanged). Put it
    around :func:`core.atomic.atomic_outputs`, so the temporary files go first."""
    try:
        yield
    except InputError:
        raise
    except OSError as exc:
        raise cannot_write(target, exc.strerror or str(exc)) from None
    except RuntimeError as exc:
        raise cannot_write(target, str(exc)) from None
