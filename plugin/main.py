"""The plugin object QGIS loads: menus, toolbar and Processing provider."""

from __future__ import annotations

from qgis.core import Qgis

from . import deps
from .i18n import install_translator, remove_translator, tr

MENU = "&Graticule Georeferencer"


class GraticuleGeoreferencerPlugin:
    """Adds the plugin's actions to QGIS and removes every trace of them on unload."""

    def __init__(self, iface) -> None:
        self.iface = iface
        self.translator = None
        self.actions: list = []
        self.toolbar = None

    def initGui(self) -> None:
        """Called by QGIS when the plugin is enabled."""
        self.translator = install_translator()
        missing = deps.missing_packages()
        if missing:
            self.iface.messageBar().pushMessage(
                tr("Graticule Georeferencer"),
                tr("Missing Python packages: {0}. Install them with: {1}").format(
                    ", ".join(missing), deps.install_command(missing)),
                level=Qgis.Warning, duration=0)
            return
        self.toolbar = self.iface.addToolBar(tr("Graticule Georeferencer"))
        self.toolbar.setObjectName("GraticuleGeoreferencerToolbar")

    def unload(self) -> None:
        """Called by QGIS when the plugin is disabled or reloaded."""
        for action in self.actions:
            self.iface.removePluginRasterMenu(tr(MENU), action)
            self.iface.removeToolBarIcon(action)
            action.deleteLater()
        self.actions.clear()
        if self.toolbar is not None:
            self.toolbar.deleteLater()
            self.toolbar = None
        remove_translator(self.translator)
        self.translator = None
