"""The "Detect graticule & georeference" dialog: its task, cancelling, picking an anchor."""

from __future__ import annotations

import shutil

import pytest
from fake_iface import FakeIface
from plugin_test_helpers import clear_project, fill_anchor, read_anchor, wait_for_task

pytestmark = pytest.mark.qgis


@pytest.fixture
def dialog(plugin_package):
    from graticule_georeferencer.plugin.dialogs.georeference_dialog import GeoreferenceDialog

    clear_project()
    iface = FakeIface()
    dlg = GeoreferenceDialog(iface)
    yield dlg
    dlg.cleanup()
    iface.dispose(dlg)
    clear_project()


def _layers_by_name():
    from qgis.core import QgsProject

    return {layer.name(): layer for layer in QgsProject.instance().mapLayers().values()}


def test_task_georeferences_and_adds_raster_below_points(dialog, sheet, tmp_path):
    from qgis.core import QgsProject, QgsRasterLayer, QgsVectorLayer

    dialog.sheet.set_file(sheet["image"])
    fill_anchor(dialog.anchor_rows[0], *read_anchor(sheet["points"], 4))
    dialog.outdir.setFilePath(str(tmp_path / "out"))
    task = dialog.start_georeference()
    assert task is not None and dialog.task is task
    wait_for_task(dialog)
    layers = _layers_by_name()
    raster = layers["001-INPUT (georeferenced)"]
    points = layers["001-INPUT intersections"]
    assert isinstance(raster, QgsRasterLayer) and isinstance(points, QgsVectorLayer)
    assert raster.crs().authid() == "EPSG:2154" and points.crs().authid() == "EPSG:2154"
    outcome = dialog.last_outcome
    assert points.featureCount() == len(outcome.result.pixel_xy) >= 4
    assert raster.extent().contains(points.extent())
    # the points are drawn above the raster, both in one group named after the sheet
    group = QgsProject.instance().layerTreeRoot().findGroup("001-INPUT")
    assert [n.layerId() for n in group.findLayers()] == [points.id(), raster.id()]
    messages = dialog.iface.messages()
    assert any("RMSE" in m and "px" in m for m in messages), messages
    assert outcome.result.rmse_px < 1.5
    assert (tmp_path / "out" / "001-INPUT.tif").is_file()
    assert (tmp_path / "out" / "001-INPUT.intersections.gpkg").is_file()
    assert "RMSE" in dialog.status.text()
    # the project held nothing else: it took the result's CRS
    assert QgsProject.instance().crs().authid() == "EPSG:2154"
    # Review GCPs opens the result in the review panel, with core's numbers
    assert dialog.review_button.isEnabled()
    panel = dialog.review()
    assert len(panel.session.points) == len(outcome.result.pixel_xy)
    assert panel.session.fit.rmse_px == pytest.approx(outcome.result.rmse_px, rel=1e-9)


def test_cancelling_stops_the_task_and_writes_nothing(dialog, sheet, tmp_path):
    dialog.sheet.set_file(sheet["image"])
    fill_anchor(dialog.anchor_rows[0], *read_anchor(sheet["points"]))
    out = tmp_path / "out"
    dialog.outdir.setFilePath(str(out))
    task = dialog.start_georeference()
    progress = []

    def cancel_once_started(value):
        progress.append(value)
        if len(progress) == 1:
            dialog.cancel_button.click()   # the Cancel button

    task.progressChanged.connect(cancel_once_started)
    wait_for_task(dialog)
    assert progress, "the task never reported progress"
    assert _layers_by_name() == {}
    assert not out.exists() or not any(out.iterdir())
    assert any("cancelled" in m for m in dialog.iface.messages())


