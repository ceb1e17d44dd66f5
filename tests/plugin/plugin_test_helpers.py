"""Helpers of the plugin tests: sheet constants, ground truth, waiting for tasks, the form."""

from __future__ import annotations

import time
from pathlib import Path

from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication

SHEET_SIZE = 2500
SPACING_PX = 700.0


def wait_until(predicate, timeout: float = 90.0) -> None:
    """Process Qt events until ``predicate()`` is true; AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"still waiting after {timeout} s")
        QCoreApplication.processEvents()
        time.sleep(0.01)


def wait_for_task(dialog, timeout: float = 90.0) -> None:
    """Wait until the dialog's running task has finished and called back."""
    wait_until(lambda: dialog.task is None, timeout)
    QCoreApplication.processEvents()


def clear_project() -> None:
    QgsProject.instance().removeAllMapLayers()
    QgsProject.instance().layerTreeRoot().removeAllChildren()


def fill_anchor(row, x: float, y: float, e: float, n: float) -> None:
    row.x.setText(f"{x}")
    row.y.setText(f"{y}")
    row.e.setText(f"{e}")
    row.n.setText(f"{n}")


def read_anchor(points_file: Path, k: int = 0) -> tuple[float, float, float, float]:
    """Row ``k`` of a generated sheet's .points file: pixel x, y (y down) and grid E, N."""
    from core.formats.qgis_points import read_points_file

    gcps = read_points_file(points_file)
    x, y = gcps.pixel_xy[k]
    e, n = gcps.map_xy[k]
    return float(x), float(y), float(e), float(n)
