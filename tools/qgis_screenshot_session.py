"""Runs INSIDE a real QGIS (``qgis --code tools/qgis_screenshot_session.py``), driven by
``tools/qgis_screenshots.py``: uses the plugin as a person would and grabs the X screen.

Environment: ``SHOT_SHEET`` (a generated NNN-INPUT.jpg with NNN.points beside it),
``SHOT_REFUSED`` (the same scan alone: refused), ``SHOT_ATLAS`` (the output folder of a
directory run), ``SHOT_OUT`` (folder of the pictures), ``SHOT_MODE`` (``full``: detect,
pick, georeference, review, settle a refused sheet, open the atlas, vectorize;
``dialogs``: the two dialogs, the georeferencing one with a refusal, for a translated UI),
``SHOT_SUFFIX`` (added to file names, e.g. ``-fr``), ``SHOT_LOG`` (a line per step, read
by the driver).

The screen is grabbed from the X server (``QScreen.grabWindow(0)``) and cut to the window's
frame, so the pictures show what the window system shows, not an offscreen rendering.
"""

from __future__ import annotations

import os
import traceback
from pathlib import Path

from qgis.core import QgsApplication, QgsProject, QgsRasterLayer
from qgis.PyQt.QtCore import Qt, QTimer
from qgis.PyQt.QtWidgets import QApplication
from qgis.utils import iface, plugins

SHEET = Path(os.environ["SHOT_SHEET"])
REFUSED = Path(os.environ["SHOT_REFUSED"])
ATLAS = Path(os.environ["SHOT_ATLAS"])
OUT = Path(os.environ["SHOT_OUT"])
MODE = os.environ.get("SHOT_MODE", "full")
SUFFIX = os.environ.get("SHOT_SUFFIX", "")
LOG = Path(os.environ["SHOT_LOG"])
TIMEOUT_S = 300


def log(text: str) -> None:
    with LOG.open("a", encoding="utf-8") as f:
        f.write(text + "\n")


def grab(widget, name: str) -> None:
    """The X screen's pixels inside ``widget``'s frame, saved as OUT/name + SUFFIX.png."""
    QApplication.processEvents()
    frame = widget.frameGeometry()
    screen = QApplication.primaryScreen()
    pixmap = screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height())
    path = OUT / f"{name}{SUFFIX}.png"
    if not pixmap.save(str(path), "PNG"):
        raise OSError(f"cannot write {path}")
    log(f"wrote {path}")


def first_anchor(points: Path) -> tuple[float, float, float, float]:
    """Pixel x, y (down) and grid easting, northing of the first point of a .points file."""
    for line in points.read_text(encoding="utf-8").splitlines():
        parts = line.split(",")
        if line.startswith(("#", "mapX")) or len(parts) < 4:
            continue
        e, n, x, y = (float(v) for v in parts[:4])
        return x, -y, e, n
    raise ValueError(f"{points} holds no point")


