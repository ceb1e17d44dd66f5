"""The "Detect graticule & georeference" dialog.

The user picks a sheet, the grid (CRS and spacing), an anchor saying which intersection is
which, the output CRS, transform and folder. "Detect intersections" runs the detection
alone, so an anchor can be picked by clicking an intersection on the map; "Georeference"
runs everything left in a :class:`plugin.tasks.CoreTask` and adds the georeferenced raster
and the intersections with their residuals to the project.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

import numpy as np
from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsProject,
    QgsRasterLayer,
    QgsUnitTypes,
)
from qgis.gui import (
    QgsDoubleSpinBox,
    QgsFileWidget,
    QgsMapToolEmitPoint,
    QgsMessageBar,
    QgsProjectionSelectionWidget,
)
from qgis.PyQt.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
)

from .. import choices, jobs
from ..crs import DEFAULT_TARGET, core_crs_text, paris_atlas_crs, result_crs
from ..i18n import number, parse_number, tr
from ..layers import detected_points_layer, load_georef_outcome
from ..sheets import SheetError, layer_to_pixel
from ..tasks import CoreTask, describe_error
from ..widgets import CrsInput, push_message, short
from .task_dialog import TaskDialog, add_field, file_input, file_path


class AnchorRow:
    """One anchor: the intersection near pixel (X, Y) has grid coordinates (E, N)."""

    def __init__(self, parent) -> None:
        tips = [tr("Pixel column of the intersection on the scan"),
                tr("Pixel row of the intersection (counted downwards)"),
                tr("Easting of the intersection in the grid CRS"),
                tr("Northing of the intersection in the grid CRS")]
        self.edits = [QLineEdit(parent) for _tip in tips]
        self.x, self.y, self.e, self.n = self.edits
        for edit, tip in zip(self.edits, tips, strict=True):
            edit.setToolTip(tip)
            edit.setMinimumWidth(70)
        self.pick = QPushButton(tr("Pick on map"), parent)
        self.pick.setToolTip(tr("Detect the intersections first, then click one on the map"))
        self.pick.setEnabled(False)

    def anchor(self, number: int) -> str | None:
        """``"X,Y=E,N"`` for core, None when empty; ValueError with a message for the user."""
        texts = [w.text() for w in self.edits]
        if not any(t.strip() for t in texts):
            return None
        if not all(t.strip() for t in texts):
            raise ValueError(tr("Anchor {0}: give the pixel position (X and Y) and the grid "
                                "coordinates (E and N), or leave all four empty.")
                             .format(number))
        values = []
        for text in texts:
            try:
                values.append(parse_number(text))
            except ValueError:
                raise ValueError(tr("Anchor {0}: “{1}” is not a number.").format(number, text)
                                 ) from None
        x, y, e, n = values
        return f"{x!r},{y!r}={e!r},{n!r}"


class GeoreferenceDialog(TaskDialog):
    """Non-modal dialog: QGIS stays usable (and clickable for picking) while it is open."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(iface, parent)
        self.graticule = None
        self.graticule_key: tuple | None = None
        self.preview_layer = None
        self.pick_tool: QgsMapToolEmitPoint | None = None
        self.previous_tool = None
        self.picking_row: AnchorRow | None = None
        self.sheet_layer: QgsRasterLayer | None = None
        self.last_outcome = None
        self.last_review = None
        self.review_panel = None
        #: opens a review (``core.georef.review.Review``) in a review panel; the plugin
        #: puts its shared panel here
        self.review_opener = self._own_review_panel
        self.setWindowTitle(tr("Detect graticule & georeference"))
        self.setObjectName("GraticuleGeoreferencerDialog")
        self._build()

    # ---- layout -------------------------------------------------------------------------

    def _build(self) -> None:
        self.sheet_box(tr("automatic: NNN-INPUT-MASK.png or NAME-MASK.png beside the sheet, "
                          "if any"))
        grid_box = QGroupBox(tr("Graticule"), self)
        form = QFormLayout(grid_box)
        self.grid_crs = CrsInput(grid_box)
        self.grid_crs.setCrs(paris_atlas_crs())
        self.grid_crs.setToolTip(tr("The CRS of the coordinates printed on the sheet: any CRS "
                                    "of QGIS, the Paris atlas grid, or one typed as PROJ/WKT; "
                                    "a .points file's own CRS is taken when one is chosen"))
        self.grid_crs_label = add_field(form, tr("Grid CRS"), self.grid_crs)
        self.spacing = QgsDoubleSpinBox(grid_box)
        self.spacing.setRange(0.0, 1e9)
        self.spacing.setDecimals(3)
        self.spacing.setSpecialValueText(tr("automatic"))
        self.spacing.setClearValue(0.0)
        self.spacing.setToolTip(tr("Distance between two grid lines, in the units of the grid "
                                   "CRS (1000 m on the Paris atlas); automatic: the step of "
                                   "the grid values printed on the sheet, else 1000"))
        self.spacing_label = add_field(form, tr("Grid spacing"), self.spacing)
        self.layout_.addWidget(grid_box)

        anchor_box = QGroupBox(tr("Anchor: which intersection is which"), self)
        column = QVBoxLayout(anchor_box)
        grid = QGridLayout()
        heads = [tr("Pixel X"), tr("Pixel Y"), tr("Easting"), tr("Northing")]
        for col, text in enumerate(heads, start=1):
            grid.addWidget(QLabel(text, anchor_box), 0, col)
        self.anchor_rows = [AnchorRow(anchor_box), AnchorRow(anchor_box)]
        names = [tr("Anchor"), tr("Second anchor (rotated sheets)")]
        for r, (row, name) in enumerate(zip(self.anchor_rows, names, strict=True), start=1):
            for col, widget in enumerate([QLabel(name, anchor_box), *row.edits, row.pick]):
                grid.addWidget(widget, r, col)
            row.pick.clicked.connect(lambda _checked=False, ar=row: self.start_picking(ar))
        column.addLayout(grid)
        # a wrapped label in a box layout (not spanning grid columns) gets the height of
        # its lines at any width and any text length
        self.pick_status = QLabel(self.pick_hint(), anchor_box)
        self.pick_status.setWordWrap(True)
        self.pick_status.setSizePolicy(QSizePolicy.Policy.Preferred,
                                       QSizePolicy.Policy.Maximum)
        column.addWidget(self.pick_status)
        points_row = QHBoxLayout()
        self.gcps_label = QLabel(tr("Known points (.points)"), anchor_box)
        points_row.addWidget(self.gcps_label)
        self.gcps = file_input(anchor_box, tr("automatic: <sheet>.points beside the sheet, if any"),
                               tr("QGIS GCP files (*.points);;All files (*)"))
        self.gcps.fileChanged.connect(self._points_chosen)
        points_row.addWidget(self.gcps, 1)
        column.addLayout(points_row)
        self.layout_.addWidget(anchor_box)

        out_box = QGroupBox(tr("Result"), self)
        form = QFormLayout(out_box)
        self.target_crs = QgsProjectionSelectionWidget(out_box)
        self.target_crs.setCrs(QgsCoordinateReferenceSystem(DEFAULT_TARGET))
        self.target_crs_label = add_field(form, tr("Target CRS"), self.target_crs)
        self.transform = QComboBox(out_box)
        for label, kind in choices.transforms():
            self.transform.addItem(label, kind)
        self.transform.setCurrentIndex(self.transform.findData("affine"))
        add_field(form, tr("Transform"), self.transform)
        self.outdir = file_input(out_box, tr("automatic: <sheet>_georef beside the sheet"),
                                 mode=QgsFileWidget.StorageMode.GetDirectory)
        add_field(form, tr("Output folder"), self.outdir)
        self.layout_.addWidget(out_box)

        self.detect_button = QPushButton(tr("Detect intersections"), self)
        self.detect_button.setToolTip(tr("Find the intersections first, to pick an anchor on "
                                         "the map"))
        self.detect_button.clicked.connect(self.start_detection)
        self.review_button = QPushButton(tr("Review GCPs"), self)
        self.review_button.setToolTip(tr("Check, correct and refit the GCPs of the last result "
                                         "(or of a refused sheet) in the review panel"))
        self.review_button.clicked.connect(self.review)
        self.add_buttons(tr("Georeference"), self.start_georeference, self.detect_button,
                         self.review_button)
        self.run_buttons.remove(self.review_button)     # usable while a job runs
        self.review_button.setEnabled(False)
        self.sheet.changed.connect(self._forget_detection)
        self.mask.fileChanged.connect(lambda _p: self._forget_detection())

    # ---- reading the form ---------------------------------------------------------------

    def request(self) -> dict:
        """The options of ``core.georef.georeference`` the form gives (CRSs as text core
        reads, anchors as ``"X,Y=E,N"``); ValueError (message for the user) when
        incomplete."""
        sheet = self.sheet.path()
        grid_crs, crs = self.grid_crs.crs(), self.target_crs.crs()
        if not grid_crs.isValid():
            raise ValueError(tr("Choose the grid CRS (the coordinates printed on the sheet)."))
        if not crs.isValid():
            raise ValueError(tr("Choose the target CRS of the georeferenced sheet."))
        # no anchor and no GCPs: core reads the grid values printed on the sheet
        anchors = [a for k, row in enumerate(self.anchor_rows, start=1)
                   if (a := row.anchor(k)) is not None]
        graticule = self.graticule if self.graticule_key == self._detection_key() else None
        return {"input_path": sheet, "crs": core_crs_text(crs),
                "grid_crs": core_crs_text(grid_crs), "spacing": self.spacing.value() or None,
                "anchors": anchors, "transform": self.transform.currentData(),
                "outdir": file_path(self.outdir), "mask": file_path(self.mask) or "auto",
                "gcps": file_path(self.gcps), "graticule": graticule}

    def _detection_key(self) -> tuple:
        """What a detection depends on: the sheet and the mask."""
        return (str(self.sheet.path()), str(file_path(self.mask) or ""))

    # ---- running tasks ------------------------------------------------------------------

    def start_detection(self) -> CoreTask | None:
        """Detect the intersections only (to pick an anchor on the map)."""
        def detect(key: tuple, progress) -> tuple:
            return key, jobs.detect(Path(key[0]), key[1] or None, progress)

        return self.launch(self._detection_key, tr("Detecting the graticule of {0}"),
                           tr("Detection"), detect, lambda found: self._detection_done(*found))

    def start_georeference(self) -> CoreTask | None:
        """Run the georeferencing described by the form in a background task (a refusal
        comes back with what was read, to review)."""
        return self.launch(self.request, tr("Georeferencing {0}"), tr("Georeferencing"),
                           jobs.georeference_for_review, self._georeference_done)

    def _detection_done(self, key: tuple, graticule) -> None:
        self.graticule, self.graticule_key = graticule, key
        spacing = np.mean([graticule.columns.spacing_px, graticule.rows.spacing_px])
        self.status.setText(tr("{0} intersections found, {1} px apart. Pick one on the map "
                               "to anchor the grid.").format(len(graticule),
                                                             number(spacing, 1)))
        for row in self.anchor_rows:
            row.pick.setEnabled(True)
        self._show_detection()

    def _georeference_done(self, done) -> None:
        self.last_review = done.review
        self.review_button.setEnabled(True)
        if done.outcome is None:
            self._refused(done.review)
            return
        outcome = self.last_outcome = done.outcome
        self._remove_preview()
        self.show_outcome(lambda: self._load(outcome), lambda _layers: self.summary(outcome))
        for warning in outcome.result.warnings:
            push_message(self.iface.messageBar(), warning, Qgis.MessageLevel.Warning, 15)

    def _load(self, outcome):
        """Add the result's layers; the project takes the result's CRS when it holds
        nothing else (the sheet shown unreferenced aside), else a button offers it."""
        from ..project import adopt_crs

        project = QgsProject.instance()
        layers = load_georef_outcome(project, outcome)
        group = project.layerTreeRoot().findGroup(outcome.sheet.stem)
        ours = [node.layerId() for node in group.findLayers()] if group else list(layers)
        if self.sheet_layer is not None:
            with contextlib.suppress(RuntimeError):
                ours.append(self.sheet_layer.id())
        if adopt_crs(self.iface, project, result_crs(outcome.result), ours):
            canvas = self.iface.mapCanvas()
            canvas.setDestinationCrs(project.crs())
            canvas.setExtent(canvas.mapSettings().layerExtentToOutputExtent(
                layers[0], layers[0].extent()))
            canvas.refresh()
        return layers

    def _refused(self, review) -> None:
        """The sheet was refused: one line (all of it and the labels read behind Details),
        and a button to open it in the review panel with what was read."""
        from ..tasks import describe_error

        self._remove_preview()
        text = describe_error(review.refusal)[0]
        read = [tr("{0} labels read:").format(len(review.labels))] + [
            f"{label.get('text', '')} ({label.get('family', '')}): {label.get('why') or ''}"
            for label in review.labels]
        self.status.setText(text, "\n".join(read))
        item = QgsMessageBar.createMessage(tr("Graticule Georeferencer"), short(text))
        button = QPushButton(tr("Review…"), item)
        button.setObjectName("GraticuleGeoreferencerReviewRefused")
        button.clicked.connect(self.review)
        item.layout().addWidget(button)
        self.iface.messageBar().pushWidget(item, Qgis.MessageLevel.Critical, 0)

    def review(self):
        """Open the last result (or refused sheet) in the review panel."""
        if self.last_review is None:
            return None
        return self.review_opener(self.last_review)

    def _own_review_panel(self, review):
        """The review panel of this dialog (the plugin gives its shared one instead)."""
        from ..review.panel import ReviewPanel

        if self.review_panel is None:
            self.review_panel = ReviewPanel(self.iface)
        self.review_panel.open_review(review)
        return self.review_panel

    def _points_chosen(self, path: str) -> None:
        """A .points file chosen: its own CRS (the CRS of its coordinates) becomes the grid
        CRS, unless it is the target CRS (core's output files are in it)."""
        from ...core.errors import InputError
        from ...core.formats.qgis_points import read_points_file
        from ..crs import crs_from_text

        if not path:
            return
        try:
            text = read_points_file(path).crs
        except InputError as exc:
            self.warn(describe_error(exc)[0])
            return
        crs = crs_from_text(text) if text else None
        if crs is None or crs == self.target_crs.crs() or crs == self.grid_crs.crs():
            return
        self.grid_crs.setCrs(crs)
        self.pick_status.setText(tr("Grid CRS taken from {0}: {1}.").format(
            Path(path).name, crs.userFriendlyIdentifier()))

    def summary(self, outcome) -> str:
        """One line: RMSE in map units and pixels, points used, output folder."""
        result = outcome.result
        unit = QgsUnitTypes.toAbbreviatedString(result_crs(result).mapUnits())
        return tr("{0} georeferenced: RMSE {1} {2} ({3} px) over {4} of {5} intersections. "
                  "Files in {6}").format(
            outcome.sheet.name, number(result.rmse_map), unit, number(result.rmse_px),
            int(result.inliers.sum()), len(result.inliers), outcome.raster.parent)

    # ---- picking an anchor on the canvas ------------------------------------------------

    @staticmethod
    def pick_hint() -> str:
        """What the anchor box says before anything is picked."""
        return tr("Leave the anchors empty to read the grid values printed on the sheet; or "
                  "type the pixel position of an intersection and its grid coordinates, or "
                  "detect the intersections and pick one on the map.")

    def _forget_detection(self) -> None:
        self.graticule = self.graticule_key = None
        self.pick_status.setText(self.pick_hint())
        for row in self.anchor_rows:
            row.pick.setEnabled(False)
        self._remove_preview()

    def _remove_preview(self) -> None:
        if self.preview_layer is not None:
            with contextlib.suppress(RuntimeError):  # the user already removed it
                QgsProject.instance().removeMapLayer(self.preview_layer.id())
            self.preview_layer = None

    def _show_detection(self) -> None:
        """Draw the detected intersections over the sheet and zoom to them.

        An unreferenced sheet's coordinates are pixels in no CRS: the sheet and the crosses
        take the map's CRS, so that QGIS draws them as they are instead of reprojecting
        pixels as if they were degrees (which left the map blank in a project in another
        CRS)."""
        from ...core.blocks.georeference import raster_georeference

        try:
            self.sheet_layer = self.sheet.as_layer()
            path = self.sheet.path()
        except SheetError as exc:
            self.warn(str(exc))
            return
        canvas = self.iface.mapCanvas()
        map_crs = canvas.mapSettings().destinationCrs()
        if raster_georeference(path) is None and map_crs.isValid():
            self.sheet_layer.setCrs(map_crs)
        self._remove_preview()
        self.preview_layer = detected_points_layer(self.graticule, self.sheet_layer)
        QgsProject.instance().addMapLayer(self.preview_layer)
        extent = canvas.mapSettings().layerExtentToOutputExtent(self.sheet_layer,
                                                                self.sheet_layer.extent())
        canvas.setExtent(extent)
        canvas.refresh()

    def start_picking(self, row: AnchorRow) -> None:
        """Let the user click an intersection on the map for ``row``'s pixel position."""
        if self.graticule is None or self.sheet_layer is None:
            self.warn(tr("Detect the intersections first."))
            return
        canvas = self.iface.mapCanvas()
        self.picking_row = row
        if self.pick_tool is None:
            self.pick_tool = QgsMapToolEmitPoint(canvas)
            self.pick_tool.canvasClicked.connect(self.pick_at)
        self.previous_tool = canvas.mapTool()
        canvas.setMapTool(self.pick_tool)
        self.pick_status.setText(tr("Click an intersection (red cross) on the map."))

    def pick_at(self, point, _button=None) -> None:
        """Snap a canvas click to the nearest detected intersection and fill the anchor."""
        row = self.picking_row or self.anchor_rows[0]
        self.stop_picking()
        if self.graticule is None or self.sheet_layer is None:
            return
        canvas = self.iface.mapCanvas()
        layer_point = canvas.mapSettings().mapToLayerCoordinates(self.sheet_layer, point)
        px, py = layer_to_pixel(self.sheet_layer, layer_point)
        distances = np.hypot(self.graticule.points[:, 0] - px,
                             self.graticule.points[:, 1] - py)
        k = int(np.argmin(distances))
        spacing = np.mean([self.graticule.columns.spacing_px, self.graticule.rows.spacing_px])
        if np.isfinite(spacing) and distances[k] > 0.5 * spacing:
            self.pick_status.setText(tr("No detected intersection near the click; click "
                                        "closer to a red cross."))
            return
        x, y = self.graticule.points[k]
        column, grid_row = self.graticule.index[k]
        row.x.setText(f"{x:.1f}")
        row.y.setText(f"{y:.1f}")
        self.pick_status.setText(tr("Intersection column {0}, row {1} at pixel ({2}; {3}): "
                                    "now type its easting and northing.")
                                 .format(int(column), int(grid_row), number(x, 1),
                                         number(y, 1)))
        row.e.setFocus()
        self.show()
        self.raise_()
        self.activateWindow()

    def stop_picking(self) -> None:
        canvas = self.iface.mapCanvas()
        if self.pick_tool is not None and canvas.mapTool() is self.pick_tool:
            if self.previous_tool is not None:
                canvas.setMapTool(self.previous_tool)
            else:
                canvas.unsetMapTool(self.pick_tool)
        self.previous_tool = None
        self.picking_row = None

    # ---- closing ------------------------------------------------------------------------

    def cleanup(self) -> None:
        """Cancel a running job, release the map tool and the preview layer (on unload)."""
        super().cleanup()
        if self.review_panel is not None:
            self.review_panel.cleanup()
            self.review_panel.deleteLater()
            self.review_panel = None
        self.stop_picking()
        if self.pick_tool is not None:
            self.pick_tool.deleteLater()
            self.pick_tool = None
        self._remove_preview()
