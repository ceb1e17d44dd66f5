"""``python -m core.metrics {T1,T2,T3} REF PRED OUTDIR [--official]``: the ICDAR 2021 MapSeg
scores, with the inputs, outputs and file names of the official ``icdar21-mapseg-eval``.

REF and PRED are two files, or two directories whose ``NNN-OUTPUT-GT.*`` and
``NNN-OUTPUT-PRED.*`` files are paired by NNN. OUTDIR receives per-file CSVs and curves, the
global CSV and the summary JSON; a table and the global score are printed. Exit status: 0 ok,
1 some files of a directory failed (reported at the end), 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..cli import EXIT_OK, run_batch
from ..errors import InputError
from ..outputs import check_outputs
from .mapseg_io import (
    IMAGE_SUFFIXES,
    POINT_SUFFIXES,
    Pair,
    check_same_size,
    pair_directories,
    read_label_image,
    read_mask_image,
    read_points,
)

RADIUS = 50
BETA = 0.5


@dataclass(frozen=True)
class Task:
    title: str
    suffixes: tuple[str, ...]
    score: Callable[[Pair, Path, bool], dict]  # scores one pair, writes its files, returns a row
    columns: tuple[tuple[str, str], ...]  # (row key, printed heading)
    summary: str  # printed before the global value
    global_key: str  # the JSON key is global_mean_<global_key>


def _score_t1(pair: Pair, out: Path, official: bool) -> dict:
    from .mapseg_report import write_t1_file
    from .panoptic import panoptic_quality

    ref = read_label_image(pair.ref)
    pred = read_label_image(pair.pred)
    check_same_size(ref, pred, pair.ref, pair.pred)
    res = panoptic_quality(ref, pred, official=official)
    del ref, pred
    write_t1_file(out, pair.pred.stem, pair.ref.name, pair.pred.name, res)
    return {"pq": res.pq, "sq": res.sq, "rq": res.rq, "segments": res.n_ref,
            "predicted": res.n_pred, "matched": res.n_matched}


def _score_t2(pair: Pair, out: Path, official: bool) -> dict:
    from .hausdorff import hausdorff95_details
    from .mapseg_report import write_t2_file

    ref = read_mask_image(pair.ref, official=official)
    pred = read_mask_image(pair.pred, official=official)
    check_same_size(ref, pred, pair.ref, pair.pred)
    res = hausdorff95_details(ref, pred, official=official)
    del ref, pred
    write_t2_file(out, pair.pred.stem, pair.ref.name, pair.pred.name, res)
    return {"error": res.hd95, "ref_to_pred": res.ref_to_pred, "pred_to_ref": res.pred_to_ref}


def _score_t3(pair: Pair, out: Path, official: bool) -> dict:
    from .mapseg_report import write_t3_file
    from .point_detection import pds

    ref = read_points(pair.ref, official=official)
    pred = read_points(pair.pred, official=official)
    res = pds(ref, pred, radius=RADIUS, beta=BETA, official=official)
    write_t3_file(out, pair.pred.stem, pair.ref.stem, pair.pred.stem, ref, res)
    return {"score": res.score, "points": res.n_ref, "predicted": res.n_pred,
            "matched": int(res.true_positives[-1]) if res.n_pred else 0}


TASKS = {
    "T1": Task("MapSeg task 1: COCO panoptic quality of building blocks", IMAGE_SUFFIXES,
               _score_t1, (("pq", "COCO PQ"), ("sq", "COCO SQ"), ("rq", "COCO RQ"),
                           ("segments", "T"), ("predicted", "P"), ("matched", "TP")),
               "Global score for task 1", "cocopq"),
    "T2": Task("MapSeg task 2: 95% Hausdorff distance of map-area masks (pixels)",
               IMAGE_SUFFIXES, _score_t2,
               (("error", "Error"), ("ref_to_pred", "ref->pred"), ("pred_to_ref", "pred->ref")),
               "Global error for task 2", "error"),
    "T3": Task("MapSeg task 3: PDS of graticule intersections", POINT_SUFFIXES, _score_t3,
               (("score", "Score"), ("points", "T"), ("predicted", "P"), ("matched", "TP")),
               "Global score for task 3", "score"),
}

_EPILOG = """\
REF and PRED: two files, or two directories paired by MapSeg names (NNN-OUTPUT-GT.ext with
NNN-OUTPUT-PRED.ext). T1/T2 read single-channel PNG or TIFF images (T1: 0/255 masks,
thresholded at 128 and labelled with 4-connectivity, or 16-bit/32-bit label maps; T2: 0/255
masks); T3 reads 'x,y' CSV files (pixels, y down). --official reproduces icdar21-mapseg-eval
1.0.4 exactly, including its known errors (see docs/metrics-mapseg.md).
"""


def _parser(command: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=f"python -m core.metrics {command}", description=TASKS[command].title,
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ref", type=Path, help="reference file or directory")
    parser.add_argument("pred", type=Path, help="prediction file or directory")
    parser.add_argument("outdir", type=Path, help="output directory (created if needed)")
    parser.add_argument("--official", action="store_true",
                        help="give the official tool's values, errors included")
    return parser


def _pairs(ref: Path, pred: Path, task: Task) -> tuple[list[Pair], bool]:
    """The pairs to score and whether this is directory mode."""
    for p in (ref, pred):
        if not p.exists():
            raise InputError(f"{p}: no such file or directory; check the path")
    if ref.is_file() and pred.is_file():
        return [Pair(ref.stem, ref, pred)], False
    if ref.is_dir() and pred.is_dir():
        return pair_directories(ref, pred, task.suffixes), True
    raise InputError(f"{ref} and {pred}: give two files or two directories")


def _format(value: object) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def print_table(rows: Sequence[dict], task: Task) -> None:
    """Per-file scores as an aligned text table on stdout."""
    headings = ["Reference", "Prediction", *(h for _, h in task.columns)]
    cells = [[r["reference"], r["prediction"], *(_format(r[k]) for k, _ in task.columns)]
             for r in rows]
    widths = [max(len(str(c)) for c in col) for col in zip(headings, *cells, strict=False)]
    for line in (headings, *cells):
        print("  ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                        for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip())


def main(command: str, argv: Sequence[str]) -> int:
    """Score ``command`` ("T1", "T2" or "T3") on the command-line arguments ``argv``."""
    task = TASKS[command]
    args = _parser(command).parse_args(list(argv))
    out: Path = args.outdir
    check_outputs(folders={"outdir": out})
    pairs, directory_mode = _pairs(args.ref, args.pred, task)

    rows: list[dict] = []

    def score(pair: Pair) -> None:
        row = task.score(pair, out, args.official)
        row.update(reference=pair.ref.name, prediction=pair.pred.name, ref_path=pair.ref,
                   pred_path=pair.pred)
        rows.append(row)

    if directory_mode:
        status = run_batch(pairs, score, name=lambda p: p.pred.name, desc=command)
        if not rows:
            return status
    else:
        score(pairs[0])
        status = EXIT_OK
    from .mapseg_report import write_global

    failed = sorted({p.pred.name for p in pairs} - {r["prediction"] for r in rows})
    data = write_global(out, command, rows, args.official, failed, RADIUS, BETA)
    print_table(rows, task)
    value = data[f"global_mean_{task.global_key}"]
    bar = "=" * 30
    note = " (official icdar21-mapseg-eval 1.0.4 values)" if args.official else ""
    print(f"{bar}\n{task.summary}: {value:0.3f}{note}\n{bar}")
    if failed:
        print(f"warning: the global value leaves out {len(failed)} failed file(s)",
              file=sys.stderr)
    return status
