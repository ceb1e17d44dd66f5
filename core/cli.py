"""Shared command-line behaviour: one-line errors, exit codes, progress bars, batch runs.

Exit codes: 0 success; 1 a batch finished but some items failed; 2 bad input (one line on
stderr, no output written); 128 + the signal number when stopped by a signal (130 Ctrl-C /
SIGINT, 143 SIGTERM from ``kill`` or ``timeout``, 129 SIGHUP), with no partial output.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from tqdm import tqdm

from .errors import InputError, option
from .interrupts import Interrupted, signal_name, signals_raise

T = TypeVar("T")

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def run_cli(main: Callable[[Sequence[str] | None], int | None],
            argv: Sequence[str] | None = None) -> int:
    """Run a command's ``main(argv)`` and turn user errors into one line and an exit code.

    SIGINT, SIGTERM and SIGHUP stop the command like Ctrl-C (:mod:`core.interrupts`):
    temporary files are removed and the exit code is 128 + the signal number.
    """
    try:
        with signals_raise():
            return main(argv) or EXIT_OK
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt as exc:
        signum = exc.signum if isinstance(exc, Interrupted) else 2
        print(f"error: interrupted by {signal_name(signum)}; no partial output was kept",
              file=sys.stderr)
        return exc.exit_code if isinstance(exc, Interrupted) else EXIT_INTERRUPTED
    except MemoryError:
        print("error: out of memory; close other programs or process a smaller image",
              file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:   # a disk that fills up or goes away while writing
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot read or write{where}: {exc.strerror or exc}; check the disk "
              "and the path", file=sys.stderr)
        return EXIT_BAD_INPUT


def number(name: str, *, minimum: float | None = None, maximum: float | None = None,
           positive: bool = False, integer: bool = False,
           unit: str = "") -> Callable[[str], float]:
    """An argparse ``type`` for option ``name`` (its flag without dashes): a finite number
    in range, else an InputError that names the option (one ``error:`` line, exit 2).

    ``positive`` excludes 0 (and everything below); ``minimum`` and ``maximum`` are
    inclusive; ``integer`` returns an int; ``unit`` ("px", "m") is quoted in messages.

    >>> number("spacing", minimum=20, maximum=1e5, unit="px")("0")
    Traceback (most recent call last):
    core.errors.InputError: --spacing must be between 20 and 100000 px, not 0
    """
    suffix = f" {unit}" if unit else ""

    def fmt(v: float) -> str:
        return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else f"{v:g}"

    def bounds() -> str:
        if minimum is not None and maximum is not None:
            return f"between {fmt(minimum)} and {fmt(maximum)}{suffix}"
        if positive:
            return f"above 0{suffix}" + (f" and at most {fmt(maximum)}"
                                         if maximum is not None else "")
        if minimum is not None:
            return f"at least {fmt(minimum)}{suffix}"
        return f"at most {fmt(maximum)}{suffix}"

    def parse(text: str) -> float:
        kind = "a whole number" if integer else "a number"
        try:
            value = int(text) if integer and str(text).strip().lstrip("+-").isdigit() \
                else float(text)
        except (TypeError, ValueError):
            raise InputError(f"{option(name)} must be {kind}, not {text!r}", field=name,
                             value=text) from None
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{option(name)} must be a finite number, not {text}",
                             field=name, value=text)
        if integer and value != int(value):
            raise InputError(f"{option(name)} must be {kind}, not {text}", field=name,
                             value=text)
        if ((positive and value <= 0) or (minimum is not None and value < minimum)
                or (maximum is not None and value > maximum)):
            raise InputError(f"{option(name)} must be {bounds()}, not {text}", field=name,
                             value=text)
        return int(value) if integer else value

    parse.__name__ = name
    return parse


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterable[T]:
    """A progress bar on stderr when it is a terminal; silent otherwise (logs, CI)."""
    return tqdm(items, total=total, desc=desc, unit="file", file=sys.stderr, disable=None,
                dynamic_ncols=True)


def run_batch(items: Sequence[T], work: Callable[[T], object], *,
              name: Callable[[T], str] = str, desc: str = "", **options: object) -> int:
    """Apply ``work`` to every item, going on past failures; report them at the end.

    Returns EXIT_OK when all succeeded, EXIT_SOME_FAILED otherwise. The keyword
    ``options`` (workers, resuming, collection summary) are those of
    :func:`core.batch.run_batch`, which does the work.
    """
    from .batch import run_batch as run  # core.batch uses this module

    return run(items, work, name=name, desc=desc, **options)
