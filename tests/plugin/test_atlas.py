"""An atlas run in QGIS: the footprints layer core writes in directory mode, with one sheet
placed on another's ground, flags both; the panel lists the sheets needing a look and a
double click opens one in the review panel (a refused one read again through core)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fake_iface import FakeIface
from plugin_test_helpers import clear_project, wait_until

pytestmark = pytest.mark.qgis


@pytest.fixture(scope="module")
def atlas_run(tmp_path_factory) -> Path:
    """A directory run of four generated sheets fitted from their .points files: 010 and
    011 on their own ground (5 km apart), 012 (011's scan) given 010's GCPs, so placed on
    010's ground, and 013 without GCPs (refused)."""
    from core.georef.__main__ import main
    from core.synth import generate_sheet, write_sheet

    tmp = tmp_path_factory.mktemp("atlas")
    src = tmp / "sheets"
    src.mkdir()
    for name, seed, east in (("010", 31, 0.0), ("011", 32, 5000.0)):
        write_sheet(generate_sheet(seed, 1400, spacing_px=400.0, difficulty=0.0,
                                   centre_easting=east, centre_northing=0.0), src, name)
    shutil.copy(src / "011-INPUT.jpg", src / "012-INPUT.jpg")
    shutil.copy(src / "011-INPUT-MASK.png", src / "012-INPUT-MASK.png")
    shutil.copy(src / "010.points", src / "012.points")
    shutil.copy(src / "011-INPUT.jpg", src / "013-INPUT.jpg")
    out = tmp / "run"
    assert main([str(src), "--crs", "EPSG:2154", "--grid-crs", "paris-atlas", "--gcps-only",
                 "--workers", "1", "-o", str(out)]) == 1     # 013 failed: no GCPs
    return out


@pytest.fixture
def plugin(plugin_package):
    clear_project()
    iface = FakeIface()
    loaded = plugin_package.classFactory(iface)
    loaded.initGui()
    yield loaded
    loaded.unload()
    iface.dispose()
    clear_project()


def test_footprints_layer_flags_both_sheets_on_one_ground(plugin, atlas_run):
    from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer

    panel = plugin.open_atlas(atlas_run)
    layers = panel.atlas
    footprints = layers.footprints
    assert isinstance(footprints, QgsVectorLayer) and footprints.crs().authid() == "EPSG:2154"
    status = {f["sheet"]: f["status"] for f in footprints.getFeatures()}
    assert status == {"010-INPUT.jpg": "flagged", "011-INPUT.jpg": "placed",
                      "012-INPUT.jpg": "flagged"}
    overlaps = {f["sheet"]: f["overlaps"] for f in footprints.getFeatures()}
    assert overlaps["010-INPUT.jpg"] == "012-INPUT.jpg"
    assert overlaps["012-INPUT.jpg"] == "010-INPUT.jpg"
    # styled by status, the mosaic below, in one group; the project took the run's CRS
    rules = {rule.filterExpression() for rule in footprints.renderer().rootRule().children()}
    assert rules == {"\"status\" = 'placed'", "\"status\" = 'uncertain'",
                     "\"status\" = 'flagged'"}
    assert isinstance(layers.mosaic, QgsRasterLayer) and layers.mosaic.isValid()
    group = QgsProject.instance().layerTreeRoot().findGroup("run atlas")
    assert [node.layerId() for node in group.findLayers()] == [footprints.id(),
                                                              layers.mosaic.id()]
    assert QgsProject.instance().crs().authid() == "EPSG:2154"
    # refused first, then flagged, then placed
    listed = [(e["sheet"], e["status"]) for e in panel.entries()]
    assert listed == [("013-INPUT.jpg", "refused"), ("010-INPUT.jpg", "flagged"),
                      ("012-INPUT.jpg", "flagged"), ("011-INPUT.jpg", "placed")]
    first = panel.tree.topLevelItem(0)
    assert first.text(0) == "013-INPUT.jpg" and ".points" in first.text(2)
    assert "1 placed, 0 uncertain, 2 flagged, 1 refused" in panel.summary.text()


def test_double_click_opens_a_sheet_in_the_review_panel(plugin, atlas_run):
    panel = plugin.open_atlas(atlas_run)
    flagged = panel.tree.topLevelItem(1)
    panel.tree.itemDoubleClicked.emit(flagged, 0)
    review = plugin.docks["review"]
    assert review.session is not None
    assert Path(review.session.review.sheet).name == "010-INPUT.jpg"
    assert review.session.fit.ok
    # the refused sheet: read again through core (detection, labels), shown with them
    panel.tree.itemDoubleClicked.emit(panel.tree.topLevelItem(0), 0)
    assert panel.task is not None
    wait_until(lambda: panel.task is None, 180)
    assert review.session.review.refused, panel.message.text()
    assert Path(review.session.review.sheet).name == "013-INPUT.jpg"
    assert len(review.session.points) > 4 and not review.session.points.known.any()


def test_a_folder_without_footprints_is_one_line(plugin, tmp_path):
    panel = plugin.open_atlas(tmp_path)
    assert panel.atlas is None and "footprints.gpkg" in panel.message.text()
