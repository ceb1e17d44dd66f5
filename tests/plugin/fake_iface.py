"""A minimal stand-in for QgisInterface that records what a plugin adds and removes.

Removing something that is not there is silently ignored, as QGIS does.
"""

from __future__ import annotations

from qgis.core import QgsProject, QgsRasterLayer
from qgis.gui import QgsMapCanvas, QgsMessageBar
from qgis.PyQt.QtCore import QCoreApplication, QEvent
from qgis.PyQt.QtWidgets import QMainWindow, QToolBar


class FakeIface:
    """Implements the QgisInterface methods the plugin uses, keeping state to inspect."""

    def __init__(self) -> None:
        self.main_window = QMainWindow()
        self.canvas = QgsMapCanvas(self.main_window)
        self.canvas.resize(800, 600)
        self.main_window.setCentralWidget(self.canvas)
        self.bar = QgsMessageBar(self.main_window)
        self.toolbar_icons: list = []
        self.raster_menu: list[tuple[str, object]] = []
        self.toolbars: list[QToolBar] = []
        self.active_layer = None

    def dispose(self, *widgets) -> None:
        """Delete ``widgets`` and the main window (with every child) now, while QGIS runs.

        Left to the garbage collector at exit, Qt objects die after QGIS's singletons and
        the interpreter crashes on the way out."""
        for widget in widgets:
            widget.close()
            widget.deleteLater()
        self.main_window.close()
        self.main_window.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)

    def mainWindow(self):
        return self.main_window

    def mapCanvas(self):
        return self.canvas

    def messageBar(self):
        return self.bar

    def messages(self) -> list[str]:
        """Texts of the message bar's items, oldest first."""
        return [item.text() for item in self.bar.items()]

    def addToolBar(self, name: str) -> QToolBar:
        toolbar = self.main_window.addToolBar(name)
        self.toolbars.append(toolbar)
        return toolbar

    def addToolBarIcon(self, action) -> None:
        self.toolbar_icons.append(action)

    def removeToolBarIcon(self, action) -> None:
        if action in self.toolbar_icons:
            self.toolbar_icons.remove(action)

    def addPluginToRasterMenu(self, menu: str, action) -> None:
        self.raster_menu.append((menu, action))

    def removePluginRasterMenu(self, menu: str, action) -> None:
        if (menu, action) in self.raster_menu:
            self.raster_menu.remove((menu, action))

    def addRasterLayer(self, path: str, name: str = ""):
        layer = QgsRasterLayer(path, name or path)
        QgsProject.instance().addMapLayer(layer)
        return layer

    def activeLayer(self):
        return self.active_layer

    def addDockWidget(self, area, dock) -> None:
        self.main_window.addDockWidget(area, dock)

    def removeDockWidget(self, dock) -> None:
        self.main_window.removeDockWidget(dock)
