"""Write outputs atomically: to a temporary name beside the target, renamed when complete.

A crash, an error or Ctrl-C never leaves a half-written file under the final name. The
temporary name keeps the target's suffix, because OpenCV and GDAL pick the format from it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path


def temporary_path(target: str | os.PathLike) -> Path:
    """A hidden temporary path in the target's directory with the target's suffix."""
    t = Path(target)
    return t.with_name(f".{t.stem}.tmp{os.getpid()}{''.join(t.suffixes[-1:])}")


@contextlib.contextmanager
def atomic_outputs(targets: Sequence[str | os.PathLike]) -> Iterator[list[Path]]:
    """Yield temporary paths for ``targets``; rename them all only if the block succeeds.

    Files the block did not create are skipped at rename time (optional outputs). On any
    exception every temporary file is removed and the targets are left untouched.
    """
    finals = [Path(t) for t in targets]
    for f in finals:
        f.parent.mkdir(parents=True, exist_ok=True)
    temps = [temporary_path(f) for f in finals]
    try:
        yield temps
    except BaseException:
        for tmp in temps:
            tmp.unlink(missing_ok=True)
        raise
    for tmp, final in zip(temps, finals, strict=True):
        if tmp.exists():
            os.replace(tmp, final)


@contextlib.contextmanager
def atomic_output(target: str | os.PathLike) -> Iterator[Path]:
    """Yield one temporary path, renamed to ``target`` when the block succeeds."""
    with atomic_outputs([target]) as (tmp,):
        yield tmp


def write_text_atomic(target: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``target`` atomically."""
    with atomic_output(target) as tmp:
        tmp.write_text(text, encoding="utf-8", newline="\n")
