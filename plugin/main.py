"""The plugin object QGIS loads: menu, toolbar, dialogs and the Processing provider."""

from __future__ import annotations

import contextlib
import importlib
from pathlib import Path

from qgis.core import Qgis, QgsApplication, QgsRasterLayer
from qgis.gui import QgsMessageBar
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QIcon
from qgis.PyQt.QtWidgets import QAction, QPushButton

from . import deps
from .i18n import install_translator, remove_translator, tr

ICONS = Path(__file__).resolve().parent / "icons"


def icon(name: str) -> QIcon:
    """An icon of ``plugin/icons``."""
    return QIcon(str(ICONS / name))


class GraticuleGeoreferencerPlugin:
    """Adds the plugin's actions and Processing provider; unload removes every trace."""

    def __init__(self, iface) -> None:
        self.iface = iface
        self.translator = None
        self.actions: list[QAction] = []
        self.toolbar = None
        self.menu = ""
        self.provider = None
        self.dialogs: dict[str, object] = {}
        self.docks: dict[str, object] = {}

    # ---- QGIS entry points ------------------------------------------------------------

    def initProcessing(self) -> None:
        """Register the Processing provider (also called by QGIS for Processing-only use)."""
        if self.provider is not None:
            return
        if self.translator is None:  # qgis_process calls this without initGui
            self.translator = install_translator()
        from .processing_provider.provider import GraticuleGeoreferencerProvider

        provider = GraticuleGeoreferencerProvider()
        # QGIS deletes a provider it refuses (an id already registered)
        if QgsApplication.processingRegistry().addProvider(provider):
            self.provider = provider

    def initGui(self) -> None:
        """Called by QGIS when the plugin is enabled."""
        if self.translator is None:
            self.translator = install_translator()
        self.menu = tr("&Graticule Georeferencer")
        self.toolbar = self.iface.addToolBar(tr("Graticule Georeferencer"))
        self.toolbar.setObjectName("GraticuleGeoreferencerToolbar")
        self._add_action("georeference", icon("georeference.svg"),
                         tr("Detect graticule && georeference…"),
                         tr("Find the grid intersections of a scanned sheet and georeference "
                            "it"), self.show_georeference_dialog)
        self._add_action("blocks", icon("blocks.svg"), tr("Vectorize building blocks…"),
                         tr("Turn the building blocks of a sheet into GeoPackage polygons"),
                         self.show_blocks_dialog)
        self._add_action("review", icon("review.svg"), tr("Review GCPs…"),
                         tr("Check, correct and refit the GCPs of a georeferenced sheet, a "
                            "refused one or any sheet with a .points file"),
                         self.show_review_panel)
        self._add_action("atlas", icon("atlas.svg"), tr("Open atlas run…"),
                         tr("Show the sheets of a directory run as footprints over their "
                            "mosaic, with the refused and uncertain ones listed"),
                         self.choose_atlas)
        self.initProcessing()
        missing = deps.missing_packages()
        if missing:
            self._report_missing(missing, Qgis.MessageLevel.Warning)

    def unload(self) -> None:
        """Called by QGIS when the plugin is disabled or reloaded."""
        for dialog in self.dialogs.values():
            dialog.cleanup()
            dialog.close()
            dialog.deleteLater()
        self.dialogs.clear()
        for dock in self.docks.values():
            dock.cleanup()
            self.iface.removeDockWidget(dock)
            dock.deleteLater()
        self.docks.clear()
        for action in self.actions:
            self.iface.removePluginRasterMenu(self.menu, action)
            action.deleteLater()
        self.actions.clear()
        if self.toolbar is not None:
            self.iface.mainWindow().removeToolBar(self.toolbar)
            self.toolbar.deleteLater()
            self.toolbar = None
        try:
            if self.provider is not None:
                QgsApplication.processingRegistry().removeProvider(self.provider)
        finally:
            self.provider = None
            remove_translator(self.translator)
            self.translator = None

    # ---- actions ------------------------------------------------------------------------

    def _add_action(self, name: str, qicon: QIcon, text: str, tip: str, slot) -> QAction:
        action = QAction(qicon, text, self.iface.mainWindow())
        action.setObjectName(f"GraticuleGeoreferencer_{name}")
        action.setStatusTip(tip)
        action.setToolTip(tip)
        action.triggered.connect(slot)
        self.toolbar.addAction(action)
        self.iface.addPluginToRasterMenu(self.menu, action)
        self.actions.append(action)
        return action

    def _report_missing(self, missing: list[str], level) -> None:
        """A short message-bar item naming ``missing``, with a "How to install" button."""
        item = QgsMessageBar.createMessage(tr("Graticule Georeferencer"), tr(
            "Missing Python packages: {0}.").format(deps.names(missing)))
        button = QPushButton(tr("How to install…"), item)
        button.setObjectName("GraticuleGeoreferencerHowToInstall")
        button.clicked.connect(lambda: self.show_install_dialog(missing))
        item.layout().addWidget(button)
        self.iface.messageBar().pushWidget(item, level, 0)

    def _show(self, name: str, factory):
        """Dialog ``name`` (made by ``factory()`` the first time, then reused), shown."""
        dialog = self.dialogs.get(name)
        if dialog is None:
            dialog = self.dialogs[name] = factory()
            if hasattr(dialog, "review_opener"):
                dialog.review_opener = self.open_review
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def show_install_dialog(self, missing: list[str] | None = None):
        """The dialog with the full install instructions for this platform, a Copy button
        and (outside Debian and Ubuntu) an "Install dependencies" button."""
        missing = missing if missing is not None else deps.missing_packages()
        return self._show("install", lambda: deps.InstallDialog(
            missing, parent=self.iface.mainWindow()))

    def _dialog(self, name: str, module: str, cls: str):
        """Dialog ``cls`` of ``plugin.dialogs.<module>`` (imported only when the packages
        it needs are there), with the active raster layer as its sheet if it has none."""
        missing = deps.missing_packages()
        if missing:
            self._report_missing(missing, Qgis.MessageLevel.Critical)
            return None
        factory = getattr(importlib.import_module(f".dialogs.{module}", __package__), cls)
        dialog = self._show(name, lambda: factory(self.iface))
        layer = self.iface.activeLayer()
        if isinstance(layer, QgsRasterLayer) and dialog.sheet.layer() is None:
            dialog.sheet.set_layer(layer)
        return dialog

    def show_georeference_dialog(self):
        """The "Detect graticule & georeference" dialog (created once, then reused)."""
        return self._dialog("georeference", "georeference_dialog", "GeoreferenceDialog")

    def show_blocks_dialog(self):
        """The "Vectorize building blocks" dialog."""
        return self._dialog("blocks", "blocks_dialog", "BlocksDialog")

    def _dock(self, name: str, module: str, cls: str):
        """Dock ``cls`` of ``plugin.<module>`` (made once, docked on the right), shown;
        None (and the missing packages said) without core's packages."""
        missing = deps.missing_packages()
        if missing:
            self._report_missing(missing, Qgis.MessageLevel.Critical)
            return None
        dock = self.docks.get(name)
        if dock is None:
            factory = getattr(importlib.import_module(f".{module}", __package__), cls)
            dock = self.docks[name] = factory(self.iface)
            self.iface.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, dock)
        dock.show()
        dock.raise_()
        return dock

    def show_review_panel(self):
        """The GCP review panel; it opens on the active raster layer's sheet when that has
        a run or a .points file."""
        panel = self._dock("review", "review.panel", "ReviewPanel")
        layer = self.iface.activeLayer()
        if panel is not None and panel.session is None and isinstance(layer, QgsRasterLayer):
            from .sheets import SheetError, layer_file

            with contextlib.suppress(SheetError):
                panel.open_path_quietly(layer_file(layer))
        return panel

    def open_review(self, review):
        """Show ``review`` (``core.georef.review.Review``) in the review panel."""
        panel = self._dock("review", "review.panel", "ReviewPanel")
        if panel is not None:
            panel.open_review(review)
        return panel

    def choose_atlas(self):
        """Ask for a directory run's output folder, then :meth:`open_atlas` it."""
        from qgis.PyQt.QtWidgets import QFileDialog

        folder = QFileDialog.getExistingDirectory(
            self.iface.mainWindow(), tr("Output folder of a directory run (footprints.gpkg)"))
        return self.open_atlas(folder) if folder else None

    def open_atlas(self, folder):
        """The atlas panel on the run in ``folder`` (its footprints and mosaic added to the
        project); double-clicking a sheet opens it in the review panel."""
        panel = self._dock("atlas", "atlas", "AtlasPanel")
        if panel is not None:
            panel.review_opener = self.open_review
            panel.open_run(folder)
        return panel
