"""The challenge's JSON files: GT annotations and submissions (CVPR 2023 Online HD Map).

GT (``resources/docs/data.md``)::

    {"<segment_id>": [{"timestamp": "<token>",
                       "annotation": {"ped_crossing": [line, ...], "divider": [...],
                                      "boundary": [...]}, ...}, ...], ...}
    line = [[x, y, z, visibility], ...]       metres, ego frame; only x, y are used

Submission (``resources/docs/metrics.md``)::

    {"meta": {...}, "results": {"<token>": {"vectors": [[[x, y], ...], ...],
                                            "scores": [float, ...], "labels": [0|1|2, ...]}}}

Frames are in GT file order (segments, then list order). Labels 0, 1, 2 are ped_crossing,
divider, boundary. Differences from the reference in default mode (``official=False``): a
frame may leave out an empty class; an integer timestamp matches the token with the same
digits; a timestamp or JSON key given twice is an error instead of the later one silently
replacing the earlier one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import InputError
from .model import Prediction
from .resample import SAMPLE_DIST

CHALLENGE_CLASSES = ("ped_crossing", "divider", "boundary")
"""Class names of the challenge, in label order (label 0, 1, 2) and the mAP's order."""


@dataclass(frozen=True)
class ChamferApInput:
    """GT frames and predictions ready for :func:`chamfer_ap`, with where they came from.

    segments: number of GT segments (challenge) or 1 (layers); sample_dist: the default
    resampling spacing for this input (coordinate units); notes: warnings about the input.
    """

    gt_frames: dict[Any, dict[str, list[Any]]]
    pred_frames: dict[Any, list[Prediction]]
    classes: tuple[str, ...]
    segments: int
    sample_dist: float
    notes: tuple[str, ...] = ()


def load_json(path: str | os.PathLike, *, official: bool = False) -> Any:
    """Parse a JSON file; in default mode a key given twice in one object is an InputError
    (``json`` would silently keep the last one, as the reference does)."""
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file; check the path")
    hook = None if official else _no_duplicate_keys(p)
    try:
        with p.open("rb") as f:
            return json.load(f, object_pairs_hook=hook)
    except UnicodeDecodeError:
        raise InputError(f"{p} is not a UTF-8 JSON file") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{p} is not valid JSON (line {exc.lineno}, column {exc.colno}: "
                         f"{exc.msg}); fix or regenerate the file") from None


def _no_duplicate_keys(path: Path):
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out = dict(pairs)
        if len(out) != len(pairs):
            seen: set[str] = set()
            dup = next(k for k, _ in pairs if k in seen or seen.add(k))
            raise InputError(f"{path}: key {dup!r} appears twice in one object; the later "
                             "one would silently replace the earlier: make keys unique")
        return out
    return hook


def is_challenge_gt(data: Any) -> bool:
    """True for ``{segment: [frame, ...]}`` data (a GeoJSON object is not)."""
    return isinstance(data, dict) and "type" not in data and all(
        isinstance(v, list) for v in data.values())


def read_challenge_gt(data: Any, *, official: bool = False,
                      name: str = "GT") -> tuple[dict[Any, dict[str, list[Any]]], int]:
    """GT frames ``{token: {class: [line, ...]}}`` from parsed annotation JSON, and the number
    of segments. ``name`` is used in error messages (the file name)."""
    if not is_challenge_gt(data):
        raise InputError(f"{name}: expected the challenge annotation format "
                         "{segment_id: [{timestamp, annotation}, ...]}")
    frames: dict[Any, dict[str, list[Any]]] = {}
    for segment, seq in data.items():
        for k, frame in enumerate(seq):
            where = f"{name}: segment {segment}, frame {k}"
            if not isinstance(frame, dict) or "timestamp" not in frame \
                    or not isinstance(frame.get("annotation"), dict):
                raise InputError(f"{where}: a frame needs 'timestamp' and an 'annotation' "
                                 "object")
            token = _token(frame["timestamp"], official, where)
            if token in frames and not official:
                raise InputError(f"{where}: timestamp {token!r} appears twice; the reference "
                                 "keeps only the later frame: make timestamps unique")
            annotation = frame["annotation"]
            lines: dict[str, list[Any]] = {}
            for cls in CHALLENGE_CLASSES:
                if cls not in annotation:
                    if official:
                        raise InputError(f"{where}: annotation has no {cls!r} key; the "
                                         "reference crashes on that (run without --official "
                                         "to read it as no lines)")
                    lines[cls] = []
                    continue
                if not isinstance(annotation[cls], list):
                    raise InputError(f"{where}: annotation {cls!r} must be a list of lines")
                lines[cls] = annotation[cls]
            frames[token] = lines  # official: a repeated timestamp replaces the earlier frame
    return frames, len(data)


def _token(value: Any, official: bool, where: str) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        # prediction tokens are JSON object keys, always strings: the reference never
        # matches an integer timestamp; the default matches its digits
        return value if official else str(value)
    raise InputError(f"{where}: timestamp must be a string, not {value!r}")


def read_challenge_pred(data: Any, *, name: str = "PRED") -> dict[str, list[Prediction]]:
    """Predictions ``{token: [Prediction, ...]}`` from parsed submission JSON."""
    if not isinstance(data, dict) or not isinstance(data.get("results"), dict):
        raise InputError(f"{name}: expected the challenge submission format "
                         "{\"results\": {token: {vectors, scores, labels}}}")
    preds: dict[str, list[Prediction]] = {}
    for token, entry in data["results"].items():
        where = f"{name}: token {token}"
        if not isinstance(entry, dict) or not all(
                isinstance(entry.get(k), list) for k in ("vectors", "scores", "labels")):
            raise InputError(f"{where}: needs lists 'vectors', 'scores' and 'labels'")
        vectors, scores, labels = entry["vectors"], entry["scores"], entry["labels"]
        if not len(vectors) == len(scores) == len(labels):
            raise InputError(f"{where}: {len(vectors)} vectors, {len(scores)} scores and "
                             f"{len(labels)} labels; give one score and label per vector")
        preds[token] = [Prediction(v, s, _class_of(lab, f"{where}, prediction {i}"))
                        for i, (v, s, lab) in enumerate(zip(vectors, scores, labels,
                                                            strict=True))]
    return preds


def _class_of(label: Any, where: str) -> str:
    if isinstance(label, int | float) and not isinstance(label, bool) and label in (0, 1, 2):
        return CHALLENGE_CLASSES[int(label)]
    raise InputError(f"{where}: label must be 0 (ped_crossing), 1 (divider) or 2 (boundary), "
                     f"not {label!r}")


def read_challenge(gt_path: str | os.PathLike, pred_path: str | os.PathLike, *,
                   official: bool = False, gt_data: Any = None,
                   pred_data: Any = None) -> ChamferApInput:
    """Read a GT annotation file and a submission file (or their already parsed data)."""
    if gt_data is None:
        gt_data = load_json(gt_path, official=official)
    if pred_data is None:
        pred_data = load_json(pred_path, official=official)
    gt_frames, segments = read_challenge_gt(gt_data, official=official, name=str(gt_path))
    pred_frames = read_challenge_pred(pred_data, name=str(pred_path))
    return ChamferApInput(gt_frames, pred_frames, CHALLENGE_CLASSES, segments, SAMPLE_DIST)
