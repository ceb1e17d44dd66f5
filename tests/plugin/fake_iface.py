"""A minimal stand-in for QgisInterface that records what a plugin adds and removes."""

from __future__ import annotations

from qgis.core import QgsProject
from qgis.gui import QgsMapCanvas, QgsMessageBar
from qgis.PyQt.QtWidgets import QMainWindow, QToolBar


class FakeIface:
    """Implements the QgisInterface methods the plugin uses, keeping state to inspect."""

    def __init__(self) -> None:
        self.main_window = QMainWindow()
        self.canvas = QgsMapCanvas(self.main_window)
        self.bar = QgsMessageBar(self.main_window)
        self.toolbar_icons: list = []
        self.raster_menu: list[tuple[str, object]] = []
        self.toolbars: list[QToolBar] = []

    def mainWindow(self):
        return self.main_window

    def mapCanvas(self):
        return self.canvas

    def messageBar(self):
        return self.bar

    def addToolBar(self, name: str) -> QToolBar:
        toolbar = self.main_window.addToolBar(name)
        self.toolbars.append(toolbar)
        return toolbar

    def addToolBarIcon(self, action) -> None:
        self.toolbar_icons.append(action)

    def removeToolBarIcon(self, action) -> None:
        self.toolbar_icons.remove(action)

    def addPluginToRasterMenu(self, menu: str, action) -> None:
        self.raster_menu.append((menu, action))

    def removePluginRasterMenu(self, menu: str, action) -> None:
        self.raster_menu.remove((menu, action))

    def addRasterLayer(self, path: str, name: str = ""):
        from qgis.core import QgsRasterLayer

        layer = QgsRasterLayer(path, name or path)
        QgsProject.instance().addMapLayer(layer)
        return layer

    def activeLayer(self):
        return None