def test_problems_are_one_line_messages(dialog, sheet, tmp_path):
    from qgis.PyQt.QtWidgets import QPushButton

    # no anchor and no .points file: core reads the grid values printed on the sheet; this
    # sheet prints none, so core's error says what to do, naming the form's fields
    lonely = tmp_path / "lonely.jpg"
    shutil.copy(sheet["image"], lonely)
    dialog.sheet.set_file(lonely)
    dialog.outdir.setFilePath(str(tmp_path / "none"))
    assert dialog.start_georeference() is not None
    wait_for_task(dialog)
    # a refusal: one short line in the message bar with a Review… button, all of it in
    # the dialog's status line (and behind its Details button, with the labels read)
    item = dialog.iface.messageBar().items()[-1]
    assert "\n" not in item.text() and len(item.text()) <= 140
    assert item.findChild(QPushButton, "GraticuleGeoreferencerReviewRefused") is not None
    error = dialog.status.text()
    assert "do not name the grid surely" in error and "“Anchor”" in error, error
    assert "“Known points (.points)”" in error, error
    assert "--" not in error and not (tmp_path / "none").exists()
    assert "labels read" in dialog.status.details()
    assert dialog.review_button.isEnabled() and dialog.last_review.refused
    dialog.iface.messageBar().clearWidgets()
    # a bad anchor
    fill_anchor(dialog.anchor_rows[0], 10, 20, "abc", 4)
    assert dialog.start_georeference() is None
    assert "“abc” is not a number" in dialog.bar.items()[-1].text()
    # core's InputError reaches the message bar as one line, without a traceback
    fill_anchor(dialog.anchor_rows[0], 10, 20, 0, 0)
    dialog.mask.setFilePath(str(tmp_path / "missing-mask.png"))
    dialog.outdir.setFilePath(str(tmp_path / "out"))
    assert dialog.start_georeference() is not None, dialog.bar.items()[-1].text()
    wait_for_task(dialog)
    error = dialog.iface.messages()[-1]
    assert "missing-mask.png" in error and "no such file" in error
    assert "Traceback" not in error and "\n" not in error
    assert dialog.progress.value() == 0          # no bar left half-way after a failure


def test_pick_an_intersection_on_the_canvas(dialog, sheet, tmp_path):
    from qgis.core import QgsPointXY

    dialog.sheet.set_file(sheet["image"])
    dialog.start_detection()
    wait_for_task(dialog)
    assert dialog.graticule is not None and len(dialog.graticule) >= 4
    assert all(row.pick.isEnabled() for row in dialog.anchor_rows)
    assert dialog.preview_layer.featureCount() == len(dialog.graticule)
    x, y, e, n = read_anchor(sheet["points"], 2)
    dialog.start_picking(dialog.anchor_rows[0])
    canvas = dialog.iface.mapCanvas()
    assert canvas.mapTool() is dialog.pick_tool
    # a click 6 px beside the intersection, in canvas coordinates: (x, -y) on this sheet
    dialog.pick_at(QgsPointXY(x + 6.0, -(y - 4.0)))
    assert canvas.mapTool() is not dialog.pick_tool
    row = dialog.anchor_rows[0]
    assert float(row.x.text()) == pytest.approx(x, abs=3.0)
    assert float(row.y.text()) == pytest.approx(y, abs=3.0)
    row.e.setText(f"{e}")
    row.n.setText(f"{n}")
    dialog.outdir.setFilePath(str(tmp_path / "picked"))
    request = dialog.request()
    assert request["graticule"] is dialog.graticule   # no second detection
    dialog.start_georeference()
    wait_for_task(dialog)
    assert dialog.last_outcome is not None
    assert dialog.last_outcome.result.rmse_px < 1.5
    assert dialog.preview_layer is None


