"""Chamfer-distance AP of polylines: the CVPR 2023 Online HD Map Construction challenge metric.

Library use::

    from core.metrics.chamfer_ap import chamfer_ap, read_challenge
    inp = read_challenge("gt.json", "pred.json")
    result = chamfer_ap(inp.gt_frames, inp.pred_frames, classes=inp.classes)
    result.mean_ap, result.classes["divider"].ap_at

Command line: ``python -m core.metrics chamfer-ap GT PRED [--json OUT.json] [--official]``.
Modules: formats (challenge JSON), layers (OGR layers), resample, distance, matching, ap,
evaluate, cli. Differences from the reference: docs/metrics-chamfer-ap.md.
"""

from .evaluate import chamfer_ap
from .formats import CHALLENGE_CLASSES, ChamferApInput, read_challenge
from .layers import LayerFields, read_layers
from .model import DEFAULT_THRESHOLDS, ChamferApResult, ClassResult, Prediction
from .resample import SAMPLE_DIST, resample_polyline, resample_polylines

__all__ = [
    "CHALLENGE_CLASSES",
    "DEFAULT_THRESHOLDS",
    "SAMPLE_DIST",
    "ChamferApInput",
    "ChamferApResult",
    "ClassResult",
    "LayerFields",
    "Prediction",
    "chamfer_ap",
    "read_challenge",
    "read_layers",
    "resample_polyline",
    "resample_polylines",
]
