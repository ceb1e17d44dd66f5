"""Recall, precision and their harmonic mean, with the references' zero conventions."""

from __future__ import annotations

from dataclasses import dataclass


def ratio(num: float, den: float) -> float:
    """num / den, or 0 when den is 0 (every reference's dataset-level rule)."""
    return 0 if den == 0 else num / den


def hmean(recall: float, precision: float) -> float:
    """2PR / (P + R), or 0 when P + R is 0; evaluated in the references' order."""
    return 0 if recall + precision == 0 else 2 * recall * precision / (recall + precision)


@dataclass(frozen=True)
class Rates:
    """Recall, precision and hmean in [0, 1]."""

    recall: float
    precision: float
    hmean: float

    @classmethod
    def of(cls, recall: float, precision: float) -> Rates:
        return cls(recall, precision, hmean(recall, precision))

    @classmethod
    def from_counts(cls, recall_num: float, gt_den: float, precision_num: float,
                    det_den: float) -> Rates:
        """Dataset-level rates: each ratio is 0 when its denominator is 0."""
        return cls.of(ratio(recall_num, gt_den), ratio(precision_num, det_den))

    @classmethod
    def per_image(cls, recall_num: float, gt_care: int, precision_num: float,
                  det_care: int) -> Rates:
        """The RRC scripts' per-image rates: with no care GT, recall 1 and precision 0
        (1 when there is no care detection either)."""
        if gt_care == 0:
            return cls.of(1.0, 0.0 if det_care > 0 else 1.0)
        return cls.of(recall_num / gt_care, ratio(precision_num, det_care))

    def as_dict(self) -> dict[str, float]:
        return {"recall": self.recall, "precision": self.precision, "hmean": self.hmean}
