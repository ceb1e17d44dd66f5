"""Plain-text table of a text-detection report, for the terminal."""

from __future__ import annotations

from .cleval import ClevalResult, ClevalStats
from .deteval import DetEvalResult
from .evaluate import MetricError, TextDetReport
from .iou import IouResult
from .scores import Rates
from .tiou import TiouResult


def _row(label: str, rates: Rates, counts: str) -> str:
    return (f"{label:<11} {rates.recall:>7.4f} {rates.precision:>10.4f} {rates.hmean:>7.4f}"
            f"  {counts}")


def _cleval_row(label: str, s: ClevalStats) -> str:
    counts = (f"chars: TP {s.num_char_tp}, GT {s.num_char_gt}, det {s.num_char_det}"
              f" (FP {s.num_char_fp}), penalties R {s.gran_score_recall:g}"
              f" P {s.gran_score_precision:g}")
    return _row(label, Rates.of(s.recall, s.precision), counts)


def _rows(name: str, result: object) -> list[str]:
    if isinstance(result, MetricError):
        return [f"{name:<11} error: {result.message}"]
    if isinstance(result, IouResult):
        return [_row(name, result.rates,
                     f"matched {result.matched}, care GT {result.num_gt_care}, care det"
                     f" {result.num_det_care}, don't-care det {result.num_det_dontcare}")]
    if isinstance(result, DetEvalResult):
        return [_row(name, result.rates,
                     f"recall credit {result.recall_accum:g} / {result.num_gt_care} care GT,"
                     f" precision credit {result.precision_accum:g} / {result.num_det_care}"
                     " care det")]
    if isinstance(result, TiouResult):
        s = result.siou
        return [_row(name, result.rates,
                     f"matched {result.matched}; SIoU R {s.recall:.4f} P {s.precision:.4f}"
                     f" H {s.hmean:.4f}")]
    if isinstance(result, ClevalResult):
        rows = [_cleval_row("cleval det", result.det)]
        if result.e2e is not None:
            rows.append(_cleval_row("cleval e2e", result.e2e))
        rows.append(f"{'':<11} split GTs {result.num_splitted}, merged dets {result.num_merged},"
                    f" chars covered twice {result.num_char_overlapped}")
        return rows
    raise TypeError(f"no table row for {type(result).__name__}")


def format_table(report: TextDetReport) -> str:
    """Header with the input counts, one row per metric (two for CLEval), then notes."""
    s = report.stats
    mode = "official (reference) mode" if report.official else "default mode"
    lines = [f"textdet, {mode}: {s.images} images, {s.gt_lines} GT words"
             f" ({s.gt_dontcare_lines} don't care), {s.pred_lines} detections,"
             f" {s.images_without_pred_file} images without a detection file", "",
             f"{'metric':<11} {'recall':>7} {'precision':>10} {'hmean':>7}  counts"]
    for name, result in report.results.items():
        lines += _rows(name, result)
    if report.notes:
        lines += ["", "notes:"] + [f"- {note}" for note in report.notes]
    return "\n".join(lines)
