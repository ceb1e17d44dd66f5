"""Small widgets the dialogs share: a sheet chooser and a file field."""

from __future__ import annotations

from pathlib import Path

from qgis.core import QgsMapLayerProxyModel, QgsProject, QgsRasterLayer
from qgis.gui import QgsFileWidget, QgsMapLayerComboBox
from qgis.PyQt.QtCore import pyqtSignal
from qgis.PyQt.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QToolButton,
    QWidget,
)

from ..i18n import tr
from ..sheets import SheetError, layer_file


def file_input(parent, placeholder: str, file_filter: str = "",
               mode: QgsFileWidget.StorageMode = QgsFileWidget.StorageMode.GetFile
               ) -> QgsFileWidget:
    """A file (or folder) field whose empty state shows ``placeholder`` (what happens then)."""
    widget = QgsFileWidget(parent)
    widget.setStorageMode(mode)
    if file_filter:
        widget.setFilter(file_filter)
    edit = widget.lineEdit()
    edit.setPlaceholderText(placeholder)
    edit.setToolTip(placeholder)
    # wide enough to show the whole placeholder (it says what an empty field means)
    edit.setMinimumWidth(edit.fontMetrics().horizontalAdvance(placeholder) + 24)
    return widget


def file_path(widget: QgsFileWidget) -> Path | None:
    """The path in a file field, None when it is empty."""
    text = widget.filePath().strip()
    return Path(text) if text else None


class SheetInput(QWidget):
    """A raster layer of the project or an image file: a layer combo box with a "…" button.

    A file chosen with the button is added to the combo box as an extra item.
    """

    changed = pyqtSignal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.combo = QgsMapLayerComboBox(self)
        self.combo.setFilters(QgsMapLayerProxyModel.Filter.RasterLayer)
        self.combo.setAllowEmptyLayer(True)
        self.combo.setShowCrs(False)
        self.browse = QToolButton(self)
        self.browse.setText("…")
        self.browse.setToolTip(tr("Choose an image file"))
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.combo, 1)
        layout.addWidget(self.browse)
        self.browse.clicked.connect(self._choose_file)
        self._selected = self._selection()
        self.combo.currentIndexChanged.connect(self._index_changed)

    def _selection(self) -> tuple:
        layer = self.combo.currentLayer()
        return (layer.id() if layer is not None else None, self.combo.currentText())

    def _index_changed(self, _index: int) -> None:
        # layers added to or removed from the project move the index, not the selection
        selected = self._selection()
        if selected != self._selected:
            self._selected = selected
            self.changed.emit()

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Scanned sheet"), "",
            tr("Images (*.jpg *.jpeg *.png *.tif *.tiff);;All files (*)"))
        if path:
            self.set_file(path)

    def set_file(self, path: str | Path) -> None:
        """Select an image file (not necessarily loaded in the project)."""
        text = str(path)
        items = list(self.combo.additionalItems())
        if text not in items:
            items.append(text)
            self.combo.setAdditionalItems(items)
        self.combo.setCurrentIndex(self.combo.findText(text))

    def set_layer(self, layer) -> None:
        self.combo.setLayer(layer)

    def layer(self):
        """The selected raster layer, or None when a file (or nothing) is selected."""
        return self.combo.currentLayer()

    def path(self) -> Path:
        """The sheet's image file; SheetError (message for the user) if there is none."""
        layer = self.combo.currentLayer()
        if layer is not None:
            return layer_file(layer)
        text = self.combo.currentText().strip()
        if not text:
            raise SheetError(tr("Choose the scanned sheet: a raster layer or an image file."))
        path = Path(text)
        if not path.is_file():
            raise SheetError(tr("The file {0} does not exist; choose the sheet again.")
                             .format(text))
        return path

    def as_layer(self) -> QgsRasterLayer:
        """The selected raster layer; for a file, the project's layer reading it, else a
        new layer of it added to the project. SheetError when QGIS cannot open it."""
        layer = self.layer()
        if layer is not None:
            return layer
        path = self.path()
        for layer in QgsProject.instance().mapLayers().values():
            if isinstance(layer, QgsRasterLayer) and layer.source() == str(path):
                return layer
        layer = QgsRasterLayer(str(path), path.stem)
        if not layer.isValid():
            raise SheetError(tr("QGIS cannot open {0}.").format(path))
        return QgsProject.instance().addMapLayer(layer)
