"""An atlas run in QGIS: the footprints core wrote for a directory run (``footprints.gpkg``,
``core.georef.footprints``) styled by status over the run's mosaic, and a dock listing the
sheets that need a look (refused, flagged, uncertain) before the others; a double click
opens a sheet in the review panel (a refused one is read again through core in a
background task, to show what was read).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from qgis.core import (
    Qgis,
    QgsApplication,
    QgsFillSymbol,
    QgsPalLayerSettings,
    QgsProject,
    QgsRasterLayer,
    QgsTextFormat,
    QgsVectorLayer,
    QgsVectorLayerSimpleLabeling,
)
from qgis.gui import QgsDockWidget
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QBrush, QColor
from qgis.PyQt.QtWidgets import QLabel, QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget

from . import jobs
from .i18n import tr
from .layers import add_layers_in_group, rule_renderer
from .tasks import CoreTask, describe_error
from .widgets import MessageLine, push_message

#: Status -> (outline colour, fill), in the order sheets needing a look are listed.
STATUS_STYLE = {"refused": ("#7a0d0d", "0,0,0,0"), "flagged": ("#d7301f", "215,48,31,90"),
                "uncertain": ("#e08214", "224,130,20,60"), "placed": ("#2e9e44", "46,158,68,25")}


def status_names() -> dict[str, str]:
    """How each status is written in the panel and the legend."""
    return {"refused": tr("refused"), "flagged": tr("flagged: overlap or hole"),
            "uncertain": tr("uncertain"), "placed": tr("placed")}


def style_footprints(layer: QgsVectorLayer) -> None:
    """Footprints by status (green placed, orange uncertain, red flagged), sheet names as
    labels."""
    names = status_names()
    layer.setRenderer(rule_renderer(
        (QgsFillSymbol.createSimple({"color": STATUS_STYLE[status][1], "outline_color":
                                     STATUS_STYLE[status][0], "outline_width": "0.7"}),
         f"\"status\" = '{status}'", names[status])
        for status in ("flagged", "uncertain", "placed")))
    settings = QgsPalLayerSettings()
    settings.fieldName = "sheet"
    text = QgsTextFormat()
    text.setSize(9)
    buffer = text.buffer()
    buffer.setEnabled(True)
    text.setBuffer(buffer)
    settings.setFormat(text)
    settings.placement = QgsPalLayerSettings.Placement.OverPoint
    layer.setLabeling(QgsVectorLayerSimpleLabeling(settings))
    layer.setLabelsEnabled(True)


@dataclass
class AtlasLayers:
    """A run opened in the project: its footprints layer, mosaic (None when the run has
    none) and every sheet as core listed it (dicts of the ``sheets`` table)."""

    footprints: QgsVectorLayer
    mosaic: QgsRasterLayer | None
    sheets: list[dict]


def load_atlas(project: QgsProject, folder: Path, iface=None) -> AtlasLayers:
    """Add a run's footprints (styled) above its mosaic in a group named after the folder
    (replacing an earlier one); the project takes their CRS when it holds nothing else.
    OSError (a message for the user) when the folder holds no footprints."""
    from ..core.georef.footprints import FOOTPRINTS_NAME
    from ..core.georef.mosaic import MOSAIC_NAME
    from .project import adopt_crs, remove_group

    gpkg = Path(folder) / FOOTPRINTS_NAME
    if not gpkg.is_file():
        raise OSError(tr("{0} holds no {1}: open the output folder of a directory run "
                         "(python -m core.georef FOLDER …).").format(folder, FOOTPRINTS_NAME))
    name = tr("{0} atlas").format(Path(folder).name)
    footprints = QgsVectorLayer(f"{gpkg}|layername=footprints",
                                tr("{0} footprints").format(Path(folder).name), "ogr")
    table = QgsVectorLayer(f"{gpkg}|layername=sheets", "sheets", "ogr")
    if not footprints.isValid() or not table.isValid():
        raise OSError(tr("QGIS cannot open {0}").format(gpkg))
    sheets = [dict(zip(table.fields().names(), feature.attributes(), strict=True))
              for feature in table.getFeatures()]
    style_footprints(footprints)
    mosaic = QgsRasterLayer(str(Path(folder) / MOSAIC_NAME), tr("{0} mosaic").format(
        Path(folder).name))
    layers = [footprints] + ([mosaic] if mosaic.isValid() else [])
    remove_group(project, name)
    add_layers_in_group(project, name, layers)
    if iface is not None and footprints.crs().isValid():
        if adopt_crs(iface, project, footprints.crs(), layers):
            canvas = iface.mapCanvas()
            canvas.setDestinationCrs(project.crs())
        extent = footprints.extent()
        if not extent.isEmpty():
            canvas = iface.mapCanvas()
            extent = canvas.mapSettings().layerExtentToOutputExtent(footprints, extent)
            extent.scale(1.1)
            canvas.setExtent(extent)
            canvas.refresh()
    return AtlasLayers(footprints, mosaic if mosaic.isValid() else None, sheets)


class AtlasPanel(QgsDockWidget):
    """The sheets of a run, those needing a look first; double click: review."""

    def __init__(self, iface, parent=None) -> None:
        super().__init__(tr("Atlas run"), parent or iface.mainWindow())
        self.setObjectName("GraticuleGeoreferencerAtlasPanel")
        self.iface = iface
        self.folder: Path | None = None
        self.atlas: AtlasLayers | None = None
        self.task: CoreTask | None = None
        #: opens a ``core.georef.review.Review``; the plugin gives its review panel's
        self.review_opener = None
        body = QWidget(self)
        layout = QVBoxLayout(body)
        self.summary = QLabel("", body)
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.tree = QTreeWidget(body)
        self.tree.setHeaderLabels([tr("Sheet"), tr("Status"), tr("Why")])
        self.tree.setRootIsDecorated(False)
        self.tree.setToolTip(tr("Double click a sheet to review its GCPs"))
        self.tree.itemDoubleClicked.connect(lambda item, _col: self.open_sheet(
            item.data(0, Qt.ItemDataRole.UserRole)))
        layout.addWidget(self.tree, 1)
        self.message = MessageLine(body)
        layout.addWidget(self.message)
        self.setWidget(body)

    def open_run(self, folder) -> bool:
        """Load the run in ``folder`` and list its sheets."""
        try:
            self.atlas = load_atlas(QgsProject.instance(), Path(folder), self.iface)
        except OSError as exc:
            self.message.setText(str(exc))
            push_message(self.iface.messageBar(), str(exc), Qgis.MessageLevel.Warning, 10)
            return False
        self.folder = Path(folder)
        self._fill()
        self.show()
        self.raise_()
        return True

    def entries(self) -> list[dict]:
        """The sheets in the order listed: refused, flagged, uncertain, then placed."""
        order = list(STATUS_STYLE)
        sheets = self.atlas.sheets if self.atlas else []
        return sorted(sheets, key=lambda e: (order.index(e["status"])
                                             if e["status"] in order else 0, e["sheet"]))

    def _fill(self) -> None:
        self.tree.clear()
        names = status_names()
        reasons = {f["sheet"]: f["reasons"] or f["warnings"] or ""
                   for f in self.atlas.footprints.getFeatures()}
        counts = dict.fromkeys(STATUS_STYLE, 0)
        for entry in self.entries():
            status = entry["status"]
            counts[status] = counts.get(status, 0) + 1
            why = entry.get("error") or reasons.get(entry["sheet"], "")
            item = QTreeWidgetItem([entry["sheet"], names.get(status, status), str(why or "")])
            item.setData(0, Qt.ItemDataRole.UserRole, entry)
            item.setToolTip(2, str(why or ""))
            item.setForeground(1, QBrush(QColor(STATUS_STYLE.get(status, ("#000",))[0])))
            self.tree.addTopLevelItem(item)
        self.tree.resizeColumnToContents(0)
        self.tree.resizeColumnToContents(1)
        self.summary.setText(tr("{0}: {1} placed, {2} uncertain, {3} flagged, {4} refused. "
                                "Double click a sheet to review it.").format(
            self.folder.name, counts["placed"], counts["uncertain"], counts["flagged"],
            counts["refused"]))

    def open_sheet(self, entry: dict):
        """Review ``entry``'s sheet: its run, or for a refused sheet, what core reads on it
        (detection and labels again, in a background task)."""
        from ..core.errors import InputError
        from ..core.georef.footprints import run_settings
        from ..core.georef.review import open_review

        if not entry or self.review_opener is None:
            return None
        if entry["status"] != "refused":
            try:
                return self.review_opener(open_review(entry["report"]))
            except InputError as exc:
                self.message.setText(describe_error(exc)[0])
                return None
        if self.task is not None:
            self.message.setText(tr("A sheet is being read; wait for it."))
            return None
        settings = run_settings(self.folder)
        if settings is None:
            self.message.setText(tr("No sheet of this run was placed: open {0} with the "
                                    "georeferencing dialog instead.").format(entry["sheet"]))
            return None
        options = {"input_path": Path(entry["sheet_path"]), "crs": settings["crs"],
                   "grid_crs": settings["grid_crs"], "spacing": settings["spacing"],
                   "transform": settings["transform"], "outdir": Path(entry["outdir"]),
                   "mask": "auto"}
        return self._read_refused(entry["sheet"], options)

    def _read_refused(self, name: str, options: dict) -> CoreTask:
        def done(task: CoreTask) -> None:
            self.task = None
            if task.result is not None:
                self.message.setText(tr("{0} read: review it in the panel.").format(name))
                self.review_opener(task.result.review)
            elif not task.cancelled:
                self.message.setText(task.error or tr("Reading {0} failed.").format(name),
                                     task.details or "")

        self.message.setText(tr("Reading {0} again (detection and labels)…").format(name))
        self.task = CoreTask(tr("Reading {0} for review").format(name),
                             lambda progress: jobs.georeference_for_review(options, progress),
                             done)
        QgsApplication.taskManager().addTask(self.task)
        return self.task

    def cleanup(self) -> None:
        """Forget a running task (the plugin is being unloaded)."""
        if self.task is not None:
            with contextlib.suppress(RuntimeError):
                self.task.on_done = None
            self.task = None
