"""Shared command-line behaviour: one-line errors, exit codes, progress bars, batch runs.

Exit codes: 0 success; 1 a batch finished but some items failed; 2 bad input (one line on
stderr, no output written); 128 + the signal number when stopped by a signal (130 Ctrl-C /
SIGINT, 143 SIGTERM from ``kill`` or ``timeout``, 129 SIGHUP), with no partial output.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from tqdm import tqdm

from .errors import InputError, cli_flag, option
from .interrupts import Interrupted, signal_name, signals_raise

T = TypeVar("T")

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130

#: How the user spelled each option of the command line being run (``{"outdir": "-o"}``),
#: recorded by :func:`parse_args`, so that errors name the option as it was typed.
_typed: dict[str, str] = {}


def parse_args(parser: argparse.ArgumentParser,
               argv: Sequence[str] | None = None) -> argparse.Namespace:
    """``parser.parse_args(argv)``, remembering how each option was spelled (``-o`` or
    ``--outdir``) for the errors :func:`run_cli` prints."""
    args = parser.parse_args(argv)
    _typed.clear()
    _typed.update(typed_options(parser, sys.argv[1:] if argv is None else argv))
    return args


def typed_options(parser: argparse.ArgumentParser, argv: Sequence[str]) -> dict[str, str]:
    """``{option name: the flag typed for it}`` for the options in ``argv``; an option's
    name is its first long flag without the dashes (``outdir`` for ``-o/--outdir``).

    >>> p = argparse.ArgumentParser()
    >>> _ = p.add_argument("-o", "--outdir")
    >>> typed_options(p, ["in.jpg", "-o", "out"])
    {'outdir': '-o'}
    >>> typed_options(p, ["--outdir=out"])
    {'outdir': '--outdir'}
    """
    flags = parser._option_string_actions          # flag -> action, as argparse matches them
    found: dict[str, str] = {}
    for token in argv:
        if token == "--":
            break
        if not token.startswith("-") or token == "-":
            continue
        flag = token.split("=", 1)[0]
        action = flags.get(flag)
        if action is None and not flag.startswith("--"):
            action = flags.get(flag[:2])              # -oOUT
            flag = flag[:2]
        elif action is None:                          # an abbreviation: --out for --outdir
            matches = {a for f, a in flags.items() if f.startswith(flag)}
            action = matches.pop() if len(matches) == 1 else None
        if action is None:
            continue
        longs = [f for f in action.option_strings if f.startswith("--")]
        name = (longs[0] if longs else action.option_strings[0]).lstrip("-")
        found.setdefault(name, flag)
    return found


def _as_typed(name: str) -> str:
    return _typed.get(name, cli_flag(name))


def run_cli(main: Callable[[Sequence[str] | None], int | None],
            argv: Sequence[str] | None = None) -> int:
    """Run a command's ``main(argv)`` and turn user errors into one line and an exit code.

    SIGINT, SIGTERM and SIGHUP stop the command like Ctrl-C (:mod:`core.interrupts`):
    temporary files are removed and the exit code is 128 + the signal number. Options
    named in an error are spelled as the user typed them (:func:`parse_args`).
    """
    try:
        with signals_raise():
            return main(argv) or EXIT_OK
    except InputError as exc:
        print(f"error: {exc.render(_as_typed)}", file=sys.stderr)
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


def add_accept_corrupt(parser: argparse.ArgumentParser) -> None:
    """Add ``--accept-corrupt`` (:mod:`core.corrupt_jpeg`) to a command's parser."""
    parser.add_argument("--accept-corrupt", action="store_true",
                        help="use a JPEG sheet whose data is damaged as libjpeg decodes it "
                             "(garbage where the data is damaged), with a warning, instead "
                             "of refusing it")


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
