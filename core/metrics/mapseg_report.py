"""Output files of the MapSeg metrics: per-file CSVs and curves (PNG and PDF), global CSV and
the official tool's summary JSON (same file names and keys, a few keys added).

Every writer is atomic: files appear complete under their final names or not at all.
Numbers are written as Python's shortest round-trip ``repr`` (as pandas does).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ..atomic import atomic_outputs
from .hausdorff import HausdorffResult
from .panoptic import MATCH_IOU, PanopticResult, SegmentTable
from .point_detection import EXTRA, MATCH, TOO_FAR, PdsResult


def _cell(value: object) -> str:
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        return repr(float(value))
    text = str(value)
    if any(c in text for c in ',"\n\r'):
        text = '"' + text.replace('"', '""') + '"'
    return text


def csv_text(header: Sequence[str], rows) -> str:
    """CSV text: a header line, then one line per row (``\\n`` line ends)."""
    lines = [",".join(_cell(h) for h in header)]
    lines += [",".join(_cell(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def global_csv_name(task: str, radius: float = 50, beta: float = 0.5) -> str:
    """The official name of the global CSV; on Windows ``:`` (not allowed) becomes ``-``."""
    if task == "T1":
        return "global_coco.csv"
    if task == "T2":
        return "global_hd95.csv"
    name = f"global_rad:{radius:g}_beta:{beta:0.2f}.csv"
    return name.replace(":", "-") if os.name == "nt" else name


def _figure(size=(6.0, 6.0)):
    """A matplotlib figure not tied to pyplot (no global state, no display needed), with fixed
    margins (an automatic layout would cost more than the metric on small inputs)."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=size)
    fig.subplots_adjust(left=0.13, right=0.97, bottom=0.09, top=0.9)
    return fig


def _save(fig, pdf: Path, png: Path) -> None:
    fig.savefig(pdf)
    fig.savefig(png, dpi=100)


# ---- T1 ----------------------------------------------------------------------------------

def _segment_rows(kind: str, table: SegmentTable):
    for k in range(len(table.labels)):
        yield (kind, table.labels[k], table.areas[k], table.best_match[k],
               table.intersection[k], table.iou[k], table.matched[k])


def write_t1_file(out: Path, stem: str, ref_name: str, pred_name: str,
                  res: PanopticResult) -> None:
    """``{stem}.eval.csv`` (per segment), ``{stem}.plot.csv`` (curve), ``{stem}.plot.pdf/png``."""
    c = res.curve
    eval_text = csv_text(
        ["Set", "Label", "Area", "Best match", "Intersection", "IoU", "Matched"],
        [*_segment_rows("reference", res.ref_segments),
         *_segment_rows("prediction", res.pred_segments)])
    curve_text = csv_text(
        ["IoU", "Precision", "Recall", "F-score", "Reference", "Prediction"],
        [(c.thresholds[k], c.precision[k], c.recall[k], c.fscore[k], ref_name, pred_name)
         for k in range(len(c.thresholds))])
    fig = _figure()
    ax = fig.add_subplot()
    x = np.concatenate(([MATCH_IOU], c.thresholds, [1.0]))
    for values, label in ((c.precision, "Precision"), (c.recall, "Recall"),
                          (c.fscore, "F-score")):
        first = values[0] if len(values) else 0.0
        ax.plot(x, np.concatenate(([first], values, [0.0])), marker="o", markersize=3,
                drawstyle="steps-pre", label=label)
    ax.set(xlim=(0.5, 1), ylim=(0, 1.02), xlabel="IoU threshold", ylabel="score",
           title=f"{pred_name}\nPQ {res.pq:.3f} = SQ {res.sq:.3f} x RQ {res.rq:.3f}")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left")
    names = [out / f"{stem}.eval.csv", out / f"{stem}.plot.csv", out / f"{stem}.plot.pdf",
             out / f"{stem}.plot.png"]
    with atomic_outputs(names) as (t_eval, t_curve, t_pdf, t_png):
        t_eval.write_text(eval_text, encoding="utf-8", newline="\n")
        t_curve.write_text(curve_text, encoding="utf-8", newline="\n")
        _save(fig, t_pdf, t_png)



