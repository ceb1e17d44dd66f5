"""QGIS plugin entry point: QGIS calls classFactory(iface) when it loads the plugin."""


def classFactory(iface):
    """Create the plugin instance for the running QGIS interface."""
    from .plugin.main import GraticuleGeoreferencerPlugin

    return GraticuleGeoreferencerPlugin(iface)
