"""Helpers of the plugin tests: sheet constants, ground truth, waiting for tasks, the form,
the repository's tools, the plugin in a fresh QGIS process."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

from qgis.core import QgsProject
from qgis.PyQt.QtCore import QCoreApplication

REPO = Path(__file__).resolve().parents[2]
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


def load_tool(name: str) -> ModuleType:
    """The script ``tools/<name>.py`` of the repository, imported as a module."""
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_START_QGIS_AND_PLUGIN = """
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from qgis.core import QgsApplication
app = QgsApplication([], False)
QgsApplication.setPrefixPath("/usr", True)
app.initQgis()
from fake_iface import FakeIface
import graticule_georeferencer
iface = FakeIface()
plugin = graticule_georeferencer.classFactory(iface)
plugin.initGui()
"""


def blocking_import(module: str) -> str:
    """Code for ``run_plugin_in_fresh_qgis(before=...)``: importing ``module`` or one of its
    submodules fails as if it were not installed."""
    return f"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == {module!r} or name.startswith({module + "."!r}):
            raise ModuleNotFoundError("No module named {module!r}", name={module!r})
        return None
sys.meta_path.insert(0, Block())
"""


def run_plugin_in_fresh_qgis(body: str, plugins_dir: Path, tmp_path: Path, *,
                             before: str = "") -> dict:
    """Run ``body`` in a new QGIS process (offscreen, profile in ``tmp_path``) with the
    ``graticule_georeferencer`` package of ``plugins_dir`` loaded as ``plugin`` on a
    ``FakeIface`` ``iface``; ``before`` runs first. ``body`` prints one JSON line last; its
    value is returned. The plugin is unloaded and QGIS exited after ``body``."""
    script = before + _START_QGIS_AND_PLUGIN + body + "\nplugin.unload()\napp.exitQgis()\n"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen",
               QGIS_CUSTOM_CONFIG_PATH=str(tmp_path / "profile"))
    run = subprocess.run([sys.executable, "-c", script, str(plugins_dir),
                          str(Path(__file__).parent)], capture_output=True, text=True,
                         env=env, timeout=120, check=False, cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def overlapping_widgets(window) -> list[tuple[str, str]]:
    """Pairs of visible widgets of ``window`` whose rectangles overlap (names or classes).

    Each widget counted is a unit a person reads or clicks (a label, a field, a button, a
    message bar, a file or CRS chooser); the parts inside a unit are its own business.
    """
    from qgis.gui import QgsFileWidget, QgsMessageBar, QgsProjectionSelectionWidget
    from qgis.PyQt.QtCore import QRect
    from qgis.PyQt.QtWidgets import (
        QAbstractButton,
        QAbstractSpinBox,
        QComboBox,
        QLabel,
        QLineEdit,
        QProgressBar,
        QWidget,
    )

    units = (QLabel, QLineEdit, QAbstractButton, QComboBox, QAbstractSpinBox, QProgressBar,
             QgsFileWidget, QgsProjectionSelectionWidget, QgsMessageBar)
    extra = tuple(cls for cls in (_message_line_class(window),) if cls is not None)
    units += extra

    def inside_unit(widget) -> bool:
        parent = widget.parentWidget()
        while parent is not None and parent is not window:
            if isinstance(parent, units):
                return True
            parent = parent.parentWidget()
        return False

    found = []
    for widget in window.findChildren(QWidget):
        if (isinstance(widget, units) and widget.isVisibleTo(window)
                and not inside_unit(widget) and widget.width() > 0 and widget.height() > 0):
            top_left = widget.mapTo(window, widget.rect().topLeft())
            found.append((widget, QRect(top_left, widget.size())))
    pairs = []
    for i, (a, ra) in enumerate(found):
        for b, rb in found[i + 1:]:
            if ra.intersects(rb):
                pairs.append((_name(a), _name(b)))
    return pairs


def _message_line_class(window):
    module = type(window).__module__.split(".plugin.")[0]
    try:
        return importlib.import_module(f"{module}.plugin.widgets").MessageLine
    except (ImportError, AttributeError):
        return None


def _name(widget) -> str:
    text = getattr(widget, "text", None)
    label = text() if callable(text) else ""
    return f"{type(widget).__name__}({str(label)[:30]!r})"