# ---- T2 ----------------------------------------------------------------------------------

def write_t2_file(out: Path, stem: str, ref_name: str, pred_name: str,
                  res: HausdorffResult) -> None:
    """``{stem}.eval.csv`` (directed percentiles) and ``{stem}.plot.pdf/png`` (distances)."""
    eval_text = csv_text(
        ["Reference", "Prediction", "Error", "Reference to prediction",
         "Prediction to reference", "Reference boundary pixels", "Prediction boundary pixels",
         "Percentile"],
        [(ref_name, pred_name, res.hd95, res.ref_to_pred, res.pred_to_ref,
          len(res.ref_distances), len(res.pred_distances), res.percentile)])
    fig = _figure()
    ax = fig.add_subplot()
    for dist, value, label in ((res.ref_distances, res.ref_to_pred, "reference to prediction"),
                               (res.pred_distances, res.pred_to_ref, "prediction to reference")):
        if len(dist):
            d = np.sort(dist)
            line, = ax.plot(d, np.arange(1, len(d) + 1) / len(d), drawstyle="steps-post",
                            label=f"{label} (P{res.percentile:g} {value:.2f} px)")
            ax.axvline(value, color=line.get_color(), linestyle="--", linewidth=0.8)
    ax.axhline(res.percentile / 100, color="grey", linewidth=0.5)
    ax.set(ylim=(0, 1.02), xlabel="distance of boundary pixels (px)",
           ylabel="fraction of boundary pixels",
           title=f"{pred_name}\nHD{res.percentile:g} = {res.hd95:.2f} px")
    ax.grid(alpha=0.3)
    if len(res.ref_distances) or len(res.pred_distances):
        ax.legend(loc="lower right")
    names = [out / f"{stem}.eval.csv", out / f"{stem}.plot.pdf", out / f"{stem}.plot.png"]
    with atomic_outputs(names) as (t_eval, t_pdf, t_png):
        t_eval.write_text(eval_text, encoding="utf-8", newline="\n")
        _save(fig, t_pdf, t_png)


# ---- T3 ----------------------------------------------------------------------------------

def write_t3_file(out: Path, stem: str, ref_name: str, pred_name: str, ref_points: np.ndarray,
                  res: PdsResult) -> None:
    """The official ``{stem}.eval.csv`` (per prediction) and ``{stem}.plot.csv`` (curve), the
    curve ``{stem}.plot.pdf/png`` and the classified points ``{stem}.clf.pdf/png``."""
    eval_text = csv_text(
        ["Distance", "Precision", "Recall", "F-beta", "True Positives", "False Positives",
         "False Negatives", "Error type", "Prediction x", "Prediction y", "Reference",
         "Prediction", "Prediction index", "Nearest reference"],
        [(res.distance[k], res.precision[k], res.recall[k], res.fbeta[k],
          res.true_positives[k], res.false_positives[k], res.false_negatives[k],
          res.error_type[k], res.pred_points[k, 0], res.pred_points[k, 1], ref_name, pred_name,
          res.pred_index[k], res.nearest_ref[k]) for k in range(res.n_pred)])
    curve_text = csv_text(
        ["", "Normalized distance", "F-beta", "Reference", "Prediction"],
        [(k, res.curve_distance[k], res.curve_fbeta[k], ref_name, pred_name)
         for k in range(len(res.curve_distance))])

    fig = _figure()
    ax = fig.add_subplot()
    ax.plot(res.curve_distance, res.curve_fbeta, "-x")
    ax.set(xlim=(0, 1), ylim=(0, 1.02), xlabel=f"normalized distance (0-{res.radius:g} px)",
           ylabel=f"$F_{{\\beta={res.beta:0.2f}}}$ score",
           title=f"{pred_name}\nPDS = {res.score:.3f}")
    ax.grid(alpha=0.3)

    clf = _figure((7.0, 7.0))
    bx = clf.add_subplot()
    from matplotlib.collections import EllipseCollection

    if len(ref_points):
        diameters = np.full(len(ref_points), 2 * res.radius)
        bx.add_collection(EllipseCollection(
            diameters, diameters, np.zeros(len(ref_points)), units="xy",
            offsets=ref_points, offset_transform=bx.transData, facecolors="none",
            edgecolors="black", linestyles="--", alpha=0.5))
        bx.plot(ref_points[:, 0], ref_points[:, 1], "og", label="reference")
    for kind, style, label in ((TOO_FAR, "xk", "predicted (too far)"),
                               (EXTRA, "xr", "predicted (extra)"),
                               (MATCH, "xb", "predicted (match)")):
        sel = res.error_type == kind
        if sel.any():
            bx.plot(res.pred_points[sel, 0], res.pred_points[sel, 1], style, label=label,
                    alpha=0.8)
    everything = np.vstack((ref_points.reshape(-1, 2), res.pred_points.reshape(-1, 2)))
    if len(everything):
        lo = everything.min(axis=0) - 1.1 * res.radius
        hi = everything.max(axis=0) + 1.1 * res.radius
        bx.set_xlim(lo[0], hi[0])
        bx.set_ylim(hi[1], lo[1])  # image convention: y down
    bx.set_aspect(1)
    bx.set(xlabel="x (px)", ylabel="y (px)", title=f"{pred_name}: PDS = {res.score:.3f}")
    if len(ref_points) or res.n_pred:
        bx.legend(loc="best")

    names = [out / f"{stem}.eval.csv", out / f"{stem}.plot.csv", out / f"{stem}.plot.pdf",
             out / f"{stem}.plot.png", out / f"{stem}.clf.pdf", out / f"{stem}.clf.png"]
    with atomic_outputs(names) as (t_eval, t_curve, t_pdf, t_png, c_pdf, c_png):
        t_eval.write_text(eval_text, encoding="utf-8", newline="\n")
        t_curve.write_text(curve_text, encoding="utf-8", newline="\n")
        _save(fig, t_pdf, t_png)
        _save(clf, c_pdf, c_png)


