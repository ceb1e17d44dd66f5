"""Temporary file names that say which process made them, and the removal of those whose
maker is gone.

Every output is first written under a hidden temporary name beside it
(:mod:`core.atomic`)::

    .<stem>.tmp<pid>-<host><suffix>        e.g. .020-INPUT.tmp4242-atlas1.tif

plus whatever libraries put beside that name (``.aux.xml``, ``-journal``, GDAL's
``..<stem>.tmp<pid>-<host>.colour.<tag>.tif`` ...). The process that made them removes
them on every exit path it controls (an error, Ctrl-C, a stop signal). A process killed
outright (``kill -9``, the out-of-memory killer) cannot: its files are *stale* once its
PID is no longer alive on the host named in the file, and only then does a later run, or
the run that owned the dead worker, remove them (:func:`remove_stale`). A file whose maker
is alive, or ran on another host (a cluster sharing the folder), is never touched: two
runs writing into one folder do not delete each other's files.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import sys
from collections.abc import Iterable
from pathlib import Path

_TAG = re.compile(r"\.tmp(?P<pid>\d+)(?:-(?P<host>[A-Za-z0-9-]+))?(?=\.|$)")


def host_tag() -> str:
    """This machine's short host name as it appears in temporary names (letters, digits
    and ``-`` only; at most 24 characters)."""
    name = socket.gethostname().split(".")[0]
    return re.sub(r"[^A-Za-z0-9-]", "", name)[:24] or "host"


def temporary_name(stem: str, suffix: str) -> str:
    """The hidden temporary name of an output ``<stem><suffix>`` made by this process.

    >>> import os
    >>> temporary_name("020-INPUT", ".tif").startswith(f".020-INPUT.tmp{os.getpid()}-")
    True
    """
    return f".{stem}.tmp{os.getpid()}-{host_tag()}{suffix}"


def maker(name: str) -> tuple[int, str | None] | None:
    """``(pid, host)`` of a temporary file name (host None in names made before hosts were
    recorded), or None when ``name`` is not a temporary name.

    >>> maker(".020-INPUT.tmp4242-atlas1.tif")
    (4242, 'atlas1')
    >>> maker("..020-INPUT.tmp4242-atlas1.colour.4242_0af3.tif")
    (4242, 'atlas1')
    >>> maker("020-INPUT.tif") is None
    True
    """
    if not name.startswith("."):
        return None
    m = _TAG.search(name)
    if m is None:
        return None
    return int(m["pid"]), m["host"]


def process_alive(pid: int) -> bool:
    """True while process ``pid`` of this machine exists and is not a zombie.

    On a system without POSIX signals the answer is always True: nothing is ever taken
    for stale there.
    """
    if pid <= 0:
        return True
    if sys.platform == "win32":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:      # another user's process
        return True
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        if stat[stat.rindex(")") + 2] in "ZX":    # exited, waiting to be reaped
            return False
    return True


def is_stale(name: str) -> bool:
    """True when ``name`` is a temporary name whose maker ran on this host and is gone."""
    who = maker(name)
    if who is None:
        return False
    pid, host = who
    if host is not None and host != host_tag():
        return False             # another machine's process: its own runs clean it
    return not process_alive(pid)


def stale_temporaries(folder: str | os.PathLike) -> list[Path]:
    """The stale temporary files (and folders) directly in ``folder``, sorted."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return sorted(Path(e.path) for e in entries if e.name.startswith(".") and is_stale(e.name))


def remove_stale(folders: Iterable[str | os.PathLike | None]) -> list[Path]:
    """Remove the stale temporary files of :func:`stale_temporaries` in every folder given
    (None and missing folders are skipped); return what was removed."""
    removed = []
    for folder in dict.fromkeys(Path(f) for f in folders if f is not None):
        for p in stale_temporaries(folder):
            try:
                if p.is_dir() and not p.is_symlink():
                    shutil.rmtree(p)
                else:
                    p.unlink()
            except FileNotFoundError:
                continue
            except OSError:
                continue
            removed.append(p)
    return removed
