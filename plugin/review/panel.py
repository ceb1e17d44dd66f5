"""The GCP review panel: a dock beside the map to check, correct and refit a georeference.

It opens on a run's output folder, its report, a sheet (its run, or the ``.points`` file
beside it) or a ``.points`` file (``core.georef.review.open_review``; a file without a run
is fitted into the dialog's default target CRS, Lambert-93), or on a refused sheet with what
was read. Its own map canvas shows the sheet as scanned with the points,
their residual arrows, the detected crossings and the labels read; the table below lists
the points. Selecting a row selects the point and the other way round. Every edit refits at
once with core (:class:`plugin.review.session.ReviewSession`); *Save* writes the outputs in
a background task through core.

Keys (while the panel has the focus): N / P next and previous point, Space toggles *used*,
Ctrl+Z undo, Ctrl+Shift+Z or Ctrl+Y redo, Delete removes the selected point.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from qgis.core import (
    Qgis,
    QgsCoordinateReferenceSystem,
    QgsMapLayerStore,
    QgsProject,
    QgsUnitTypes,
)
from qgis.gui import QgsDockWidget, QgsFileWidget, QgsMapCanvas
from qgis.PyQt.QtCore import QItemSelectionModel, Qt
from qgis.PyQt.QtGui import QColor, QKeySequence
from qgis.PyQt.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QShortcut,
    QSplitter,
    QTableView,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from .. import choices, jobs
from ..crs import DEFAULT_TARGET
from ..i18n import number, tr
from ..tasks import CoreTask, describe_error
from ..widgets import MessageLine
from .canvas import GcpTool, ReviewLayers
from .session import ReviewSession
from .table import GcpTableModel


class ReviewPanel(QgsDockWidget):
    """The review dock. ``open_path``/``open_review`` load a sheet; ``session`` is the
    review being edited (None before)."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(tr("Review GCPs"), parent or iface.mainWindow())
        self.setObjectName("GraticuleGeoreferencerReviewPanel")
        self.iface = iface
        self.session: ReviewSession | None = None
        self.layers: ReviewLayers | None = None
        self.model: GcpTableModel | None = None
        self.task: CoreTask | None = None
        self.last_outcome = None
        self.store = QgsMapLayerStore(self)     # owns the canvas's layers
        self._build()

    # ---- layout -------------------------------------------------------------------------

    def _build(self) -> None:
        body = QWidget(self)
        layout = QVBoxLayout(body)
        row = QHBoxLayout()
        row.addWidget(QLabel(tr("Open"), body))
        self.source = QgsFileWidget(body)
        self.source.setFilter(tr("Runs, sheets and GCP files (*.report.json *.points *.jpg "
                                 "*.jpeg *.png *.tif *.tiff);;All files (*)"))
        self.source.lineEdit().setPlaceholderText(
            tr("a run's report, a sheet or a .points file"))
        self.source.fileChanged.connect(self._source_chosen)
        row.addWidget(self.source, 1)
        self.folder_button = QPushButton(tr("Run folder…"), body)
        self.folder_button.setToolTip(tr("Open the output folder of a georeferenced sheet"))
        self.folder_button.clicked.connect(self._choose_folder)
        row.addWidget(self.folder_button)
        layout.addLayout(row)
        self.title = QLabel("", body)
        self.title.setWordWrap(False)
        layout.addWidget(self.title)

        split = QSplitter(Qt.Orientation.Vertical, body)
        self.canvas = QgsMapCanvas(split)
        self.canvas.setCanvasColor(QColor("#f4f1ea"))
        self.canvas.setMinimumHeight(160)
        self.table = QTableView(split)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        # no editing on any key: N, P and Space are the panel's keys
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked
                                   | QAbstractItemView.EditTrigger.EditKeyPressed
                                   | QAbstractItemView.EditTrigger.SelectedClicked)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        split.setSizes([600, 300])
        layout.addWidget(split, 1)

        tools = QHBoxLayout()
        tools.addWidget(QLabel(tr("Transform"), body))
        self.transform = QComboBox(body)
        for label, kind in choices.transforms():
            self.transform.addItem(label, kind)
        self.transform.currentIndexChanged.connect(self._transform_chosen)
        tools.addWidget(self.transform, 1)
        self.snap = QCheckBox(tr("Snap to crossings"), body)
        self.snap.setChecked(True)
        self.snap.setToolTip(tr("A moved or added point goes onto the nearest detected "
                                "crossing within a quarter of a grid cell"))
        tools.addWidget(self.snap)
        self.add_button = QPushButton(tr("Add point"), body)
        self.add_button.setCheckable(True)
        self.add_button.setToolTip(tr("Click the sheet to add a point, then type its grid "
                                      "values in the table"))
        self.add_button.toggled.connect(self._adding)
        tools.addWidget(self.add_button)
        self.remove_button = QPushButton(tr("Remove"), body)
        self.remove_button.setToolTip(tr("Remove the selected point (Delete)"))
        self.remove_button.clicked.connect(self.remove_selected)
        tools.addWidget(self.remove_button)
        layout.addLayout(tools)

        self.fit_line = MessageLine(body)
        layout.addWidget(self.fit_line)

        self.read_box = QGroupBox(tr("What was read on the sheet"), body)
        read = QVBoxLayout(self.read_box)
        self.refusal_line = MessageLine(self.read_box)
        read.addWidget(self.refusal_line)
        self.labels_tree = QTreeWidget(self.read_box)
        self.labels_tree.setHeaderLabels([tr("Text"), tr("Value"), tr("Family"), tr("Line"),
                                          tr("Used"), tr("Why")])
        self.labels_tree.setRootIsDecorated(False)
        self.labels_tree.setMaximumHeight(140)
        read.addWidget(self.labels_tree)
        self.read_box.hide()
        layout.addWidget(self.read_box)

        buttons = QHBoxLayout()
        self.undo_button = QPushButton(tr("Undo"), body)
        self.redo_button = QPushButton(tr("Redo"), body)
        self.undo_button.setToolTip(tr("Undo the last change (Ctrl+Z)"))
        self.redo_button.setToolTip(tr("Redo (Ctrl+Shift+Z)"))
        self.undo_button.clicked.connect(self.undo)
        self.redo_button.clicked.connect(self.redo)
        self.zoom_button = QPushButton(tr("Whole sheet"), body)
        self.zoom_button.clicked.connect(self.zoom_to_sheet)
        self.save_button = QPushButton(tr("Save"), body)
        self.save_button.setToolTip(tr("Write the .points file, the GeoTIFF and the reports "
                                       "into the run's folder, and reload them"))
        self.save_button.clicked.connect(self.save)
        for button in (self.undo_button, self.redo_button, self.zoom_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.save_button)
        layout.addLayout(buttons)
        self.setWidget(body)
        self._shortcuts(body)
        self._enable()

    def _shortcuts(self, body: QWidget) -> None:
        keys = [("N", self.next_point), ("P", self.previous_point),
                ("Space", self.toggle_selected), ("Ctrl+Z", self.undo),
                ("Ctrl+Shift+Z", self.redo), ("Ctrl+Y", self.redo),
                ("Delete", self.remove_selected)]
        self.shortcuts = []
        for key, slot in keys:
            shortcut = QShortcut(QKeySequence(key), body)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
            self.shortcuts.append(shortcut)

    def _enable(self) -> None:
        has = self.session is not None
        stack = self.session.undo_stack if has else None
        for widget in (self.transform, self.snap, self.add_button, self.remove_button,
                       self.zoom_button):
            widget.setEnabled(has)
        self.undo_button.setEnabled(has and stack.canUndo())
        self.redo_button.setEnabled(has and stack.canRedo())
        self.save_button.setEnabled(has and self.task is None and self.session.fit.ok)

    # ---- opening ------------------------------------------------------------------------

    def _source_chosen(self, path: str) -> None:
        if path:
            self.open_path(path)

    def _choose_folder(self) -> None:
        from qgis.PyQt.QtWidgets import QFileDialog

        folder = QFileDialog.getExistingDirectory(self, tr("Output folder of a georeferenced "
                                                           "sheet"))
        if folder:
            self.open_path(folder)

    def open_path(self, path) -> bool:
        """Open what ``path`` names for review; a one-line message when it cannot."""
        from ...core.errors import InputError
        from ...core.georef.review import open_review

        try:
            review = open_review(path, crs=DEFAULT_TARGET)   # for a .points file alone
        except (InputError, OSError, ValueError) as exc:
            self.say(describe_error(exc)[0], Qgis.MessageLevel.Warning)
            return False
        return self.open_review(review)

    def open_path_quietly(self, path) -> bool:
        """Open ``path`` if there is something to review there; nothing said otherwise."""
        from ...core.errors import InputError
        from ...core.georef.review import open_review

        try:
            return self.open_review(open_review(path, crs=DEFAULT_TARGET))
        except (InputError, OSError, ValueError):
            return False

    def open_review(self, review) -> bool:
        """Show ``review`` (``core.georef.review.Review``) and start editing it."""
        from ..sheets import SheetError

        self._close_session()
        try:
            layers = ReviewLayers(Path(review.sheet), self.store)
        except SheetError as exc:
            self.say(str(exc), Qgis.MessageLevel.Warning)
            return False
        self.layers = layers
        self.session = ReviewSession(review)      # owned here: deleted after the widgets
        self.session.changed.connect(self._refresh)
        self.session.refused.connect(self._refused)
        self.session.undo_stack.indexChanged.connect(self._stack_changed)
        self.model = GcpTableModel(self.session, self.table)
        self.table.setModel(self.model)
        self.table.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _previous: self.select_point(current.row(), from_table=True))
        self.canvas.setDestinationCrs(layers.crs)
        self.canvas.setLayers(layers.layers())
        self.tool = GcpTool(self.canvas, layers, lambda: self.session.points.pixel_xy)
        self.tool.picked.connect(lambda k: self.select_point(k))
        self.tool.moved.connect(lambda k, x, y: self.session.move(k, x, y, self.snap.isChecked()))
        self.tool.added.connect(self._add_at)
        self.canvas.setMapTool(self.tool)
        layers.show_review(review)
        self.transform.blockSignals(True)
        self.transform.setCurrentIndex(max(0, self.transform.findData(self.session.kind)))
        self.transform.blockSignals(False)
        self._show_read(review)
        self.title.setText(self._title(review))
        self.title.setToolTip(str(review.sheet))
        self._refresh()
        self.zoom_to_sheet()
        self.show()
        self.raise_()
        return True

    def _refused(self, text: str) -> None:
        self.say(text, Qgis.MessageLevel.Warning)

    def _stack_changed(self, _index: int) -> None:
        self._enable()

    @staticmethod
    def _title(review) -> str:
        from ..crs import crs_name

        state = tr("refused") if review.refused else tr("{0} points").format(
            len(review.points))
        return tr("{0} ({1}): grid {2} → {3}").format(Path(review.sheet).name, state,
                                                     crs_name(review.grid_crs),
                                                     crs_name(review.crs))

    def _show_read(self, review) -> None:
        self.labels_tree.clear()
        for label in review.labels:
            value = label.get("value")
            item = QTreeWidgetItem([str(label.get("text", "")),
                                    "" if value is None else f"{value:g}",
                                    str(label.get("family", "")), str(label.get("line", "")),
                                    tr("yes") if label.get("used") else tr("no"),
                                    str(label.get("why") or "")])
            item.setToolTip(5, str(label.get("why") or ""))
            self.labels_tree.addTopLevelItem(item)
        extra = []
        if review.certainty is not None:
            extra.append(tr("Certainty of the labelling: {0}").format(
                number(review.certainty, 2)))
        extra += [tr("Candidate: {0}").format(self._candidate(c)) for c in review.candidates]
        if review.refused:
            self.refusal_line.setText(tr("Refused: {0}").format(
                describe_error(review.refusal)[0]), "\n".join(extra))
        else:
            self.refusal_line.setText("\n".join(extra[:1]), "\n".join(extra[1:]))
        self.refusal_line.setVisible(bool(review.refused or extra))
        self.read_box.setVisible(bool(review.refused or review.labels or extra))

    @staticmethod
    def _candidate(candidate) -> str:
        """A runner-up reading, shown as the reader gives it (a dict's items, or text)."""
        if isinstance(candidate, dict):
            return ", ".join(f"{k}={v}" for k, v in candidate.items() if k != "labels")
        return str(candidate)

    def _close_session(self) -> None:
        if self.session is not None:
            self.canvas.unsetMapTool(self.tool)
            self.canvas.setLayers([])
            self.layers.release()
            self.session.deleteLater()
        self.session = self.layers = self.model = None

    # ---- showing ------------------------------------------------------------------------

    def _refresh(self) -> None:
        session = self.session
        selected = self.selected()
        self.layers.show_points(session.points, session.fit)
        if selected is not None and selected < len(session.points):
            self.select_point(selected)
        self.fit_line.setText(*self.fit_text())
        self._enable()

    def fit_text(self) -> tuple[str, str]:
        """(one line, details) on the current fit: its RMSE or why there is none."""
        session = self.session
        fit = session.fit
        warnings = list(session.naming_warnings) + list(fit.warnings)
        if not fit.ok:
            return tr("No fit: {0}").format(describe_error(fit.error)[0]), ""
        unit = QgsUnitTypes.toAbbreviatedString(
            QgsCoordinateReferenceSystem.fromWkt(session.review.crs).mapUnits())
        line = tr("RMSE {0} {1} ({2} px) over {3} of {4} points, {5}; {6}").format(
            number(fit.rmse_map), unit, number(fit.rmse_px), int(fit.used.sum()),
            len(session.points), fit.kind, self.layers.scale_text())
        if warnings:
            line += " — " + tr("warnings: {0}").format(len(warnings))
        return line, "\n".join(warnings)

    def selected(self) -> int | None:
        """The selected point's row, or None."""
        if self.model is None:
            return None
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    def select_point(self, k: int, from_table: bool = False) -> None:
        """Select point ``k`` in the table and on the canvas (and bring it into view)."""
        if self.session is None or not 0 <= k < len(self.session.points):
            return
        if not from_table and self.selected() != k:
            self.table.selectionModel().setCurrentIndex(
                self.model.index(k, 0), QItemSelectionModel.SelectionFlag.ClearAndSelect
                | QItemSelectionModel.SelectionFlag.Rows)
            return      # currentRowChanged comes back here
        fid = self.layers.row_feature(k)
        self.layers.points.selectByIds([fid] if fid is not None else [])
        self.table.scrollTo(self.model.index(k, 0))
        at = self.layers.to_layer(*self.session.points.pixel_xy[k])
        if not self.canvas.extent().contains(at):
            self.canvas.setCenter(at)
        self.canvas.refresh()

    def zoom_to_sheet(self) -> None:
        if self.layers is not None:
            self.canvas.setExtent(self.layers.sheet.extent())
            self.canvas.refresh()

    def say(self, text: str, level, details: str = "") -> None:
        """A message in the panel's line and in the QGIS message bar."""
        self.fit_line.setText(text, details)
        self.iface.messageBar().pushMessage(tr("Graticule Georeferencer"), text, level=level,
                                            duration=10)

    # ---- editing ------------------------------------------------------------------------

    def _transform_chosen(self, _index: int) -> None:
        if self.session is not None:
            self.session.set_kind(self.transform.currentData())

    def _adding(self, on: bool) -> None:
        if self.session is not None:
            self.tool.adding = on

    def _add_at(self, x: float, y: float) -> None:
        k = self.session.add(x, y, self.snap.isChecked())
        self.add_button.setChecked(False)
        self.select_point(k)
        self.table.edit(self.model.index(k, 4))      # type its easting now

    def next_point(self) -> None:
        self._step(+1)

    def previous_point(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        if self.session is None or not len(self.session.points):
            return
        k = self.selected()
        n = len(self.session.points)
        self.select_point(0 if k is None and delta > 0 else ((k or 0) + delta) % n)

    def toggle_selected(self) -> None:
        k = self.selected()
        if k is not None:
            self.session.toggle_used(k)

    def remove_selected(self) -> None:
        k = self.selected()
        if k is not None:
            self.session.remove(k)

    def undo(self) -> None:
        if self.session is not None:
            self.session.undo_stack.undo()

    def redo(self) -> None:
        if self.session is not None:
            self.session.undo_stack.redo()

    # ---- saving -------------------------------------------------------------------------

    def save(self) -> CoreTask | None:
        """Write the reviewed outputs through core in a background task, then reload the
        sheet's layers in the project."""
        from qgis.core import QgsApplication

        if self.session is None or self.task is not None:
            return None
        session = self.session
        request = jobs.SaveRequest(session.review, session.points, session.kind)
        sheet = Path(session.review.sheet).name

        def done(task: CoreTask) -> None:
            self.task = None
            self._enable()
            if task.result is not None:
                self._saved(session, task.result)
            elif not task.cancelled:
                self.say(task.error or tr("Saving failed."), Qgis.MessageLevel.Critical,
                         task.details or "")

        self.task = CoreTask(tr("Saving the review of {0}").format(sheet),
                             lambda progress: jobs.save_review(request, progress), done)
        self._enable()
        QgsApplication.taskManager().addTask(self.task)
        return self.task

    def _saved(self, session: ReviewSession, outcome) -> None:
        from ..layers import load_georef_outcome
        from ..project import replace_sheet_group

        self.last_outcome = outcome
        session.mark_saved()
        session.review.outdir = outcome.raster.parent
        project = QgsProject.instance()
        with contextlib.suppress(OSError):
            replace_sheet_group(project, outcome.sheet.stem,
                                lambda: load_georef_outcome(project, outcome))
        result = outcome.result
        self.say(tr("Saved in {0}: RMSE {1} ({2} px) over {3} of {4} points.").format(
            outcome.raster.parent, number(result.rmse_map), number(result.rmse_px),
            int(result.inliers.sum()), len(result.inliers)), Qgis.MessageLevel.Success)

    def cleanup(self) -> None:
        """Forget a running save without calling back (the plugin is being unloaded)."""
        if self.task is not None:
            with contextlib.suppress(RuntimeError):
                self.task.on_done = None
            self.task = None
        self._close_session()
