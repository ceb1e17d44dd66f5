"""The "Vectorize building blocks" dialog: a sheet in, GeoPackage polygons out.

The sheet may be georeferenced or not (see :mod:`plugin.jobs` for where the polygons
are placed); the job runs in a :class:`plugin.tasks.CoreTask` and the GeoPackage's layers
are added to the project.
"""

from __future__ import annotations

from qgis.core import QgsProject
from qgis.gui import QgsFileWidget
from qgis.PyQt.QtWidgets import QComboBox

from ..i18n import tr
from ..jobs import BlocksRequest, default_gpkg, vectorize_blocks
from ..layers import load_blocks_outcome
from ..tasks import CoreTask
from .task_dialog import TaskDialog, add_field, file_input, file_path


class BlocksDialog(TaskDialog):
    """Non-modal dialog running the block (or closed-shape) vectorization of one sheet."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(iface, parent)
        self.last_outcome = None
        self.setWindowTitle(tr("Vectorize building blocks"))
        self.setObjectName("GraticuleGeoreferencerBlocksDialog")
        self._build()

    def _build(self) -> None:
        box, form = self.sheet_box(
            tr("automatic: NNN-INPUT-MASK.png or NAME-MASK.png beside the sheet, else found "
               "on the sheet"))
        self.level = QComboBox(box)
        self.level.addItem(tr("Building blocks"), "blocks")
        self.level.addItem(tr("Blocks and every closed shape inside them"), "shapes")
        self.level_label = add_field(form, tr("Polygons"), self.level)
        self.georef = file_input(
            box, tr("automatic: the sheet's own, or <sheet>_georef beside it; else pixels"),
            tr("QGIS GCP files (*.points);;All files (*)"))
        self.georef_label = add_field(form, tr("Georeferencing (.points)"), self.georef)
        self.output = file_input(box, tr("automatic: <sheet>_blocks.gpkg beside the sheet"),
                                 tr("GeoPackage (*.gpkg)"), QgsFileWidget.StorageMode.SaveFile)
        self.output_label = add_field(form, tr("Output GeoPackage"), self.output)
        self.add_buttons(tr("Vectorize"), self.start_vectorize)

    def request(self) -> BlocksRequest:
        """The job the form describes; ValueError (message for the user) when incomplete."""
        sheet, level = self.sheet.path(), self.level.currentData()
        gpkg = file_path(self.output) or default_gpkg(sheet, level)
        if gpkg.suffix.lower() != ".gpkg":
            gpkg = gpkg.with_suffix(".gpkg")
        return BlocksRequest(sheet=sheet, gpkg=gpkg, level=level,
                             mask=file_path(self.mask), georef=file_path(self.georef))

    def start_vectorize(self) -> CoreTask | None:
        """Run the vectorization described by the form in a background task."""
        return self.launch(self.request, tr("Vectorizing the blocks of {0}"),
                           tr("Vectorization"), vectorize_blocks, self._done)

    def _done(self, outcome) -> None:
        self.last_outcome = outcome
        words = {"blocks": tr("{0} blocks"), "shapes": tr("{0} closed shapes")}

        def describe(layers) -> str:
            counts = ", ".join(words[level].format(layer.featureCount())
                               for level, layer in layers.items())
            return tr("{0}: {1}, {2}. Saved in {3}").format(outcome.sheet.name, counts,
                                                            outcome.placed_by, outcome.gpkg)

        self.show_outcome(lambda: load_blocks_outcome(QgsProject.instance(), outcome), describe)
