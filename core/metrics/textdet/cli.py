"""``python -m core.metrics textdet GT PRED``: text-detection scores on RRC text files."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ...atomic import write_text_atomic
from ...cli import EXIT_OK, EXIT_SOME_FAILED
from ...errors import InputError
from ...outputs import check_outputs, input_files
from .evaluate import METRICS, evaluate_paths
from .report import format_table

DESCRIPTION = """\
Score text detections against ground truth with the ICDAR 2015 IoU, DetEval, TIoU and
CLEval (detection and end-to-end) metrics.

GT and PRED are directories or .zip files of ICDAR RRC text files: gt_<id>.txt and
res_<id>.txt (or <id>.txt), one word per line: x1,y1,x2,y2,x3,y3,x4,y4,transcription
(integer pixels, clockwise from the word's top-left, y down; ### = don't care). A missing
or empty res file means no detections.

Exit status: 0 ok; 1 the reference refuses the input for some metric (--official); 2 bad
input."""


def build_parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=DESCRIPTION,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("gt", metavar="GT", help="ground-truth directory or .zip")
    parser.add_argument("pred", metavar="PRED", help="detection directory or .zip")
    parser.add_argument("--metrics", default=",".join(METRICS),
                        help=f"comma-separated metrics (default: {','.join(METRICS)})")
    parser.add_argument("--json", metavar="OUT.json",
                        help="also write the scores, counts and per-image matches as JSON")
    parser.add_argument("--official", action="store_true",
                        help="reproduce the reference programs, bugs and refusals included"
                             " (see docs/metrics-textdet.md)")
    return parser


def main(command: str, argv: Sequence[str]) -> int:
    args = build_parser(f"python -m core.metrics {command}").parse_args(list(argv))
    metrics = list(dict.fromkeys(m.strip() for m in args.metrics.split(",") if m.strip()))
    if not metrics:
        raise InputError("--metrics is empty; give e.g. --metrics iou,deteval,tiou,cleval")
    check_outputs({"json": args.json}, inputs=[*input_files(args.gt), *input_files(args.pred)])
    report = evaluate_paths(args.gt, args.pred, metrics, official=args.official)
    if args.json:
        write_text_atomic(args.json, json.dumps(report.as_dict(), indent=1,
                                                ensure_ascii=False) + "\n")
    print(format_table(report))
    if report.failed:
        print(f"the reference refuses this input for {', '.join(report.failed)}",
              file=sys.stderr)
        return EXIT_SOME_FAILED
    return EXIT_OK