def test_one_click_reads_the_printed_grid_values_and_shows_them(dialog, tmp_path):
    """Anchors left empty: core reads the values printed in the margins; the labels read
    are a layer (green used, red left out) above the intersections."""
    import numpy as np
    from qgis.core import QgsCoordinateReferenceSystem, QgsProject

    from core.synth import generate_sheet

    sheet = generate_sheet(4, 2500, difficulty=0.0, spacing_px=700.0, content_scale=0.25,
                           jpeg_roundtrip=True, margin_labels="grouped", label_size_px=110.0,
                           label_sides=4, label_turned=True, label_missing=0.0,
                           label_distractors=2, centre_easting=652400.0,
                           centre_northing=6862300.0)
    path = tmp_path / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    dialog.sheet.set_file(path)
    dialog.grid_crs.setCrs(QgsCoordinateReferenceSystem("EPSG:2154"))
    assert dialog.spacing.value() == 0.0            # automatic: the step of the labels
    assert dialog.start_georeference() is not None, dialog.bar.items()[-1].text()
    wait_for_task(dialog, timeout=180)
    outcome = dialog.last_outcome
    assert outcome is not None, dialog.iface.messages()
    result = outcome.result
    err = np.hypot(*(result.transform.forward(sheet.intersections + 0.5) - sheet.grid_xy).T)
    assert err.max() < 2.0
    layers = _layers_by_name()
    labels = layers["plate grid labels read"]
    feats = list(labels.getFeatures())
    assert len(feats) == len(result.labels) and any(f["used"] for f in feats)
    assert labels.crs().authid() == "EPSG:2154"
    used = [f for f in feats if f["used"]]
    # a used label's box lies on the map where its value is printed (beside its line)
    for f in used:
        assert f["value"] is not None and f["family"] in ("columns", "rows")
    tree = QgsProject.instance().layerTreeRoot().findGroup("plate")
    assert [child.name() for child in tree.children()][:2] == [
        "plate grid labels read", "plate intersections"]


def test_pick_on_map_shows_the_sheet_in_a_project_in_another_crs(dialog, sheet):
    """A project in Web Mercator and the sheet loaded as QGIS desktop loads an image without
    CRS (in EPSG:4326): the sheet is drawn where the map is (its pixels are in no CRS) and
    the canvas zooms onto it, not onto pixels reprojected as if they were degrees."""
    from qgis.core import QgsCoordinateReferenceSystem, QgsPointXY, QgsProject, QgsRasterLayer

    canvas = dialog.iface.mapCanvas()
    canvas.setDestinationCrs(QgsCoordinateReferenceSystem("EPSG:3857"))
    scan = QgsRasterLayer(str(sheet["image"]), "scan")
    scan.setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    QgsProject.instance().addMapLayer(scan)
    dialog.sheet.set_layer(scan)
    dialog.start_detection()
    wait_for_task(dialog)
    layer = dialog.sheet_layer
    assert layer.crs() == canvas.mapSettings().destinationCrs()
    assert dialog.preview_layer.crs() == layer.crs()
    extent = canvas.extent()
    assert extent.contains(layer.extent().center())
    assert extent.contains(layer.extent()) and extent.width() < 10 * layer.extent().width()
    x, y, _e, _n = read_anchor(sheet["points"], 0)
    dialog.start_picking(dialog.anchor_rows[0])
    dialog.pick_at(QgsPointXY(x + 3.0, -(y + 2.0)))
    assert float(dialog.anchor_rows[0].x.text()) == pytest.approx(x, abs=3.0)


def test_any_crs_as_the_grid_crs(dialog, shared, tmp_path):
    """Jacoubet's toise grid typed as a PROJ string, or taken from a .points file's own
    #CRS line when one is chosen; the Paris atlas stays one click away."""
    from graticule_georeferencer.plugin.crs import PARIS_ATLAS_NAME, crs_name

    from core.georef.crs import parse_crs, same_crs

    proj = (shared / "data" / "jacoubet-1836" / "CRS.proj").read_text().strip()
    toise = parse_crs(proj)
    assert dialog.grid_crs.set_text(proj)
    assert same_crs(parse_crs(dialog.grid_crs.crs().toWkt()), toise)
    assert not dialog.grid_crs.set_text("nonsense")
    dialog.grid_crs.use_paris_atlas()
    assert crs_name(dialog.grid_crs.crs().toWkt()) == PARIS_ATLAS_NAME
    dialog.gcps.setFilePath(str(shared / "data" / "jacoubet-1836" / "020-GT.points"))
    assert same_crs(parse_crs(dialog.grid_crs.crs().toWkt()), toise)
    assert "020-GT.points" in dialog.pick_status.text()
    dialog.sheet.set_file(shared / "data" / "jacoubet-1836" / "020-INPUT.jpg")
    request = dialog.request()
    assert same_crs(parse_crs(request["grid_crs"]), toise)
