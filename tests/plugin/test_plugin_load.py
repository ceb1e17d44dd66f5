"""The plugin loads through classFactory like QGIS does, and unloads leaving nothing behind."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest
from fake_iface import FakeIface
from plugin_test_helpers import blocking_import, run_plugin_in_fresh_qgis

pytestmark = pytest.mark.qgis

REPO = Path(__file__).resolve().parents[2]
ALGORITHMS = {"detectgraticule", "georeference", "refitgcps", "maparea", "buildingblocks",
              "evaluatet1", "evaluatet2", "evaluatet3"}


def _provider():
    from qgis.core import QgsApplication

    return QgsApplication.processingRegistry().providerById("graticule_georeferencer")


def test_class_factory_loads_and_unloads_cleanly(plugin_package):
    from qgis.PyQt import sip
    from qgis.PyQt.QtCore import QCoreApplication, QEvent, Qt
    from qgis.PyQt.QtWidgets import QToolBar

    iface = FakeIface()
    plugin = plugin_package.classFactory(iface)
    plugin.initGui()
    names = {a.objectName() for a in plugin.actions}
    assert names == {"GraticuleGeoreferencer_georeference", "GraticuleGeoreferencer_blocks",
                     "GraticuleGeoreferencer_review", "GraticuleGeoreferencer_atlas"}
    assert [a for _, a in iface.raster_menu] == plugin.actions
    assert plugin.toolbar.actions() == plugin.actions
    provider = _provider()
    assert provider is plugin.provider
    assert {a.name() for a in provider.algorithms()} >= ALGORITHMS
    assert iface.messages() == []          # every required package is installed here

    dialog = plugin.show_georeference_dialog()
    assert dialog.isVisible()
    panel = plugin.show_review_panel()
    assert panel.objectName() == "GraticuleGeoreferencerReviewPanel"
    assert iface.main_window.dockWidgetArea(panel) == Qt.DockWidgetArea.RightDockWidgetArea
    assert dialog.review_opener == plugin.open_review      # one panel for every review
    plugin.unload()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)  # the deleteLater()s
    assert iface.raster_menu == [] and iface.toolbar_icons == []
    assert plugin.actions == [] and plugin.toolbar is None and plugin.dialogs == {}
    assert plugin.docks == {} and sip.isdeleted(panel)
    assert sip.isdeleted(dialog)
    assert _provider() is None
    assert plugin.translator is None
    assert iface.main_window.findChildren(QToolBar, "GraticuleGeoreferencerToolbar") == []
    assert iface.canvas.mapTool() is None


def test_the_actions_open_their_dialogs(plugin_package):
    iface = FakeIface()
    plugin = plugin_package.classFactory(iface)
    plugin.initGui()
    try:
        plugin.actions[0].trigger()
        dialog = plugin.dialogs["georeference"]
        assert dialog.isVisible()
        assert dialog.windowTitle() == "Detect graticule & georeference"
        plugin.actions[0].trigger()   # a second click shows the same dialog
        assert plugin.dialogs["georeference"] is dialog
        plugin.actions[1].trigger()
        blocks = plugin.dialogs["blocks"]
        assert blocks.isVisible() and blocks.windowTitle() == "Vectorize building blocks"
    finally:
        plugin.unload()


def test_metadata_has_the_fields_plugins_qgis_org_requires():
    meta = configparser.ConfigParser()
    meta.read(REPO / "metadata.txt", encoding="utf-8")
    general = meta["general"]
    for key in ("name", "qgisMinimumVersion", "description", "about", "version", "author",
                "email", "tracker", "repository"):
        assert general.get(key, "").strip(), key
    assert general["qgisMinimumVersion"] == "3.22"
    assert general["hasProcessingProvider"] == "yes"
    assert (REPO / general["icon"]).is_file()
    assert general["tracker"].startswith("https://") and general["repository"].startswith(
        "https://")


def test_plugin_imports_only_qgis_pyqt():
    offenders = []
    for path in [*sorted((REPO / "plugin").rglob("*.py")), REPO / "__init__.py"]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            stripped = line.strip()
            if stripped.startswith(("import PyQt", "from PyQt", "import sip", "from sip")):
                offenders.append(f"{path.relative_to(REPO)}:{number}")
    assert offenders == []


_CLICK_WITHOUT_OPENCV = r"""
at_load = iface.messages()
plugin.actions[0].trigger()
alg = plugin.provider.algorithms()[0]
ok, why = alg.canExecute()
print(json.dumps({"at_load": at_load, "after_click": iface.messages()[len(at_load):],
                  "actions": len(plugin.actions), "dialogs": len(plugin.dialogs),
                  "can_execute": ok, "why": why, "cv2_loaded": "cv2" in sys.modules}))
"""


def test_loads_without_opencv_and_says_how_to_install_it(plugin_package, tmp_path):
    packages = Path(plugin_package.__file__).parent.parent
    report = run_plugin_in_fresh_qgis(_CLICK_WITHOUT_OPENCV, packages, tmp_path,
                                      before=blocking_import("cv2"))
    from graticule_georeferencer.plugin import deps

    command = deps.install_command(["cv2"])  # "sudo apt install python3-opencv" on Debian
    assert report["actions"] == 4 and report["dialogs"] == 0
    assert report["at_load"] == [f"Missing Python packages: {deps.names(['cv2'])}."]
    assert report["after_click"] == report["at_load"]
    assert report["can_execute"] is False and command in report["why"]
    assert report["cv2_loaded"] is False
