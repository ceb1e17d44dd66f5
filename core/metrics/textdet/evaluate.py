"""Run the text-detection metrics on a dataset and collect one report.

``official=False`` (default) gives the corrected behaviour, ``official=True`` reproduces the
reference programs, refusals included (a refused metric becomes a :class:`MetricError`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import InputError
from ...progress import ProgressCallback, report
from .cleval import evaluate_cleval
from .deteval import evaluate_deteval
from .iou import evaluate_iou
from .rrc_format import (
    ReferenceRefusalError,
    TextImage,
    counter_clockwise_words,
    load_dataset,
)
from .tiou import evaluate_tiou

METRICS: dict[str, Callable[..., Any]] = {
    "iou": evaluate_iou,
    "deteval": evaluate_deteval,
    "tiou": evaluate_tiou,
    "cleval": evaluate_cleval,
}


@dataclass(frozen=True)
class DatasetStats:
    """Line and image counts of the input."""

    images: int
    gt_lines: int
    gt_dontcare_lines: int
    pred_lines: int
    images_without_pred_file: int

    @classmethod
    def of(cls, images: Sequence[TextImage]) -> DatasetStats:
        return cls(len(images), sum(len(im.gt) for im in images),
                   sum(w.dont_care for im in images for w in im.gt),
                   sum(len(im.det) for im in images),
                   sum(im.det_file is None for im in images))

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass(frozen=True)
class MetricError:
    """A metric the reference refuses to compute on this input (official mode)."""

    message: str

    def as_dict(self) -> dict:
        return {"error": self.message}


@dataclass(frozen=True)
class TextDetReport:
    """Results by metric name, input statistics and notes for the user."""

    official: bool
    stats: DatasetStats
    results: dict[str, Any]
    notes: tuple[str, ...] = field(default=())

    @property
    def failed(self) -> list[str]:
        return [name for name, r in self.results.items() if isinstance(r, MetricError)]

    def as_dict(self, *, per_image: bool = True) -> dict:
        """The structure of the conformance fixtures' expected.json, per_image included."""
        out: dict[str, Any] = {"mode": "official" if self.official else "default",
                               "stats": self.stats.as_dict()}
        out.update({name: r.as_dict() for name, r in self.results.items()})
        out["notes"] = list(self.notes)
        if per_image:
            images: dict[str, dict] = {}
            for name, r in self.results.items():
                for key, image in getattr(r, "per_image", {}).items():
                    images.setdefault(key, {})[name] = image.as_dict()
            out["per_image"] = images
        return out


def _notes(images: Sequence[TextImage], metrics: Sequence[str], official: bool) -> list[str]:
    notes = []
    ccw = list(counter_clockwise_words(images))
    if ccw and not official and {"iou", "tiou"} & set(metrics):
        first = f"{ccw[0][0]} line {ccw[0][1].line}"
        notes.append(f"{len(ccw)} counter-clockwise quad(s) (first: {first}) scored like their"
                     " clockwise twin; the RRC scripts (iou, tiou) refuse them (--official)")
    if official and "tiou" in metrics and images:
        first = images[0]
        if not any(not w.dont_care for w in first.gt):
            notes.append("the unpatched TIoU script crashes (UnboundLocalError) when the first"
                         " image it evaluates (Python 2 dict order: image 1 for ids 1-8) has"
                         f" no care GT, as {first.name} here; the tiou values are those of the"
                         " script with that crash fixed")
    if official and "deteval" in metrics:
        dropped = sum(int((~im.geometry.gt_simple).sum() + (~im.geometry.det_simple).sum())
                      for im in images)
        if dropped:
            notes.append(f"deteval dropped {dropped} invalid or self-intersecting quad(s),"
                         " as the reference does")
    if "cleval" in metrics and any(w.text is None for im in images for w in im.det):
        notes.append("cleval e2e needs a transcription on every detection line; only det"
                     " was computed")
    return notes


def evaluate(images: Sequence[TextImage], metrics: Sequence[str] = tuple(METRICS), *,
             official: bool = False, progress: ProgressCallback | None = None) -> TextDetReport:
    """Compute the chosen metrics (names from METRICS) on paired images."""
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise InputError(f"unknown metric {', '.join(unknown)}; choose from {', '.join(METRICS)}")
    results: dict[str, Any] = {}
    for k, name in enumerate(metrics):
        report(progress, k / len(metrics), name)
        try:
            results[name] = METRICS[name](images, official=official)
        except ReferenceRefusalError as exc:
            results[name] = MetricError(str(exc))
    report(progress, 1.0, "done")
    return TextDetReport(official, DatasetStats.of(images), results,
                         tuple(_notes(images, metrics, official)))


def evaluate_paths(gt: str | os.PathLike, pred: str | os.PathLike,
                   metrics: Sequence[str] = tuple(METRICS), *, official: bool = False,
                   progress: ProgressCallback | None = None) -> TextDetReport:
    """Load GT and detections (directories or .zip files of RRC text files) and evaluate.

    Official mode accepts invalid UTF-8 (replaced by U+FFFD, as the references do); the
    default refuses it.
    """
    images = load_dataset(gt, pred, strict_utf8=not official)
    return evaluate(images, metrics, official=official, progress=progress)
