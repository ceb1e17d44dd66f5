"""``python -m core.metrics chart TASK GT_DIR PRED_DIR [options]``: CHART-Infographics scores.

Prints per-chart scores and the global scores; ``--json OUT.json`` also writes them (the
task's result keys at the top level, as numbers). Exit status: 0 ok, 1 some files could not
be read (listed at the end, the scores cover the rest), 2 bad input or a crash of the
reproduced official script (one line on stderr, no output file).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ...atomic import write_text_atomic
from ...cli import EXIT_OK, EXIT_SOME_FAILED
from ...errors import InputError
from ...outputs import check_outputs, input_files
from . import evaluate
from .common import (
    TASKS,
    ChartEvaluation,
    all_predictions_unusable,
    chart_id,
    json_files,
)

DESCRIPTION = """\
ICDAR CHART-Infographics metrics. TASK: 1 chart class, 2 text detection and recognition,
3 text role, 4 axis ticks, 5 legend marks, 6a plot elements, 6b data series, 7 end-to-end
data series (scored as 6b). GT_DIR and PRED_DIR hold one competition JSON file per chart,
paired by name. Without --official the metric is the one the competition describes (the
scripts' bugs fixed, see docs/metrics-chart.md); --official 2019|2020 reproduces that
year's script exactly, bugs included."""


def build_parser(prog: str) -> argparse.ArgumentParser:
    """The argument parser of the ``chart`` command."""
    p = argparse.ArgumentParser(prog=prog, description=DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("task", choices=TASKS, metavar="TASK", help="1, 2, 3, 4, 5, 6a, 6b or 7")
    p.add_argument("gt_dir", type=Path, metavar="GT_DIR", help="folder of GT <chart>.json")
    p.add_argument("pred_dir", type=Path, metavar="PRED_DIR",
                   help="folder of prediction <chart>.json")
    p.add_argument("--images", type=Path, metavar="DIR",
                   help="chart images <chart>.png/.jpg, for their size (task 4; task 6a "
                        "without --official)")
    p.add_argument("--json", type=Path, metavar="OUT.json", help="also write the scores here")
    p.add_argument("--official", type=int, choices=(2019, 2020),
                   help="reproduce the 2019 or 2020 competition script exactly")
    p.add_argument("--ambiguous", type=Path, metavar="FILE",
                   help="task 1: single-series bar chart ids, one <id>.png per line")
    p.add_argument("--class-mapping", type=Path, metavar="FILE",
                   help="task 1: JSON object mapping predicted synonyms to classes (not 2019)")
    p.add_argument("--ignore-roles", type=Path, metavar="FILE",
                   help="task 3: GT roles to leave out, one per line (not 2019)")
    p.add_argument("-q", "--quiet", action="store_true", help="print only the global scores")
    return p


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


def format_report(ev: ChartEvaluation, *, per_chart: bool = True) -> str:
    """Human-readable per-chart and global scores."""
    lines = [f"CHART task {ev.task} ({ev.mode}): {len(ev.per_chart)} charts"]
    if per_chart and ev.per_chart:
        keys = list(next(iter(ev.per_chart.values())))
        rows = [[cid, *(_fmt(s.get(k)) for k in keys)] for cid, s in ev.per_chart.items()]
        widths = [max(len(r[i]) for r in [["chart", *keys], *rows])
                  for i in range(len(keys) + 1)]
        for row in [["chart", *keys], *rows]:
            lines.append("  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i])
                                   for i, c in enumerate(row)).rstrip())
    for name, cls in ev.result.get("per_class", {}).items():
        lines.append(f"class {name}: " + "  ".join(f"{k} {_fmt(v)}" for k, v in cls.items()))
    for name, value in ev.result.get("score_by_type", {}).items():
        text = ("  ".join(f"{k} {_fmt(v)}" for k, v in value.items())
                if isinstance(value, dict) else f"score {_fmt(value)}")
        lines.append(f"type {name}: {text}")
    heads = [(k, v) for k, v in ev.result.items() if not isinstance(v, dict)]
    lines.append("  ".join(f"{k} {_fmt(v)}" for k, v in heads))
    if ev.charts_without_prediction:
        lines.append(f"charts without prediction file: {len(ev.charts_without_prediction)}")
    return "\n".join(lines)


def main(command: str = "chart", argv: Sequence[str] | None = None) -> int:
    """Entry point called by ``python -m core.metrics chart ...``."""
    args = build_parser(f"python -m core.metrics {command}").parse_args(
        list(sys.argv[1:] if argv is None else argv))
    check_outputs({"json": args.json}, inputs=[
        *input_files(args.gt_dir), *input_files(args.pred_dir), args.ambiguous,
        args.class_mapping, args.ignore_roles])
    ev = evaluate(args.task, args.gt_dir, args.pred_dir, official=args.official,
                  images=args.images, ambiguous=args.ambiguous,
                  class_mapping=args.class_mapping, ignore_roles=args.ignore_roles)
    predictions = [chart_id(p) for p in json_files(args.pred_dir, "prediction")]
    if ev.problems and all_predictions_unusable(ev, predictions):
        cid, message = next((c, m) for c, m in ev.problems if c in predictions)
        raise InputError(f"none of the prediction files could be used ({cid}: {message}); "
                         f"check that PRED_DIR holds task {args.task} predictions")
    print(format_report(ev, per_chart=not args.quiet))
    for note in ev.notes:
        print(f"note: {note}", file=sys.stderr)
    if args.json is not None:
        write_text_atomic(args.json, json.dumps(ev.to_json(), indent=1, ensure_ascii=False)
                          + "\n")
    if ev.problems:
        print(f"{len(ev.problems)} file(s) could not be used:", file=sys.stderr)
        for cid, message in ev.problems:
            print(f"  {cid}: {message}", file=sys.stderr)
        return EXIT_SOME_FAILED
    return EXIT_OK
