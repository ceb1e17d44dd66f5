"""The collection summary of a directory run: ``summary.csv`` (one row a sheet) and
``summary.html`` (the same with a thumbnail of each sheet, small JPEGs in
``summary-thumbs/`` beside it). Both are written atomically at the end of the run.

A sheet skipped because it was already done keeps the figures of its last summary row
(seconds, CPU seconds, worker and peak memory included); a run stopped by a signal or a
lost cluster writes the summary too, the sheets it did not finish as "stopped".
"""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..atomic import write_text_atomic
from .sheet import Outcome, SheetReport

SUMMARY_CSV = "summary.csv"
SUMMARY_HTML = "summary.html"
THUMBS_DIR = "summary-thumbs"
COLUMNS = ("sheet", "status", "seconds", "cpu_seconds", "intersections", "rmse_px",
           "certainty", "warnings", "error", "worker", "peak_mb", "thumbnail")
_WARNING_SEPARATOR = " | "


def thumbs_folder(folder: Path) -> Path:
    """The folder of the thumbnails of a summary in ``folder``."""
    return folder / THUMBS_DIR


def thumbnail_path(folder: Path, name: str) -> Path:
    """Where the thumbnail of sheet ``name`` (its file name) goes in ``folder``."""
    return folder / THUMBS_DIR / f"{Path(name).stem}.jpg"


def read_previous(folder: Path) -> dict[str, dict[str, str]]:
    """The rows of an earlier ``summary.csv`` in ``folder`` by sheet name (empty if none or
    unreadable)."""
    try:
        with (folder / SUMMARY_CSV).open(newline="", encoding="utf-8") as f:
            return {row["sheet"]: row for row in csv.DictReader(f) if row.get("sheet")}
    except (OSError, KeyError, csv.Error, UnicodeDecodeError):
        return {}


def carried_over(outcome: Outcome, row: dict[str, str] | None) -> Outcome:
    """A skipped sheet's outcome with the figures of its previous summary row: what was
    found, and how long it took, on which worker, with how much memory."""
    if not row:
        return outcome

    def num(key: str, kind: type) -> float | int | None:
        try:
            return kind(row.get(key) or "")
        except ValueError:
            return None

    warnings = tuple(w for w in (row.get("warnings") or "").split(_WARNING_SEPARATOR) if w)
    return replace(outcome, report=SheetReport(intersections=num("intersections", int),
                                               rmse_px=num("rmse_px", float),
                                               warnings=warnings,
                                               certainty=num("certainty", float)),
                   seconds=num("seconds", float), cpu_seconds=num("cpu_seconds", float),
                   worker=row.get("worker") or "", peak_mb=num("peak_mb", float))


def _row(o: Outcome, folder: Path) -> dict[str, str]:
    r = o.report
    thumb = thumbnail_path(folder, o.name)
    return {"sheet": o.name, "status": o.status,
            "seconds": "" if o.seconds is None else f"{o.seconds:.2f}",
            "cpu_seconds": "" if o.cpu_seconds is None else f"{o.cpu_seconds:.2f}",
            "intersections": "" if r.intersections is None else str(r.intersections),
            "rmse_px": "" if r.rmse_px is None else f"{r.rmse_px:.3f}",
            "certainty": "" if r.certainty is None else f"{r.certainty:.1f}",
            "warnings": _WARNING_SEPARATOR.join(r.warnings), "error": o.error,
            "worker": o.worker, "peak_mb": "" if o.peak_mb is None else f"{o.peak_mb:.0f}",
            "thumbnail": thumb.relative_to(folder).as_posix() if thumb.is_file() else ""}


def write_summary(folder: Path, outcomes: Sequence[Outcome], title: str) -> list[Path]:
    """Write ``summary.csv`` and ``summary.html`` in ``folder``; return their paths."""
    rows = [_row(o, folder) for o in outcomes]
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    paths = [folder / SUMMARY_CSV, folder / SUMMARY_HTML]
    write_text_atomic(paths[0], buf.getvalue())
    write_text_atomic(paths[1], _html(rows, title))
    return paths


_STYLE = ("body{font-family:sans-serif;margin:1.5em}table{border-collapse:collapse}"
          "td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;text-align:left}"
          ".ok{color:#080}.failed{color:#b00;font-weight:bold}.skipped{color:#666}"
          ".stopped{color:#a60}"
          "img{max-width:240px}")


def _html(rows: Sequence[dict[str, str]], title: str) -> str:
    counts = {s: sum(r["status"] == s for r in rows)
              for s in ("ok", "skipped", "failed", "stopped")}
    e = html.escape
    lines = ["<!DOCTYPE html>", '<html><head><meta charset="utf-8">',
             f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>",
             f"<h1>{e(title)}</h1>",
             f"<p>{len(rows)} sheets: {counts['ok']} done, {counts['skipped']} already done "
             f"(skipped), {counts['failed']} failed"
             + (f", {counts['stopped']} not finished (the run was stopped)"
                if counts["stopped"] else "") + ".</p>",
             "<table><tr><th>sheet</th><th>status</th><th>seconds</th><th>intersections</th>"
             "<th>RMSE px</th><th>certainty</th><th>warnings or error</th>"
             "<th>thumbnail</th></tr>"]
    for r in rows:
        notes = [e(w) for w in r["warnings"].split(_WARNING_SEPARATOR) if w]
        if r["error"]:
            notes.insert(0, f'<span class="failed">{e(r["error"])}</span>')
        thumb = (f'<img src="{e(r["thumbnail"])}" alt="{e(r["sheet"])}">'
                 if r["thumbnail"] else "")
        lines.append(f'<tr><td>{e(r["sheet"])}</td><td class="{r["status"]}">{r["status"]}'
                     f'</td><td>{r["seconds"]}</td><td>{r["intersections"]}</td>'
                     f'<td>{r["rmse_px"]}</td><td>{r["certainty"]}</td>'
                     f'<td>{"<br>".join(notes)}</td><td>{thumb}</td></tr>')
    lines.append("</table></body></html>")
    return "\n".join(lines) + "\n"
