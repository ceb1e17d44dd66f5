"""Build README.md from its sources in docs/ (``make readme``).

README.md = docs/readme/head.md, then one section per capability (docs/<topic>.md, image
links rewritten from ``images/`` to ``docs/images/``), then docs/readme/tail.md with the
benchmark table of docs/readme/benchmarks.md in place of ``@@BENCH_TABLE@@``. Edit the
sources, not README.md.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from core.atomic import write_text_atomic  # noqa: E402  (the repository's own helper)

DOCS = ROOT / "docs"
TOPICS = ("graticule", "georef", "maparea-blocks", "whole-atlases", "plugin", "synth",
          "metrics-mapseg", "metrics-textdet", "metrics-chamfer-ap", "metrics-chart")


def build_readme() -> str:
    """The README text assembled from docs/."""
    parts = [(DOCS / "readme" / "head.md").read_text(encoding="utf-8")]
    for topic in TOPICS:
        text = (DOCS / f"{topic}.md").read_text(encoding="utf-8")
        parts.append(re.sub(r"\]\(images/", "](docs/images/", text).rstrip() + "\n\n")
    bench = (DOCS / "readme" / "benchmarks.md").read_text(encoding="utf-8").rstrip()
    tail = (DOCS / "readme" / "tail.md").read_text(encoding="utf-8")
    parts.append(tail.replace("@@BENCH_TABLE@@", bench))
    return "".join(parts)


def main() -> None:
    """Write README.md atomically (temporary name, then rename)."""
    target = ROOT / "README.md"
    write_text_atomic(target, build_readme())
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
