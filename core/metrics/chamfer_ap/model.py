"""Inputs and results of the chamfer-distance AP.

GT frames: ``{token: {class_name: [polyline, ...]}}``, frames in evaluation order; a polyline
is an ``(N, 2)`` array-like of x, y (extra columns such as z are ignored for the GT).
Predictions: ``{token: [Prediction, ...]}``. Coordinates are in any unit (metres for the
challenge, pixels or map units for layers); thresholds and the sample spacing use that unit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_THRESHOLDS = (0.5, 1.0, 1.5)
"""The challenge's chamfer-distance thresholds, in metres (coordinate units)."""

RESERVED_KEYS = frozenset({"mAP", "num_tp", "stats", "settings", "warnings", "per_frame"})
"""Top-level keys of the JSON result: no class may have one of these names."""

GtFrames = Mapping[Any, Mapping[str, Sequence[Any]]]


@dataclass(frozen=True)
class Prediction:
    """One predicted polyline: ``(N, 2)`` x, y points, a confidence score and a class name."""

    points: Any
    score: float
    label: str


PredFrames = Mapping[Any, Sequence[Prediction]]


@dataclass(frozen=True)
class ClassResult:
    """AP of one class: ``ap_at[i]`` at ``thresholds[i]``; None when undefined (no GT, default
    mode). ``num_tp[i]``: true positives at ``thresholds[i]`` over all frames."""

    num_gts: int
    num_preds: int
    ap_at: tuple[float | None, ...]
    ap: float | None
    num_tp: tuple[int, ...]


@dataclass(frozen=True)
class ChamferApResult:
    """Result of :func:`~core.metrics.chamfer_ap.chamfer_ap`.

    mean_ap: mean of the class APs (None when undefined); classes: name -> ClassResult in
    class order; stats: counts of frames, lines, tokens and ties; per_frame: debugging detail
    (only when asked for), as in the fixtures' ``expected.json``.
    """

    mean_ap: float | None
    classes: dict[str, ClassResult]
    thresholds: tuple[float, ...]
    official: bool
    sample_dist: float
    stats: dict[str, Any]
    warnings: tuple[str, ...] = ()
    per_frame: dict[str, Any] | None = field(default=None, repr=False)

    def ap_key(self, threshold: float) -> str:
        """The reference's key for the AP at ``threshold``, e.g. ``AP@0.5``."""
        return f"AP@{float(threshold)}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON result: the reference's keys (``mAP``, per class ``num_gts``,
        ``num_preds``, ``AP@<thr>``, ``AP``), then ``num_tp``, ``stats``, ``settings``,
        ``warnings`` and, when computed, ``per_frame``. Undefined values are None (null)."""
        out: dict[str, Any] = {"mAP": self.mean_ap}
        for name, res in self.classes.items():
            entry: dict[str, Any] = {"num_gts": res.num_gts, "num_preds": res.num_preds}
            entry.update({self.ap_key(t): ap for t, ap in zip(self.thresholds, res.ap_at,
                                                              strict=True)})
            entry["AP"] = res.ap
            out[name] = entry
        out["num_tp"] = {name: {str(float(t)): n for t, n in zip(self.thresholds, res.num_tp,
                                                                 strict=True)}
                         for name, res in self.classes.items()}
        out["stats"] = self.stats
        out["settings"] = {"mode": "official" if self.official else "default",
                           "thresholds": [float(t) for t in self.thresholds],
                           "sample_dist": self.sample_dist, "classes": list(self.classes)}
        out["warnings"] = list(self.warnings)
        if self.per_frame is not None:
            out["per_frame"] = self.per_frame
        return out
