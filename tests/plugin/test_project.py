"""The project around a result: its CRS taken when it holds nothing else, else offered by a
button; a sheet's group replaced after a save."""

from __future__ import annotations

import pytest
from fake_iface import FakeIface
from plugin_test_helpers import clear_project

pytestmark = pytest.mark.qgis


def _layer(name: str, crs: str):
    from qgis.core import QgsProject, QgsVectorLayer

    layer = QgsVectorLayer(f"Point?crs={crs}", name, "memory")
    return QgsProject.instance().addMapLayer(layer)


@pytest.fixture
def project(plugin_package):
    from qgis.core import QgsCoordinateReferenceSystem, QgsProject

    clear_project()
    QgsProject.instance().setCrs(QgsCoordinateReferenceSystem("EPSG:4326"))
    yield QgsProject.instance()
    clear_project()


def test_a_project_with_only_the_result_takes_its_crs(project):
    from graticule_georeferencer.plugin.project import adopt_crs
    from qgis.core import QgsCoordinateReferenceSystem

    iface = FakeIface()
    ours = [_layer("result", "EPSG:2154"), _layer("sheet", "EPSG:4326")]
    assert adopt_crs(iface, project, QgsCoordinateReferenceSystem("EPSG:2154"), ours)
    assert project.crs().authid() == "EPSG:2154" and iface.messages() == []
    iface.dispose()


def test_a_project_with_other_layers_is_asked(project):
    from graticule_georeferencer.plugin.project import adopt_crs
    from qgis.core import QgsCoordinateReferenceSystem
    from qgis.PyQt.QtWidgets import QPushButton

    iface = FakeIface()
    _layer("roads", "EPSG:4326")
    ours = [_layer("result", "EPSG:2154")]
    assert not adopt_crs(iface, project, QgsCoordinateReferenceSystem("EPSG:2154"), ours)
    assert project.crs().authid() == "EPSG:4326"
    item = iface.messageBar().items()[-1]
    assert "EPSG:2154" in item.text() and "EPSG:4326" in item.text()
    item.findChild(QPushButton, "GraticuleGeoreferencerAdoptCrs").click()
    assert project.crs().authid() == "EPSG:2154"
    iface.dispose()


def test_replace_sheet_group_leaves_one_group(project):
    from graticule_georeferencer.plugin.layers import add_layers_in_group
    from graticule_georeferencer.plugin.project import replace_sheet_group
    from qgis.core import QgsVectorLayer

    def load():
        add_layers_in_group(project, "001-INPUT", [
            QgsVectorLayer("Point?crs=EPSG:2154", "points", "memory")])

    load()
    replace_sheet_group(project, "001-INPUT", load)
    root = project.layerTreeRoot()
    assert [g.name() for g in root.children()] == ["001-INPUT"]
    assert len(project.mapLayers()) == 1