class Session:
    """A chain of steps, each started by a timer so QGIS's event loop keeps running."""

    def __init__(self) -> None:
        self.plugin = plugins["graticule_georeferencer"]
        self.steps = ([self.open_dialog, self.detect, self.pick, self.georeference,
                       self.show_result, self.review, self.edit_review, self.refuse,
                       self.settle_refused, self.atlas, self.blocks, self.show_blocks]
                      if MODE == "full" else [self.load_sheet, self.open_dialog,
                                              self.refuse_in_dialog, self.open_blocks_dialog])
        self.waited = 0.0

    def start(self) -> None:
        main = iface.mainWindow()
        main.showNormal()
        main.setGeometry(0, 0, 1920, 1050)
        QTimer.singleShot(1500, self.next)

    def next(self) -> None:
        if not self.steps:
            log("done")
            QTimer.singleShot(500, lambda: QgsApplication.exit(0))
            return
        step = self.steps.pop(0)
        try:
            log(f"step {step.__name__}")
            step()
        except Exception:
            log("error " + traceback.format_exc().replace("\n", " | "))
            QgsApplication.exit(3)

    def wait_for(self, dialog, then) -> None:
        """Call ``then`` once the dialog's task is over (polled, the UI stays live)."""
        if dialog.task is None:
            self.waited = 0.0
            QTimer.singleShot(800, then)
            return
        self.waited += 0.5
        if self.waited > TIMEOUT_S:
            log("error: the task did not end")
            QgsApplication.exit(4)
            return
        QTimer.singleShot(500, lambda: self.wait_for(dialog, then))

    def when_drawn(self, then, settle_ms: int = 1500) -> None:
        """Call ``then`` once every map canvas (QGIS's and the review panel's) has finished
        drawing, and stayed so for ``settle_ms`` (labels and a late refresh included)."""
        from qgis.gui import QgsMapCanvas

        self.waited = 0.0

        def poll(quiet_ms: int = 0) -> None:
            drawing = any(c.isDrawing() for c in iface.mainWindow().findChildren(QgsMapCanvas))
            self.waited += 0.25
            if self.waited > TIMEOUT_S:
                log("error: a map canvas never finished drawing")
                QgsApplication.exit(5)
                return
            quiet_ms = 0 if drawing else quiet_ms + 250
            if quiet_ms >= settle_ms:
                then()
                return
            QTimer.singleShot(250, lambda: poll(quiet_ms))

        QTimer.singleShot(1000, poll)

    # ---- steps ----------------------------------------------------------------------------

    def load_sheet(self) -> None:
        self.sheet = QgsRasterLayer(str(SHEET), SHEET.stem)
        if not self.sheet.isValid():
            raise OSError(f"QGIS cannot open {SHEET}")
        QgsProject.instance().addMapLayer(self.sheet)
        iface.mapCanvas().setExtent(self.sheet.extent())
        QTimer.singleShot(1000, self.next)

    def open_dialog(self) -> None:
        """The dialog; in the full run on the sheet as a file (an empty project: the sheet
        is added unreferenced by the detection), else on the loaded layer, anchor typed."""
        self.dialog = self.plugin.show_georeference_dialog()
        if MODE == "full":
            self.dialog.sheet.set_file(SHEET)
        else:
            self.dialog.sheet.set_layer(self.sheet)
            x, y, e, n = first_anchor(SHEET.with_name(SHEET.name.split("-")[0] + ".points"))
            row = self.dialog.anchor_rows[0]
            for edit, value in zip(row.edits, (x, y, e, n), strict=True):
                edit.setText(f"{value:.1f}" if edit in (row.x, row.y) else f"{value:.0f}")
        self.dialog.move(1920 - self.dialog.frameGeometry().width(), 60)
        QTimer.singleShot(1200, self.grab_dialog)

    def grab_dialog(self) -> None:
        # the dialog shows on the next pictures (and, translated, with a refusal)
        self.next()

    def detect(self) -> None:
        self.dialog.start_detection()
        self.wait_for(self.dialog, self.after_detection)

    def after_detection(self) -> None:
        if self.dialog.graticule is None:
            raise RuntimeError("detection failed: " + self.dialog.status.text())
        log(f"detected {len(self.dialog.graticule)} intersections")
        QTimer.singleShot(1500, self.next)

    def pick(self) -> None:
        """Pick on map, then a click 5 px beside the anchor's intersection (in the canvas's
        coordinates, as a person clicks), its grid values typed."""
        from graticule_georeferencer.plugin.sheets import pixel_to_layer

        x, y, e, n = first_anchor(SHEET.with_name(SHEET.name.split("-")[0] + ".points"))
        row = self.dialog.anchor_rows[0]
        row.pick.click()
        canvas = iface.mapCanvas()
        layer_point = pixel_to_layer(self.dialog.sheet_layer, x - 0.5 + 5, y - 0.5 - 4)
        point = canvas.mapSettings().layerToMapCoordinates(self.dialog.sheet_layer,
                                                           layer_point)
        self.dialog.pick_tool.canvasClicked.emit(point, Qt.MouseButton.LeftButton)
        row.e.setText(f"{e:.0f}")
        row.n.setText(f"{n:.0f}")
        log(f"picked {row.x.text()}, {row.y.text()}: {self.dialog.pick_status.text()}")
        self.when_drawn(self.grab_pick)

    def grab_pick(self) -> None:
        grab(iface.mainWindow(), "qgis-pick")
        self.next()

    def georeference(self) -> None:
        self.dialog.start_georeference()
        self.wait_for(self.dialog, self.next)

    def show_result(self) -> None:
        outcome = self.dialog.last_outcome
        if outcome is None:
            raise RuntimeError("georeferencing failed: " + self.dialog.status.text())
        log(f"georeferenced: {self.dialog.status.text()}")
        project = QgsProject.instance()
        log(f"project CRS after the result: {project.crs().authid()}")
        self.result = outcome
        root = project.layerTreeRoot()
        for layer in project.mapLayersByName(SHEET.stem):        # the unreferenced scan
            root.findLayer(layer.id()).setItemVisibilityChecked(False)
        raster = project.mapLayersByName(f"{SHEET.stem} (georeferenced)")[0]
        canvas = iface.mapCanvas()
        canvas.setExtent(canvas.mapSettings().layerExtentToOutputExtent(raster,
                                                                        raster.extent()))
        canvas.refreshAllLayers()
        self.when_drawn(self.grab_result)

    def grab_result(self) -> None:
        grab(iface.mainWindow(), "qgis-result")
        self.dialog.close()
        self.next()

    # ---- the review panel ---------------------------------------------------------------

    def review(self) -> None:
        """The result opened in the review panel (the dialog's Review GCPs button)."""
        self.panel = self.dialog.review()
        iface.mainWindow().resizeDocks([self.panel], [900], Qt.Orientation.Horizontal)
        self.panel.select_point(0)
        log(f"review: {self.panel.fit_line.text()}")
        self.when_drawn(lambda: self.grab_then(self.panel, "qgis-review-before"))

    def grab_then(self, _widget, name: str) -> None:
        grab(iface.mainWindow(), name)
        self.next()

    def edit_review(self) -> None:
        """One GCP left out, another dragged 35 px off its crossing: refitted at once."""
        session = self.panel.session
        session.set_used(2, False)
        self.panel.snap.setChecked(False)
        x, y = session.points.pixel_xy[5]
        self.panel.tool.moved.emit(5, float(x) + 35.0, float(y) - 25.0)
        self.panel.select_point(5)
        log(f"edited: {self.panel.fit_line.text()}")
        self.when_drawn(lambda: self.grab_then(self.panel, "qgis-review-after"))

    def refuse(self) -> None:
        """The scan alone (no GCPs, no printed values): refused; then reviewed."""
        self.dialog = self.plugin.show_georeference_dialog()
        self.dialog.sheet.set_file(REFUSED)
        for edit in self.dialog.anchor_rows[0].edits:
            edit.clear()
        self.dialog.outdir.setFilePath("")
        self.dialog.start_georeference()
        self.wait_for(self.dialog, self.after_refusal)

    def after_refusal(self) -> None:
        review = self.dialog.last_review
        if review is None or not review.refused:
            raise RuntimeError("the sheet was not refused: " + self.dialog.status.text())
        log(f"refused: {self.dialog.status.text()[:200]}")
        self.dialog.close()
        self.panel = self.dialog.review()
        QTimer.singleShot(1500, self.next)

    def settle_refused(self) -> None:
        """The easting and northing of one crossing typed in the table: every crossing
        named, refitted."""
        from graticule_georeferencer.plugin.review.table import EASTING, NORTHING

        x, y, e, n = first_anchor(SHEET.with_name(SHEET.name.split("-")[0] + ".points"))
        session, model = self.panel.session, self.panel.model
        pixel = session.points.pixel_xy
        k = min(range(len(pixel)), key=lambda i: (pixel[i][0] - x) ** 2 + (pixel[i][1] - y) ** 2)
        model.setData(model.index(k, EASTING), f"{e:.0f}")
        model.setData(model.index(k, NORTHING), f"{n:.0f}")
        self.panel.select_point(k)
        if not session.fit.ok:
            raise RuntimeError("one crossing did not settle the sheet: "
                               + self.panel.fit_line.text())
        log(f"settled: {self.panel.fit_line.text()}")
        self.when_drawn(lambda: self.grab_then(self.panel, "qgis-review-refused"))

    def atlas(self) -> None:
        """The atlas run's footprints over its mosaic, its sheets listed."""
        self.panel.hide()
        iface.messageBar().clearWidgets()
        QgsProject.instance().layerTreeRoot().findGroup(SHEET.stem).setItemVisibilityChecked(
            False)
        self.atlas_panel = self.plugin.open_atlas(ATLAS)
        if self.atlas_panel.atlas is None:
            raise RuntimeError("the atlas did not open: " + self.atlas_panel.message.text())
        iface.mainWindow().resizeDocks([self.atlas_panel], [620], Qt.Orientation.Horizontal)
        log(f"atlas: {self.atlas_panel.summary.text()}")
        self.when_drawn(lambda: self.grab_then(self.atlas_panel, "qgis-atlas"))

    def open_blocks_dialog(self) -> None:
        self.blocks_dialog = self.plugin.show_blocks_dialog()
        self.blocks_dialog.sheet.set_layer(self.sheet)
        self.blocks_dialog.move(1920 - self.blocks_dialog.frameGeometry().width(), 60)
        QTimer.singleShot(1200, self.grab_blocks_dialog)

    def grab_blocks_dialog(self) -> None:
        grab(self.blocks_dialog, "qgis-blocks-dialog")
        self.next()

    def refuse_in_dialog(self) -> None:
        """The scan alone in the dialog: the refusal, the longest error there is, stays one
        line (Details… holds the rest and the labels read)."""
        self.dialog.sheet.set_file(REFUSED)
        for edit in self.dialog.anchor_rows[0].edits:
            edit.clear()
        self.dialog.start_georeference()
        self.wait_for(self.dialog, self.grab_refused_dialog)

    def grab_refused_dialog(self) -> None:
        log(f"refusal: {self.dialog.status.text()[:200]}")
        grab(self.dialog, "qgis-dialog")
        self.next()

    def blocks(self) -> None:
        self.atlas_panel.hide()
        project = QgsProject.instance()
        project.layerTreeRoot().findGroup(f"{ATLAS.name} atlas").setItemVisibilityChecked(False)
        project.layerTreeRoot().findGroup(SHEET.stem).setItemVisibilityChecked(True)
        tif = project.mapLayersByName(f"{SHEET.stem} (georeferenced)")[0]
        self.blocks_dialog = self.plugin.show_blocks_dialog()
        self.blocks_dialog.sheet.set_layer(tif)
        self.blocks_dialog.move(1920 - self.blocks_dialog.frameGeometry().width(), 60)
        self.blocks_dialog.start_vectorize()
        self.wait_for(self.blocks_dialog, self.next)

    def show_blocks(self) -> None:
        if self.blocks_dialog.last_outcome is None:
            raise RuntimeError("vectorization failed: " + self.blocks_dialog.status.text())
        log(f"blocks: {self.blocks_dialog.status.text()}")
        self.blocks_dialog.close()
        canvas = iface.mapCanvas()
        extent = canvas.fullExtent()
        extent.scale(0.45)
        canvas.setExtent(extent)
        self.when_drawn(self.grab_blocks)

    def grab_blocks(self) -> None:
        grab(iface.mainWindow(), "qgis-blocks")
        self.next()


SESSION = Session()
SESSION.start()
