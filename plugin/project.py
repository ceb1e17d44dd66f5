"""The QGIS project around the plugin's results: a sheet's layer group replaced after a
save, and the project's CRS after a result (taken when the project has no other layer,
else offered with a button in the message bar)."""

from __future__ import annotations

from qgis.core import Qgis, QgsCoordinateReferenceSystem, QgsProject
from qgis.gui import QgsMessageBar
from qgis.PyQt.QtWidgets import QPushButton

from .i18n import tr


def remove_group(project: QgsProject, name: str) -> None:
    """Remove the layer group ``name`` (top level) and its layers, if there is one."""
    root = project.layerTreeRoot()
    group = root.findGroup(name)
    if group is None:
        return
    project.removeMapLayers([node.layerId() for node in group.findLayers()])
    root.removeChildNode(group)


def replace_sheet_group(project: QgsProject, name: str, load):
    """Remove the group ``name`` then ``load()`` (which adds it again); returns what
    ``load`` returns."""
    remove_group(project, name)
    return load()


def other_layers(project: QgsProject, ours) -> list:
    """The project's layers that are not among ``ours`` (layers or ids)."""
    ids = {layer if isinstance(layer, str) else layer.id() for layer in ours}
    return [layer for layer_id, layer in project.mapLayers().items() if layer_id not in ids]


def adopt_crs(iface, project: QgsProject, crs: QgsCoordinateReferenceSystem, ours) -> bool:
    """Give ``project`` the CRS of a result: at once when it holds no layer besides
    ``ours`` (the result's, the sheet shown unreferenced), else by a button in the message
    bar. Returns True when the CRS was set now."""
    if not crs.isValid() or project.crs() == crs:
        return False
    if not other_layers(project, ours):
        project.setCrs(crs)
        return True
    item = QgsMessageBar.createMessage(tr("Graticule Georeferencer"), tr(
        "The result is in {0}; the project is in {1}.").format(
        crs.userFriendlyIdentifier(), project.crs().userFriendlyIdentifier()))
    button = QPushButton(tr("Use {0} for the project").format(crs.authid() or crs.description()),
                         item)
    button.setObjectName("GraticuleGeoreferencerAdoptCrs")

    def use() -> None:
        project.setCrs(crs)
        iface.messageBar().popWidget(item)

    button.clicked.connect(use)
    item.layout().addWidget(button)
    iface.messageBar().pushWidget(item, Qgis.MessageLevel.Info, 0)
    return False
