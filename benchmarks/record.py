"""A benchmark's results, written into its dated table on the Benchmarks page.

``docs/benchmarks.md`` holds one table per benchmark between ``<!-- bench:NAME -->`` and
``<!-- /bench:NAME -->``; :func:`record` puts a new row (the date first, then the machine)
on top of it, so the numbers on that page are the ones the command printed. Benchmarks
record only when run with their default options: a quicker run (fewer sheets) prints its
numbers and leaves the page alone.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "docs" / "benchmarks.md"


def machine() -> str:
    """``"2 cores, load 3.1"``: the cores and the 1-minute load average at the end of a run."""
    return f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}"


def record(name: str, columns: dict[str, str], *, page: Path = PAGE,
           day: _dt.date | None = None) -> Path:
    """Put one row (``date``, ``machine``, then ``columns`` in order) on top of the table of
    benchmark ``name`` in ``page``; returns the page.

    A table whose header differs from these columns is started again with the new header
    (the old rows stay below it, under their own header). Raises ValueError when the page
    has no ``<!-- bench:NAME -->`` block.
    """
    text = page.read_text(encoding="utf-8")
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    match = re.search(re.escape(start) + r"\n(.*?)" + re.escape(end), text, re.S)
    if match is None:
        raise ValueError(f"{page} has no {start} ... {end} block")
    cells = {"date": (day or _dt.date.today()).isoformat(), "machine": machine(), **columns}
    header = "| " + " | ".join(cells) + " |\n| " + " | ".join("---" for _ in cells) + " |\n"
    row = "| " + " | ".join(str(v).replace("|", "/") for v in cells.values()) + " |\n"
    old = match.group(1)
    body = header + row + (old[len(header):] if old.startswith(header) else
                           ("\n" + old if old.strip() else ""))
    page.write_text(text[:match.start(1)] + body + text[match.end(1):], encoding="utf-8")
    return page
