"""ICDAR CHART-Infographics competition metrics, tasks 1 to 7 (7 is 6b on end-to-end output).

``evaluate(task, gt_dir, pred_dir, official=None|2019|2020, ...)`` scores a folder of
prediction JSON files against a folder of GT JSON files (one file per chart, paired by
name). ``official`` reproduces that year's competition script exactly, its documented bugs
included; ``None`` is the metric as the competition describes it (docs/metrics-chart.md
lists every difference). Pixel coordinates: x right, y down, origin at the top-left.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import InputError
from .common import TASKS, ChartEvaluation, ScriptCrashError, check_official

__all__ = ["TASKS", "ChartEvaluation", "ScriptCrashError", "evaluate"]


def evaluate(task: str, gt_dir: str | Path, pred_dir: str | Path, *,
             official: int | None = None, images: str | Path | None = None,
             ambiguous: str | Path | None = None, class_mapping: str | Path | None = None,
             ignore_roles: str | Path | None = None) -> ChartEvaluation:
    """Score one task.

    Args:
        task: "1", "2", "3", "4", "5", "6a", "6b" or "7".
        gt_dir, pred_dir: folders of ``<chart id>.json`` files.
        official: None (default metric), 2019 or 2020 (reproduce that year's script).
        images: folder of ``<chart id>.png`` (or .jpg...) chart images; needed by task 4,
            and by task 6a without ``official`` (the real image size).
        ambiguous: task 1, file of single-series bar chart ids (``<id>.png`` per line).
        class_mapping: task 1, JSON object synonym -> class (not 2019).
        ignore_roles: task 3, file of GT roles to ignore, one per line (not 2019).
    """
    check_official(official)
    gt_dir, pred_dir = Path(gt_dir), Path(pred_dir)
    images = Path(images) if images is not None else None
    task = str(task).lower()
    extras = {"ambiguous": ambiguous, "class_mapping": class_mapping,
              "ignore_roles": ignore_roles}
    allowed = {"1": {"ambiguous", "class_mapping"}, "3": {"ignore_roles"}}.get(task, set())
    for name, value in extras.items():
        if value is not None and name not in allowed:
            raise InputError(f"--{name.replace('_', '-')} does not apply to task {task}")
    if task == "1":
        from .task1_chart_class import evaluate_task1
        return evaluate_task1(gt_dir, pred_dir, official=official,
                              ambiguous=Path(ambiguous) if ambiguous else None,
                              class_mapping=Path(class_mapping) if class_mapping else None)
    if task == "2":
        from .task2_text import evaluate_task2
        return evaluate_task2(gt_dir, pred_dir, official=official)
    if task == "3":
        from .task3_text_role import evaluate_task3
        return evaluate_task3(gt_dir, pred_dir, official=official,
                              ignore_roles=Path(ignore_roles) if ignore_roles else None)
    if task == "4":
        from .task4_axes import evaluate_task4
        return evaluate_task4(gt_dir, pred_dir, images, official=official)
    if task == "5":
        from .task5_legend import evaluate_task5
        return evaluate_task5(gt_dir, pred_dir, official=official)
    if task == "6a":
        from .task6a_plot_elements import evaluate_task6a
        return evaluate_task6a(gt_dir, pred_dir, official=official, images=images)
    if task in ("6b", "7"):
        from .task6b_data_series import evaluate_task6b
        ev = evaluate_task6b(gt_dir, pred_dir, official=official)
        ev.task = task
        return ev
    raise InputError(f"unknown CHART task {task!r}; choose one of {', '.join(TASKS)}")