# ---- global files ------------------------------------------------------------------------

def mean(values: Sequence[float]) -> float:
    """Mean as the official tool takes it (pandas: pairwise float64 sum / count)."""
    return float(np.mean(np.asarray(values, dtype=np.float64))) if len(values) else math.nan


def write_global(out: Path, task: str, rows: Sequence[dict], official: bool,
                 failed: Sequence[str], radius: float = 50, beta: float = 0.5) -> dict:
    """The global CSV and JSON of a run; returns the JSON data.

    ``rows`` hold ``reference``/``prediction`` (names), ``ref_path``/``pred_path`` and the
    scores (``pq``, ``sq``, ``rq`` for T1; ``error`` for T2; ``score`` for T3).
    """
    refs = [str(r["ref_path"]) for r in rows]
    preds = [str(r["pred_path"]) for r in rows]
    if task == "T1":
        header = ["Reference", "Prediction", "COCO PQ", "COCO SQ", "COCO RQ"]
        table = [(r["reference"], r["prediction"], r["pq"], r["sq"], r["rq"]) for r in rows]
        data = {"global_mean_cocopq": mean([r["pq"] for r in rows]),
                "global_mean_cocosq": mean([r["sq"] for r in rows]),
                "global_mean_cocorq": mean([r["rq"] for r in rows]),
                "references": refs, "predictions": preds}
        json_name = "global_score.json"
    elif task == "T2":
        header = ["Reference", "Prediction", "Error"]
        table = [(r["reference"], r["prediction"], r["error"]) for r in rows]
        data = {"global_mean_error": mean([r["error"] for r in rows]),
                "references": refs, "predictions": preds}
        json_name = "global_error.json"
    else:
        header = ["Reference", "Prediction", "Score"]
        table = [(r["reference"], r["prediction"], r["score"]) for r in rows]
        data = {"global_mean_score": mean([r["score"] for r in rows]),
                "references": refs, "predictions": preds, "radius_limit": radius,
                "beta": beta}
        json_name = "global_score.json"
    data["official"] = official
    data["failed"] = list(failed)
    csv_path = out / global_csv_name(task, radius, beta)
    with atomic_outputs([csv_path, out / json_name]) as (t_csv, t_json):
        t_csv.write_text(csv_text(header, table), encoding="utf-8", newline="\n")
        t_json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8", newline="\n")
    return data
