"""Text-detection metrics on ICDAR RRC text files: ICDAR 2015 IoU, DetEval, TIoU and CLEval.

Each metric reproduces its reference program within 1e-9 with ``official=True``; the default
corrects the documented reference bugs (see docs/metrics-textdet.md). Library use::

    from core.metrics.textdet import load_dataset, evaluate
    images = load_dataset("gt_dir_or.zip", "res_dir_or.zip")
    report = evaluate(images, ["iou", "cleval"])
    report.results["iou"].rates.hmean

Per-image functions (``iou_image``, ``deteval_image``, ``tiou_image``, ``cleval_image``) take
lists of :class:`Word` and return dataclasses with the matches and counts.
"""

from .cleval import ClevalResult, cleval_image, evaluate_cleval
from .deteval import DetEvalResult, deteval_image, evaluate_deteval
from .evaluate import METRICS, MetricError, TextDetReport, evaluate, evaluate_paths
from .iou import IouResult, evaluate_iou, iou_image
from .rrc_format import ReferenceRefusalError, TextImage, Word, load_dataset, parse_text
from .tiou import TiouResult, evaluate_tiou, tiou_image

__all__ = [
    "METRICS", "ClevalResult", "DetEvalResult", "IouResult", "MetricError", "ReferenceRefusalError",
    "TextDetReport", "TextImage", "TiouResult", "Word", "cleval_image", "deteval_image",
    "evaluate", "evaluate_cleval", "evaluate_deteval", "evaluate_iou", "evaluate_paths",
    "evaluate_tiou", "iou_image", "load_dataset", "parse_text", "tiou_image",
]
