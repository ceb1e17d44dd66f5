"""QGIS plugin entry point: QGIS calls classFactory(iface) when it loads the plugin."""


def classFactory(iface):
    """Create the plugin instance for the running QGIS interface."""
    from .plugin import deps

    deps.activate()  # packages installed by the plugin itself, before anything imports them
    from .plugin.main import GraticuleGeoreferencerPlugin

    return GraticuleGeoreferencerPlugin(iface)
