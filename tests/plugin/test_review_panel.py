"""The GCP review panel in QGIS's runtime: its numbers are those of ``core.georef
--gcps-only``, undo restores them, Save writes the CLI's files, points are dragged, snapped,
added and stepped through from the keyboard, and a refused sheet is settled by typing the
grid values of one crossing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from fake_iface import FakeIface
from plugin_test_helpers import REPO, clear_project, read_anchor, wait_until

pytestmark = pytest.mark.qgis


@pytest.fixture(scope="module")
def run_dir(sheet, tmp_path_factory) -> Path:
    """Sheet 001 of conftest (north-up, 9 crossings 700 px apart) georeferenced by core
    from one anchor into Lambert-93, Paris atlas grid."""
    from core.georef import georeference

    x, y, e, n = read_anchor(sheet["points"], 4)
    out = tmp_path_factory.mktemp("review") / "001-INPUT_georef"
    georeference(sheet["image"], "EPSG:2154", grid_crs="paris-atlas",
                 anchors=[f"{x},{y}={e},{n}"], gcps=False, outdir=out)
    return out


@pytest.fixture
def panel(plugin_package):
    from graticule_georeferencer.plugin.review.panel import ReviewPanel

    clear_project()
    iface = FakeIface()
    dock = ReviewPanel(iface)
    yield dock
    dock.cleanup()
    iface.dispose(dock)
    clear_project()


def _cli(*args: str) -> None:
    """``python -m core.georef ARGS`` as a user types it (the venv's Python)."""
    run = subprocess.run([sys.executable, "-m", "core.georef", *map(str, args)], cwd=REPO,
                         capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr


def _write_points(session, path: Path) -> Path:
    from core.formats.qgis_points import write_points_file

    write_points_file(path, session.points.as_gcps(session.review.grid_crs))
    return path


def _cli_numbers(report_path: Path) -> tuple[float, float, np.ndarray, list[bool]]:
    report = json.loads(report_path.read_text())
    residuals = np.array([g["residual_px"]["length"] for g in report["gcps"]], dtype=float)
    return (report["summary"]["rmse_px"], report["summary"]["rmse_map"], residuals,
            [g["used"] for g in report["gcps"]])


def test_disabling_a_gcp_gives_the_numbers_of_gcps_only_and_undo_restores_them(
        panel, run_dir, sheet, tmp_path):
    from graticule_georeferencer.plugin.review.table import RES_MAP, RES_PX, USED
    from qgis.PyQt.QtCore import Qt

    assert panel.open_path(run_dir)
    session, model = panel.session, panel.model
    before = (session.fit.rmse_px, session.fit.residual_px.copy())
    assert model.rowCount() == 9 and session.fit.used.all()
    assert model.setData(model.index(3, USED), Qt.CheckState.Unchecked,
                         Qt.ItemDataRole.CheckStateRole)
    assert model.data(model.index(3, USED), Qt.ItemDataRole.CheckStateRole) == \
        Qt.CheckState.Unchecked
    fit = session.fit
    assert not fit.used[3] and fit.used.sum() == 8
    # the same points through the command line, as the acceptance asks: --gcps-only
    points = _write_points(session, tmp_path / "reviewed.points")
    _cli(sheet["image"], "--crs", "EPSG:2154", "--grid-crs", "paris-atlas", "--gcps", points,
         "--gcps-only", "-o", tmp_path / "cli")
    rmse_px, rmse_map, residuals, used = _cli_numbers(tmp_path / "cli" / "001-INPUT.report.json")
    assert fit.rmse_px == pytest.approx(rmse_px, rel=1e-9)
    assert fit.rmse_map == pytest.approx(rmse_map, rel=1e-9)
    assert used == fit.used.tolist()
    shown = [model.values(k)[RES_PX] for k in range(9)]      # what the table shows
    assert np.allclose(shown, residuals, atol=1e-9)
    assert all(np.isfinite(model.values(k)[RES_MAP]) for k in range(9))
    labels = {f["k"]: f["residual"] for f in panel.layers.points.getFeatures()}
    assert np.allclose([labels[k] for k in range(9)], residuals, atol=1e-9)
    assert "8 of 9" in panel.fit_line.text()
    # undo: the numbers of the run come back; redo: those of the disabled point
    panel.undo()
    assert session.fit.used.all() and session.fit.rmse_px == before[0]
    assert np.array_equal(session.fit.residual_px, before[1])
    assert model.data(model.index(3, USED), Qt.ItemDataRole.CheckStateRole) == \
        Qt.CheckState.Checked
    panel.redo()
    assert session.fit.rmse_px == pytest.approx(rmse_px, rel=1e-9)


def test_save_writes_the_files_the_cli_writes_and_reloads_the_layers(panel, run_dir, sheet,
                                                                     tmp_path):
    from graticule_georeferencer.plugin.review.table import PIXEL_X
    from osgeo import gdal
    from qgis.core import QgsProject

    folder = tmp_path / "001-INPUT_georef"
    shutil.copytree(run_dir, folder)
    assert panel.open_path(folder)
    session, model = panel.session, panel.model
    session.set_used(0, False)
    x = session.points.pixel_xy[5, 0]
    assert model.setData(model.index(5, PIXEL_X), f"{x + 6.5}")          # a point moved
    panel.transform.setCurrentIndex(panel.transform.findData("poly2"))
    assert session.kind == "poly2" and session.fit.ok
    task = panel.save()
    assert task is not None
    wait_until(lambda: panel.task is None, 120)
    assert panel.last_outcome is not None, panel.fit_line.text()
    assert session.undo_stack.isClean()
    points = _write_points(session, tmp_path / "reviewed.points")
    cli = tmp_path / "cli"
    _cli(sheet["image"], "--crs", "EPSG:2154", "--grid-crs", "paris-atlas", "--gcps", points,
         "--gcps-only", "--outliers", "none", "--transform", "poly2", "--spacing", "1000",
         "-o", cli)
    assert (folder / "001-INPUT.points").read_bytes() == (cli / "001-INPUT.points").read_bytes()
    ours, theirs = (json.loads((d / "001-INPUT.report.json").read_text()) for d in (folder, cli))
    for report in (ours, theirs):
        report.pop("outputs"), report.pop("gcp_file")
    assert ours == theirs
    a, b = (gdal.Open(str(d / "001-INPUT.tif")) for d in (folder, cli))
    assert np.array_equal(a.ReadAsArray(), b.ReadAsArray())
    assert a.GetGeoTransform() == b.GetGeoTransform()
    assert not (folder / "001-INPUT.jgw").exists()     # the affine run's world file is gone
    # the sheet's group holds the saved raster and its intersections
    group = QgsProject.instance().layerTreeRoot().findGroup("001-INPUT")
    names = sorted(node.name() for node in group.findLayers())
    assert names == ["001-INPUT (georeferenced)", "001-INPUT intersections"]
    assert "Saved in" in panel.fit_line.text()


def test_points_are_dragged_snapped_added_and_stepped_through(panel, run_dir):
    from graticule_georeferencer.plugin.review.table import EASTING, NORTHING
    from qgis.core import QgsPointXY

    assert panel.open_path(run_dir)
    session, model, tool = panel.session, panel.model, panel.tool
    x, y = session.points.pixel_xy[2]
    # dragged 25 px away with snapping on: back on the detected crossing
    tool.moved.emit(2, x + 25.0, y - 10.0)
    assert tuple(session.points.pixel_xy[2]) == (x, y)
    assert not session.undo_stack.canUndo()                   # nothing changed
    panel.snap.setChecked(False)
    tool.moved.emit(2, x + 25.0, y - 10.0)
    assert tuple(session.points.pixel_xy[2]) == (x + 25.0, y - 10.0)
    assert session.fit.residual_px[2, 0] < -10.0          # the fit pulls it back
    # the canvas finds the point under a click, as the drag starts
    assert tool.nearest(panel.layers.to_layer(x + 25.0, y - 10.0)) == 2
    assert tool.nearest(QgsPointXY(-5000.0, 5000.0)) is None
    # a point added by clicking, its grid values typed: used at once
    panel.add_button.setChecked(True)
    tool.added.emit(100.0, 200.0)
    k = len(session.points) - 1
    assert k == 9 and panel.selected() == k and not session.points.used[k]
    assert model.setData(model.index(k, EASTING), "-2100")
    assert model.setData(model.index(k, NORTHING), "4 700,5")     # French decimal comma
    assert session.points.used[k] and session.points.grid_xy[k].tolist() == [-2100, 4700.5]
    assert session.fit.ok and session.fit.used.sum() == 10
    assert not model.setData(model.index(k, EASTING), "abc")
    # keyboard: next, previous, toggle used (the shortcuts' slots)
    panel.select_point(0)
    panel.next_point()
    assert panel.selected() == 1
    panel.previous_point()
    panel.previous_point()
    assert panel.selected() == k                          # wraps around
    panel.toggle_selected()
    assert not session.points.used[k]
    assert panel.layers.points.selectedFeatureIds() == [panel.layers.row_feature(k)]
    # selecting on the canvas selects the row
    tool.picked.emit(4)
    assert panel.selected() == 4
    panel.remove_selected()
    assert len(session.points) == 9
    for _ in range(6):
        panel.undo()
    assert session.points.same_as(session.review.points)


def test_keys_reach_the_panel(panel, run_dir):
    from qgis.PyQt.QtCore import QCoreApplication, Qt
    from qgis.PyQt.QtTest import QTest

    assert panel.open_path(run_dir)
    from qgis.PyQt.QtWidgets import QApplication

    panel.setFloating(True)
    panel.show()
    QApplication.setActiveWindow(panel)
    panel.table.setFocus()
    wait_until(lambda: panel.isVisible() and QApplication.activeWindow() is panel)
    panel.select_point(0)
    QTest.keyClick(panel.table, Qt.Key.Key_N)
    QCoreApplication.processEvents()
    assert panel.selected() == 1
    QTest.keyClick(panel.table, Qt.Key.Key_Space)
    assert not panel.session.points.used[1]
    QTest.keyClick(panel.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert panel.session.points.used[1]


def test_a_refused_sheet_is_settled_by_one_typed_crossing(plugin_package, sheet, tmp_path):
    """No anchor, no .points, no printed values: the dialog's refusal opens the panel with
    the detected crossings; the grid values of one crossing name them all and refit."""
    from graticule_georeferencer.plugin.dialogs.georeference_dialog import GeoreferenceDialog
    from graticule_georeferencer.plugin.review.table import EASTING, NORTHING

    from core.formats.qgis_points import read_points_file

    clear_project()
    lonely = tmp_path / "lonely.jpg"
    shutil.copy(sheet["image"], lonely)
    iface = FakeIface()
    dialog = GeoreferenceDialog(iface)
    try:
        dialog.sheet.set_file(lonely)
        dialog.outdir.setFilePath(str(tmp_path / "out"))
        dialog.start_georeference()
        wait_until(lambda: dialog.task is None, 120)
        assert dialog.last_review is not None and dialog.last_review.refused
        panel = dialog.review()
        session, model = panel.session, panel.model
        assert panel.read_box.isVisibleTo(panel) and "Refused" in panel.refusal_line.text()
        assert not session.fit.ok and len(session.points) == 9
        assert not session.points.known.any()
        truth = read_points_file(sheet["points"])
        pixel = session.points.pixel_xy
        k = int(np.argmin(np.hypot(*(pixel - truth.pixel_xy[4]).T)))
        e, n = truth.map_xy[4]
        model.setData(model.index(k, EASTING), f"{e}")
        assert not session.fit.ok                        # one value is not a crossing yet
        model.setData(model.index(k, NORTHING), f"{n}")
        assert session.points.known.all() and session.fit.ok
        assert session.fit.rmse_px < 1.0
        for p, g in zip(truth.pixel_xy, truth.map_xy, strict=True):
            j = int(np.argmin(np.hypot(*(pixel - p).T)))
            assert session.points.grid_xy[j].tolist() == pytest.approx(g.tolist())
        assert any("north-up" in w for w in session.naming_warnings)
        panel.undo()
        assert not session.fit.ok and np.isnan(session.points.grid_xy[k, 1])
    finally:
        dialog.cleanup()
        iface.dispose(dialog)
        clear_project()


def test_a_folder_without_a_run_is_one_line(panel, tmp_path):
    assert not panel.open_path(tmp_path)
    assert "holds no run report" in panel.fit_line.text()
    assert panel.session is None and not panel.save_button.isEnabled()


def test_a_sheet_with_a_points_file_opens_in_its_crs(panel, shared, tmp_path):
    """Jacoubet's sheet 20 beside its hand GCPs (toises): the grid values shown are the
    file's, fitted into Lambert-93."""
    from core.georef.crs import parse_crs, same_crs

    jacoubet = shared / "data" / "jacoubet-1836"
    (tmp_path / "020-INPUT.jpg").symlink_to(jacoubet / "020-INPUT.jpg")
    shutil.copy(jacoubet / "020-GT.points", tmp_path / "020.points")
    assert panel.open_path(tmp_path / "020-INPUT.jpg"), panel.fit_line.text()
    review = panel.session.review
    assert same_crs(parse_crs(review.grid_crs), parse_crs((jacoubet / "CRS.proj").read_text()))
    assert same_crs(parse_crs(review.crs), parse_crs("EPSG:2154"))
    assert len(panel.session.points) == 30 and panel.session.fit.ok
    assert panel.session.points.grid_xy[0].tolist() == [-3000.0, 3750.0]
    assert panel.session.fit.rmse_map < 5.0              # metres: about a toise
