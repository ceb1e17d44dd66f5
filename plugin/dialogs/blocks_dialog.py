"""The "Vectorize building blocks" dialog: a sheet in, GeoPackage polygons out.

The sheet may be georeferenced or not (see :mod:`plugin.vectorize` for where the polygons
are placed); the job runs in a :class:`plugin.tasks.CoreTask` and the GeoPackage's layers
are added to the project.
"""

from __future__ import annotations

from pathlib import Path

from qgis.core import Qgis, QgsProject
from qgis.gui import QgsFileWidget
from qgis.PyQt.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
)

from ..i18n import tr
from ..layers import load_blocks_outcome
from ..sheets import SheetError
from ..tasks import CoreTask
from ..vectorize import BlocksRequest, default_gpkg, vectorize_blocks
from .task_dialog import TaskDialog
from .widgets import file_input


class BlocksDialog(TaskDialog):
    """Non-modal dialog running the block (or closed-shape) vectorization of one sheet."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(iface, parent)
        self.last_outcome = None
        self.setWindowTitle(tr("Vectorize building blocks"))
        self.setObjectName("GraticuleGeoreferencerBlocksDialog")
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.addWidget(self.bar)
        box, form = self.sheet_box(
            tr("automatic: NNN-INPUT-MASK.png beside the sheet, else found on the sheet"))
        self.level = QComboBox(box)
        self.level.addItem(tr("Building blocks"), "blocks")
        self.level.addItem(tr("Blocks and every closed shape inside them"), "shapes")
        self.level_label = QLabel(tr("Polygons"), box)
        form.addRow(self.level_label, self.level)
        self.georef = file_input(
            box, tr("automatic: the sheet's own, or <sheet>_georef beside it; else pixels"),
            tr("QGIS GCP files (*.points);;All files (*)"))
        self.georef_label = QLabel(tr("Georeferencing (.points)"), box)
        form.addRow(self.georef_label, self.georef)
        self.output = file_input(box, tr("automatic: <sheet>_blocks.gpkg beside the sheet"),
                                 tr("GeoPackage (*.gpkg)"), QgsFileWidget.StorageMode.SaveFile)
        self.output_label = QLabel(tr("Output GeoPackage"), box)
        form.addRow(self.output_label, self.output)
        layout.addWidget(box)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        buttons = QHBoxLayout()
        self.run_button = QPushButton(tr("Vectorize"), self)
        self.run_button.setDefault(True)
        self.close_button = QPushButton(tr("Close"), self)
        buttons.addStretch(1)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.close_button)
        layout.addLayout(buttons)
        self.run_buttons = [self.run_button]
        self.run_button.clicked.connect(self.start_vectorize)
        self.close_button.clicked.connect(self.close)

    def request(self) -> BlocksRequest:
        """The job the form describes; ValueError (message for the user) when incomplete."""
        try:
            sheet = self.sheet.path()
        except SheetError as exc:
            raise ValueError(str(exc)) from None
        level = self.level.currentData()
        out_text = self.output.filePath().strip()
        gpkg = Path(out_text) if out_text else default_gpkg(sheet, level)
        if gpkg.suffix.lower() != ".gpkg":
            gpkg = gpkg.with_suffix(".gpkg")
        mask_text = self.mask.filePath().strip()
        georef_text = self.georef.filePath().strip()
        return BlocksRequest(sheet=sheet, gpkg=gpkg, level=level,
                             mask=Path(mask_text) if mask_text else None,
                             georef=Path(georef_text) if georef_text else None)

    def start_vectorize(self) -> CoreTask | None:
        """Run the vectorization described by the form in a background task."""
        if self.busy():
            return None
        try:
            req = self.request()
        except ValueError as exc:
            self.warn(str(exc))
            return None
        return self.start(tr("Vectorizing the blocks of {0}").format(req.sheet.name),
                          lambda progress: vectorize_blocks(req, progress), self._done)

    def _done(self, task: CoreTask) -> None:
        if task.result is None:
            self.report_failure(task, tr("Vectorization"))
            return
        outcome = self.last_outcome = task.result
        bar = self.iface.messageBar()
        try:
            layers = load_blocks_outcome(QgsProject.instance(), outcome)
        except OSError as exc:
            bar.pushMessage(tr("Graticule Georeferencer"), str(exc),
                            level=Qgis.MessageLevel.Critical, duration=0)
            self.status.setText(str(exc))
            return
        words = {"blocks": tr("{0} blocks"), "shapes": tr("{0} closed shapes")}
        counts = ", ".join(words[level].format(layer.featureCount())
                           for level, layer in layers.items())
        text = tr("{0}: {1}, {2}. Saved in {3}").format(outcome.sheet.name, counts,
                                                        outcome.placed_by, outcome.gpkg)
        self.status.setText(text)
        bar.pushMessage(tr("Graticule Georeferencer"), text, level=Qgis.MessageLevel.Success,
                        duration=0)
