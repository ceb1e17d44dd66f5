"""Pictures of the dialog and of its results, for a person to look at.

Offscreen renderings, written to a temporary folder (the README shows real QGIS windows:
`make screenshots`); with GRATICULE_SCREENSHOTS=DIR they go to
DIR as plugin-dialog.png, plugin-pick.png, plugin-result.png and plugin-blocks.png.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import pytest
from fake_iface import FakeIface
from plugin_test_helpers import clear_project, fill_anchor, read_anchor, wait_for_task

pytestmark = pytest.mark.qgis


def render_map(layers, crs, extent, path: Path, size=(900, 900)) -> np.ndarray:
    """Render ``layers`` (top first) to a PNG; returns the image as an (H, W, 4) array."""
    from qgis.core import QgsMapRendererParallelJob, QgsMapSettings
    from qgis.PyQt.QtCore import QSize
    from qgis.PyQt.QtGui import QColor

    settings = QgsMapSettings()
    settings.setLayers(layers)
    settings.setDestinationCrs(crs)
    settings.setOutputSize(QSize(*size))
    settings.setBackgroundColor(QColor("white"))
    settings.setExtent(extent)
    job = QgsMapRendererParallelJob(settings)
    job.start()
    job.waitForFinished()
    image = job.renderedImage()
    assert image.save(str(path), "PNG")
    return _array(image)


def _array(qimage) -> np.ndarray:
    from qgis.PyQt.QtGui import QImage

    img = qimage.convertToFormat(QImage.Format_RGBA8888)
    ptr = img.constBits()
    ptr.setsize(img.height() * img.bytesPerLine())
    return np.frombuffer(ptr, np.uint8).reshape(img.height(), img.bytesPerLine() // 4, 4)[
        :, :img.width()].copy()


def _has_colour(rgba: np.ndarray, rgb: tuple[int, int, int], tol: int = 40) -> int:
    diff = np.abs(rgba[..., :3].astype(int) - np.array(rgb)).max(axis=2)
    return int((diff <= tol).sum())


@pytest.fixture
def picture_dir(tmp_path) -> Path:
    wanted = os.environ.get("GRATICULE_SCREENSHOTS")
    out = Path(wanted) if wanted else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out


def test_dialog_and_result_pictures(plugin_package, sheet_dir, picture_dir):
    from graticule_georeferencer.plugin.dialogs.blocks_dialog import BlocksDialog
    from graticule_georeferencer.plugin.dialogs.georeference_dialog import GeoreferenceDialog
    from qgis.core import QgsProject

    clear_project()
    # a short folder name reads better in the picture of the dialog
    folder = Path(tempfile.mkdtemp(prefix="atlas-"))
    for suffix in ("-INPUT.jpg", "-INPUT-MASK.png", ".points"):
        shutil.copy(sheet_dir / f"002{suffix}", folder / f"016{suffix}")
    iface = FakeIface()
    dialog = GeoreferenceDialog(iface)
    try:
        dialog.sheet.set_file(folder / "016-INPUT.jpg")
        dialog.start_detection()
        wait_for_task(dialog)
        assert dialog.graticule is not None
        # the sheet with the detected intersections, as shown for picking
        sheet_layer, preview = dialog.sheet_layer, dialog.preview_layer
        pick = render_map([preview, sheet_layer], sheet_layer.crs(), sheet_layer.extent(),
                          picture_dir / "plugin-pick.png", size=(600, 600))
        assert _has_colour(pick, (215, 48, 31)) > 50          # red crosses drawn
        x, y, e, n = read_anchor(folder / "016.points", 0)
        fill_anchor(dialog.anchor_rows[0], round(x, 1), round(y, 1), e, n)
        dialog.start_georeference()
        wait_for_task(dialog)
        assert dialog.last_outcome is not None, iface.messages()
        dialog.resize(dialog.sizeHint().width() + 120, dialog.sizeHint().height())
        assert dialog.grab().save(str(picture_dir / "plugin-dialog.png"), "PNG")

        layers = {layer.name(): layer for layer in QgsProject.instance().mapLayers().values()}
        raster = layers["016-INPUT (georeferenced)"]
        points = layers["016-INPUT intersections"]
        extent = raster.extent()
        extent.scale(1.05)
        result = render_map([points, raster], raster.crs(), extent,
                            picture_dir / "plugin-result.png", size=(700, 700))
        assert _has_colour(result, (46, 158, 68)) > 50         # green dots of used points
        paper = _has_colour(result, (240, 230, 210), tol=30)
        assert paper > 0.3 * result.shape[0] * result.shape[1]  # the sheet itself

        # the blocks of the georeferenced sheet land on it, in its CRS
        blocks_dialog = BlocksDialog(iface)
        try:
            blocks_dialog.sheet.set_layer(raster)
            blocks_dialog.start_vectorize()
            wait_for_task(blocks_dialog)
            assert blocks_dialog.last_outcome is not None, iface.messages()
        finally:
            blocks_dialog.cleanup()
        layers = {layer.name(): layer for layer in QgsProject.instance().mapLayers().values()}
        blocks = layers["016-INPUT blocks"]
        assert blocks.crs().authid() == "EPSG:2154"
        shown = render_map([points, blocks, raster], raster.crs(), extent,
                           picture_dir / "plugin-blocks.png", size=(700, 700))
        assert _has_colour(shown, (190, 120, 95), tol=45) > 0.02 * shown.shape[0] ** 2
    finally:
        dialog.cleanup()
        iface.dispose(dialog)   # and blocks_dialog, a child of the main window
        clear_project()
        shutil.rmtree(folder, ignore_errors=True)
    for name in ("plugin-pick.png", "plugin-dialog.png", "plugin-result.png",
                 "plugin-blocks.png"):
        assert (picture_dir / name).stat().st_size > 10_000
