"""Task 2, text detection and recognition: IoU score, OCR score and their harmonic mean.

Per chart, a predicted block matches a GT block when their IoU is at least 0.5.
``iou = Σ IoU(matched) / max(#GT, #pred)``; ``ocr`` sums ``max(0, 1 - ED/len(GT text))`` over
the matched GT blocks (ED: Levenshtein distance of the normalised texts, see latex.py). Both
are averaged over all GT charts (a chart without prediction scores 0) and the headline is
``hmean = 2·iou·ocr / (iou + ocr)``.

Official modes take, for each GT block, the *first* prediction with IoU >= 0.5 (not one to
one), divide ``ocr`` by #GT only and drop blocks whose text contains ``__``. 2019 uses the
inclusive-pixel IoU (``w + 1``) and reads only ``bb`` boxes; 2020 uses polygon areas. The
default pairs blocks one to one maximising the summed IoU, divides ``ocr`` by the number of
matched, missed and false-positive blocks (each miss or false positive has a normalised
error of 1, as the competition describes) and keeps every block.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...errors import InputError
from .assignment import max_sum_pairs
from .boxes import quad_iou_matrix, rect_iou_matrix, rect_quad
from .common import (
    ChartEvaluation,
    chart_id,
    crash,
    describe_exception,
    dotless_id,
    dotted_id,
    harmonic_mean,
    json_files,
    mode_name,
    nothing_scored,
    read_json,
    unusable_prediction,
)
from .latex import normalize_text
from .strings import levenshtein

IOU_THRESHOLD = 0.5


class _BadBlocksError(Exception):
    """A text-block list that the reader cannot use."""


def _blocks_2020(doc: Any) -> list:
    """The block list, as the 2020 script recovers it (and the default mode too)."""
    if not isinstance(doc, dict):
        raise _BadBlocksError("the file is not a JSON object")
    if "task2" in doc:
        task = doc["task2"]
    elif "task1.2" in doc:
        task = doc["task1.2"]
    else:
        raise _BadBlocksError("No Task 2 output found")
    if isinstance(task, dict) and "output" in task:
        out = task["output"]
        blocks = out["text_blocks"] if isinstance(out, dict) and "text_blocks" in out else out
    else:
        blocks = task
    if isinstance(blocks, dict) and not blocks:
        return []
    if not isinstance(blocks, list):
        raise _BadBlocksError("the text blocks are not a list")
    return blocks


def extract_blocks(doc: Any, official: int | None) -> tuple[list, list[str]]:
    """(quads, normalised texts) of a task 2 document.

    Quads are ``((x, y), ...)`` with four corners. Officially, blocks whose normalised text
    contains ``__`` are dropped. Raises KeyError/TypeError/_BadBlocksError when unusable.
    """
    blocks = doc["task2"]["output"]["text_blocks"] if official == 2019 else _blocks_2020(doc)
    quads, texts = [], []
    for block in blocks:
        if official == 2019:
            bb = block["bb"]
            region = {"x0": bb["x0"], "y0": bb["y0"], "width": bb["width"],
                      "height": bb["height"]}
        elif "bb" in block:
            region = block["bb"]
        elif "polygon" in block:
            region = block["polygon"]
        else:
            raise _BadBlocksError("No valid text region block found in JSON")
        if "width" in region:
            quad = rect_quad(region["x0"], region["y0"], region["width"], region["height"])
        else:
            quad = tuple((region[f"x{i}"], region[f"y{i}"]) for i in range(4))
        text = normalize_text(block["text"])
        if official is not None and "__" in text:
            continue
        quads.append(quad)
        texts.append(text)
    return quads, texts


def _iou_matrix(gt_quads: list, pred_quads: list, official: int | None) -> np.ndarray:
    gq = np.asarray(gt_quads, dtype=float).reshape(-1, 4, 2)
    pq = np.asarray(pred_quads, dtype=float).reshape(-1, 4, 2)
    if official == 2019:
        # x1, y1, x2, y2 from the corners 0 and 2 (bb boxes only in 2019)
        return rect_iou_matrix(gq[:, 0::2].reshape(-1, 4), pq[:, 0::2].reshape(-1, 4),
                               plus_one=True)
    return quad_iou_matrix(gq, pq, repair=official is None)


def score_chart(gt_quads: list, gt_texts: list[str], pred_quads: list, pred_texts: list[str],
                official: int | None) -> tuple[float, float]:
    """(iou score, ocr score) of one chart; raises ZeroDivisionError where the scripts do."""
    n_gt, n_pred = len(gt_quads), len(pred_quads)
    if official is None and n_gt == 0:
        return (1.0, 1.0) if n_pred == 0 else (0.0, 0.0)
    iou = _iou_matrix(gt_quads, pred_quads, official)
    iou_sum = text_sum = 0.0
    if official is None:
        pairs = _best_pairs(iou)
        for g, r in pairs:
            iou_sum += iou[g, r]
            text_sum += _text_score(gt_texts[g], pred_texts[r])
        return (iou_sum / max(n_gt, n_pred),
                text_sum / (n_gt + n_pred - len(pairs)))
    with np.errstate(invalid="ignore"):
        flags = iou >= IOU_THRESHOLD
    for g in range(n_gt):
        if flags[g].any():
            r = int(np.argmax(flags[g]))
            iou_sum += iou[g, r]
            ncer = levenshtein(gt_texts[g], pred_texts[r]) / float(len(gt_texts[g]))
            text_sum += max(1.0 - ncer, 0.0)
    return iou_sum / max(n_gt, n_pred), text_sum / n_gt


def _best_pairs(iou: np.ndarray) -> list[tuple[int, int]]:
    """One-to-one pairs with IoU >= 0.5 that maximise the summed IoU."""
    if iou.size == 0:
        return []
    eligible = np.where(np.nan_to_num(iou) >= IOU_THRESHOLD, np.nan_to_num(iou), 0.0)
    rows, cols = max_sum_pairs(eligible)
    return [(int(g), int(r)) for g, r in zip(rows, cols, strict=True) if eligible[g, r] > 0]


def _text_score(gt: str, pred: str) -> float:
    """max(0, 1 - ED/len(gt)); an empty GT text scores 1 only against an empty text."""
    if not gt:
        return float(not pred)
    return max(1.0 - levenshtein(gt, pred) / float(len(gt)), 0.0)


def evaluate_task2(gt_dir: Path, pred_dir: Path, *,
                   official: int | None = None) -> ChartEvaluation:
    """Score text detection and recognition of ``pred_dir`` against ``gt_dir``."""
    ev = ChartEvaluation(task="2", mode=mode_name(official), result={})
    gt_paths = json_files(gt_dir, "GT")
    json_files(pred_dir, "prediction")
    if not gt_paths:
        raise InputError(f"{gt_dir} holds no GT .json file; check the folder")
    pred_name = {2019: dotless_id, 2020: dotted_id}.get(official, dotted_id)
    total_iou = total_ocr = 0.0
    n_scored = 0
    for gt_path in gt_paths:
        cid = chart_id(gt_path)
        pred_path = Path(pred_dir) / (pred_name(gt_path.name) + ".json")
        iou = ocr = 0.0
        if not pred_path.is_file():
            ev.charts_without_prediction.append(cid)
        try:
            if pred_path.is_file() or official is None:
                iou, ocr = _score_file(gt_path, pred_path, official, ev)
        except _SkipError:
            pass
        except InputError as exc:
            if official:
                raise
            ev.problems.append((cid, str(exc)))
            continue
        n_scored += 1
        total_iou += iou
        total_ocr += ocr
        ev.per_chart[cid] = {"iou": iou, "ocr": ocr, "hmean": harmonic_mean(iou, ocr)}
    if not n_scored:
        raise nothing_scored(ev)
    total_iou /= len(gt_paths) if official else n_scored
    total_ocr /= len(gt_paths) if official else n_scored
    if official == 2019 and total_iou + total_ocr == 0:
        raise crash(2019, "2", None, "ZeroDivisionError in the harmonic mean: both totals are 0")
    ev.result = {"iou": total_iou, "ocr": total_ocr, "hmean": harmonic_mean(total_iou, total_ocr)}
    return ev


class _SkipError(Exception):
    """The chart scores 0 (a prediction the 2020 script or the default cannot read)."""


def _score_file(gt_path: Path, pred_path: Path, official: int | None,
                ev: ChartEvaluation) -> tuple[float, float]:
    cid = chart_id(gt_path)
    gt = read_json(gt_path)
    try:
        gt_quads, gt_texts = extract_blocks(gt, official)
    except (KeyError, TypeError, AttributeError, ValueError, _BadBlocksError) as exc:
        if official:
            raise crash(official, "2", cid, f"GT: {describe_exception(exc)}") from exc
        raise InputError(f"{gt_path}: unusable task2 text blocks "
                         f"({describe_exception(exc)})") from exc
    try:
        if pred_path.is_file():
            pred_quads, pred_texts = extract_blocks(read_json(pred_path), official)
        else:  # default mode: no prediction file = an empty prediction
            pred_quads, pred_texts = [], []
    except (InputError, KeyError, TypeError, AttributeError, ValueError, _BadBlocksError) as exc:
        if official == 2019:
            raise crash(2019, "2", cid, describe_exception(exc)) from exc
        if official is None:
            unusable_prediction(ev, cid, describe_exception(exc))
        else:
            ev.notes.append(f"{cid}: prediction unusable, scored 0 "
                            f"({describe_exception(exc)})")
        raise _SkipError from exc
    if official == 2019 and (not gt_quads or not pred_quads):
        raise crash(2019, "2", cid, "IndexError: too many indices for array, an empty "
                    "text-block list")
    try:
        return score_chart(gt_quads, gt_texts, pred_quads, pred_texts, official)
    except ZeroDivisionError as exc:
        raise crash(official, "2", cid, "ZeroDivisionError: a GT chart without text "
                    "blocks or an empty GT text") from exc
    except Exception as exc:  # shapely's GEOSException on a self-intersecting quad
        if official and type(exc).__name__ == "GEOSException":
            raise crash(official, "2", cid, describe_exception(exc)) from exc
        raise
