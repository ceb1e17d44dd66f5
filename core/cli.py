"""Shared command-line behaviour: one-line errors, exit codes, progress bars, batch runs.

Exit codes: 0 success; 1 a batch finished but some items failed; 2 bad input (one line on
stderr, no output written); 130 interrupted.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from tqdm import tqdm

from .errors import InputError

T = TypeVar("T")

EXIT_OK = 0
EXIT_SOME_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def run_cli(main: Callable[[Sequence[str] | None], int | None],
            argv: Sequence[str] | None = None) -> int:
    """Run a command's ``main(argv)`` and turn user errors into one line and an exit code."""
    try:
        return main(argv) or EXIT_OK
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("interrupted; no partial output was kept", file=sys.stderr)
        return EXIT_INTERRUPTED
    except MemoryError:
        print("error: out of memory; close other programs or process a smaller image",
              file=sys.stderr)
        return EXIT_BAD_INPUT


def progress(items: Iterable[T], *, total: int | None = None, desc: str = "") -> Iterable[T]:
    """A progress bar on stderr when it is a terminal; silent otherwise (logs, CI)."""
    return tqdm(items, total=total, desc=desc, unit="file", file=sys.stderr, disable=None,
                dynamic_ncols=True)


def run_batch(items: Sequence[T], work: Callable[[T], object], *,
              name: Callable[[T], str] = str, desc: str = "") -> int:
    """Apply ``work`` to every item, going on past failures; report them at the end.

    Returns EXIT_OK when all succeeded, EXIT_SOME_FAILED otherwise.
    """
    failed: list[tuple[str, str]] = []
    for item in progress(items, total=len(items), desc=desc):
        try:
            work(item)
        except InputError as exc:
            failed.append((name(item), str(exc)))
        except (OSError, ValueError, RuntimeError, MemoryError) as exc:
            failed.append((name(item), f"{type(exc).__name__}: {exc}"))
    if failed:
        print(f"{len(failed)} of {len(items)} failed:", file=sys.stderr)
        for item_name, message in failed:
            print(f"  {item_name}: {message}", file=sys.stderr)
        return EXIT_SOME_FAILED
    return EXIT_OK
