"""README.md is a short front door, and the manual (docs/) builds as a site with --strict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_commands import REPO

README_MAX_LINES = 250


def test_readme_is_short_and_has_the_front_doors_sections():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= README_MAX_LINES
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings == ["Install", "Quickstart", "Examples", "Plugin", "Limits", "Links"]
    for command in ("python -m core.graticule", "python -m core.georef", "python -m core.blocks",
                    "make demo", "make test"):
        assert command in text, command


def test_readme_links_and_pictures_exist():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    local = [t for t in targets if not re.match(r"[a-z]+://", t)]
    assert any(t.startswith("docs/images/") for t in local), "the README shows a picture"
    assert not [t for t in local if not (REPO / t).exists()]


def test_the_manual_builds_with_strict(tmp_path):
    """MkDocs with --strict: a broken link or anchor, a page missing from the navigation or
    a docstring it cannot read stops the build. Nothing is fetched."""
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                          str(site)], cwd=REPO, capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    graticule_api = (site / "api" / "graticule" / "index.html").read_text(encoding="utf-8")
    assert "detect_on_sheet" in graticule_api and "Parameters" in graticule_api
    limits = (site / "commands" / "index.html").read_text(encoding="utf-8")
    assert "625 Mpx" in limits   # the README's limits table, included
    assert (site / "benchmarks" / "index.html").is_file()


def test_a_benchmark_writes_its_dated_row_on_the_benchmarks_page(tmp_path):
    import datetime

    from benchmarks.record import record

    page = tmp_path / "benchmarks.md"
    page.write_text("# B\n\n<!-- bench:demo -->\n<!-- /bench:demo -->\n\ntext\n")
    record("demo", {"PDS": "0.97"}, page=page, day=datetime.date(2026, 12, 1))
    record("demo", {"PDS": "0.98"}, page=page, day=datetime.date(2026, 12, 7))
    lines = page.read_text().splitlines()
    table = lines[lines.index("<!-- bench:demo -->") + 1: lines.index("<!-- /bench:demo -->")]
    assert table[0] == "| date | machine | PDS |"
    assert table[2].startswith("| 2026-12-07 |") and table[2].endswith("| 0.98 |")
    assert table[3].startswith("| 2026-12-01 |") and table[3].endswith("| 0.97 |")
    assert lines[-1] == "text"
    with pytest.raises(ValueError, match="no <!-- bench:other -->"):
        record("other", {}, page=page)


def test_the_benchmarks_page_has_a_table_for_every_benchmark():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    names = re.search(r"^BENCHES := (.+?)(?<!\\)$", makefile, re.M | re.S).group(1).split()
    names = [n for n in names if n != "\\"]
    page = (REPO / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    missing = [n for n in names if f"\n## bench-{n}\n" not in page]
    assert not missing
    assert Path(REPO / "benchmarks" / "record.py").is_file()
