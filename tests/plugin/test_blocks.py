"""Building blocks: the Processing algorithm (pixel or map coordinates) and the dialog."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from fake_iface import FakeIface
from plugin_test_helpers import (
    SHEET_SIZE,
    blocking_import,
    clear_project,
    run_plugin_in_fresh_qgis,
    wait_until,
)

pytestmark = pytest.mark.qgis

PROVIDER = "graticule_georeferencer"


def _polygons(uri: str):
    from qgis.core import QgsVectorLayer

    layer = QgsVectorLayer(uri, "polygons", "ogr")
    assert layer.isValid(), uri
    return layer, list(layer.getFeatures())


def _components(png) -> int:
    image = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    assert image.ndim == 2 and set(np.unique(image)) <= {0, 255}
    count, _ = cv2.connectedComponents((image > 0).astype(np.uint8), connectivity=4)
    return count - 1


def test_blocks_in_pixel_coordinates_lie_on_the_sheet_and_score_t1(processing_provider,
                                                                    sheet, tmp_path):
    import processing

    from core.metrics.panoptic import panoptic_quality

    gpkg, png = tmp_path / "blocks.gpkg", tmp_path / "001-OUTPUT-PRED.png"
    res = processing.run(f"{PROVIDER}:buildingblocks", {
        "INPUT": str(sheet["image"]), "OUTPUT": str(gpkg), "OUTPUT_PNG": str(png)})
    layer, feats = _polygons(res["BLOCKS"])
    assert res["BLOCK_COUNT"] == len(feats) == _components(png) > 5
    assert "SHAPES" not in res or not res["SHAPES"]
    # no map CRS: GeoPackage's "undefined Cartesian" system
    assert layer.crs().authid() == "" and not layer.crs().isGeographic()
    assert layer.crs().description() == "Undefined Cartesian SRS"
    box = layer.extent()   # pixel x = column, y = -row
    assert box.xMinimum() >= 0 and box.xMaximum() <= SHEET_SIZE
    assert box.yMinimum() >= -SHEET_SIZE and box.yMaximum() <= 0
    for f in feats:
        assert f.geometry().isGeosValid() and f["area"] > 0
    score = processing.run(f"{PROVIDER}:evaluatet1", {
        "REFERENCE": str(sheet["blocks"]), "PREDICTION": str(png),
        "OUTPUT_FOLDER": str(tmp_path / "t1")})
    ref = cv2.imread(str(sheet["blocks"]), cv2.IMREAD_UNCHANGED)
    pred = cv2.imread(str(png), cv2.IMREAD_UNCHANGED)
    expected = panoptic_quality(ref, pred)
    assert (score["PQ"], score["SQ"], score["RQ"]) == pytest.approx(
        (expected.pq, expected.sq, expected.rq))
    assert score["PQ"] > 0


def test_shapes_with_a_points_file_are_in_its_crs(processing_provider, sheet, tmp_path):
    import processing
    from qgis.core import QgsCoordinateReferenceSystem

    from core.formats.qgis_points import read_points_file
    from core.synth.params import PARIS_GRID_CRS

    gpkg = tmp_path / "shapes.gpkg"
    res = processing.run(f"{PROVIDER}:buildingblocks", {
        "INPUT": str(sheet["image"]), "LEVEL": 1, "GEOREF": str(sheet["points"]),
        "OUTPUT": str(gpkg)})
    blocks, block_feats = _polygons(res["BLOCKS"])
    shapes, shape_feats = _polygons(res["SHAPES"])
    grid = QgsCoordinateReferenceSystem.fromProj(PARIS_GRID_CRS)
    for layer in (blocks, shapes):
        assert layer.crs().toProj().split() == grid.toProj().split()
    assert res["SHAPE_COUNT"] == len(shape_feats) > res["BLOCK_COUNT"] == len(block_feats)
    block_ids = {f["id"] for f in block_feats}
    assert {f["parent_id"] for f in shape_feats} - {0} <= block_ids
    # the sheet spans the grid coordinates of its GCPs plus at most one cell around them
    gcps = read_points_file(sheet["points"])
    (e0, n0), (e1, n1) = gcps.map_xy.min(axis=0), gcps.map_xy.max(axis=0)
    box = blocks.extent()
    assert e0 - 1000 <= box.xMinimum() < e0 and e1 < box.xMaximum() <= e1 + 1000
    assert n0 - 1000 <= box.yMinimum() < n0 and n1 < box.yMaximum() <= n1 + 1000
    # areas are in m2: a 700 px cell is 1000 m wide, so no block exceeds 4 cells
    assert 0 < max(f["area"] for f in block_feats) < 4e6


def test_dialog_vectorizes_a_georeferenced_geotiff(plugin_package, sheet, tmp_path):
    from graticule_georeferencer.plugin.dialogs.blocks_dialog import BlocksDialog
    from osgeo import gdal
    from qgis.core import QgsProject

    gdal.UseExceptions()
    tif = tmp_path / "001-INPUT.tif"   # north-up, 0.5 m pixels, Lambert-93
    gdal.Translate(str(tif), str(sheet["image"]), outputSRS="EPSG:2154",
                   outputBounds=[650000, 6862500, 651250, 6861250])
    clear_project()
    iface = FakeIface()
    dialog = BlocksDialog(iface)
    try:
        dialog.sheet.set_file(tif)
        dialog.mask.setFilePath(str(sheet["mask"]))
        task = dialog.start_vectorize()
        assert task is not None
        wait_until(lambda: dialog.task is None, 120)
        outcome = dialog.last_outcome
        assert outcome is not None, dialog.iface.messages()
        assert outcome.gpkg == tmp_path / "001-INPUT_blocks.gpkg"
        layers = list(QgsProject.instance().mapLayers().values())
        assert [layer.name() for layer in layers] == ["001-INPUT blocks"]
        blocks = layers[0]
        assert blocks.crs().authid() == "EPSG:2154"
        box = blocks.extent()
        assert box.xMinimum() >= 650000 and box.xMaximum() <= 651250
        assert box.yMinimum() >= 6861250 and box.yMaximum() <= 6862500
        assert blocks.featureCount() == outcome.counts["blocks"] > 5
        message = dialog.iface.messages()[-1]
        assert "georeferenced like the sheet" in message and "blocks" in message
    finally:
        dialog.cleanup()
        iface.dispose(dialog)
        clear_project()


_BLOCKS_WITHOUT_SHAPELY = r"""
from pathlib import Path
from osgeo import ogr
from graticule_georeferencer.plugin import deps
from graticule_georeferencer.plugin.jobs import BlocksRequest, vectorize_blocks
sheet, gpkg = Path({sheet!r}), Path({gpkg!r})
outcome = vectorize_blocks(BlocksRequest(sheet, gpkg, level="shapes"), None)
ds = ogr.Open(str(gpkg))
layers = {{name: [f.GetGeometryRef().IsValid() for f in ds.GetLayerByName(name)]
          for name in outcome.layers}}
ds = None   # closed before QGIS exits
print(json.dumps({{"missing": deps.missing_packages(), "counts": outcome.counts,
                  "valid": {{k: all(v) for k, v in layers.items()}},
                  "features": {{k: len(v) for k, v in layers.items()}},
                  "shapely": [m for m in sys.modules if m.split(".")[0] == "shapely"]}}))
"""


def test_blocks_in_qgis_never_load_shapely(plugin_package, sheet, tmp_path):
    """Inside QGIS only QGIS's GEOS may be loaded (shapely's wheel brings a second one, which
    crashed QGIS): the blocks and shapes are vectorized with shapely unimportable."""
    packages = Path(plugin_package.__file__).parent.parent
    body = _BLOCKS_WITHOUT_SHAPELY.format(sheet=str(sheet["image"]),
                                          gpkg=str(tmp_path / "shapes.gpkg"))
    report = run_plugin_in_fresh_qgis(body, packages, tmp_path, before=blocking_import("shapely"))
    assert report["missing"] == [] and report["shapely"] == []
    assert report["features"] == report["counts"]
    assert report["counts"]["shapes"] > report["counts"]["blocks"] > 5
    assert report["valid"] == {"blocks": True, "shapes": True}
