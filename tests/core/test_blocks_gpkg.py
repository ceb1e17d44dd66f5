"""core.blocks GeoPackage output: pixel and georeferenced coordinates, opened by OGR and QGIS."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from core.blocks.__main__ import main as blocks_main
from core.errors import InputError
from core.formats.qgis_points import GroundControlPoints, write_points_file

sys.path.insert(0, str(Path(__file__).parent))
from test_blocks import A, B, _drawn_sheet

# pixel -> map: easting = 1000 + 0.5 x, northing = 5000 - 0.5 y (0.5 m pixels, north up)
AFFINE = np.array([[0.5, 0.0, 1000.0], [0.0, -0.5, 5000.0]])
CRS = "EPSG:2154"


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    """The drawn sheet as PNG files, its mask, and a .points file of a known affine."""
    d = tmp_path_factory.mktemp("drawn")
    img, mask = _drawn_sheet()
    cv2.imwrite(str(d / "001-INPUT.png"), cv2.cvtColor(img, cv2.COLOR_RGB2BGR))
    cv2.imwrite(str(d / "001-INPUT-MASK.png"), mask.astype(np.uint8) * 255)
    pixel = np.array([[50.0, 50.0], [1300.0, 60.0], [80.0, 950.0], [1250.0, 900.0]])
    mapxy = pixel @ AFFINE[:, :2].T + AFFINE[:, 2]
    write_points_file(d / "001.points", GroundControlPoints(mapxy, pixel, crs=CRS))
    return d


def _run(d: Path, out: Path, *extra: str) -> tuple[Path, Path]:
    """The shapes level with the line network's blocks (``--lines``): they end on the centre
    line of the drawn outlines, so coordinates can be checked to a few pixels (the
    network's blocks end a few pixels inside a bold outline)."""
    png, gpkg = out / "s.png", out / "s.gpkg"
    assert blocks_main([str(d / "001-INPUT.png"), "--mask", str(d / "001-INPUT-MASK.png"),
                        "--level", "shapes", "--lines", "-o", str(png), "--gpkg", str(gpkg),
                        *extra]) == 0
    return png, gpkg


def _features(gpkg: Path, layer: str) -> list[dict]:
    from osgeo import ogr

    ds = ogr.Open(str(gpkg))
    lyr = ds.GetLayerByName(layer)
    out = []
    for f in lyr:
        g = f.GetGeometryRef()
        out.append({"id": f.GetField("id"), "area": f.GetField("area"),
                    "perimeter": f.GetField("perimeter"), "envelope": g.GetEnvelope(),
                    "valid": g.IsValid(),
                    "parent": f.GetField("parent_id") if layer == "shapes" else None,
                    "source": f.GetField("source")})
    return out


def test_pixel_coordinates_follow_qgis_unreferenced_raster(drawn, tmp_path):
    png, gpkg = _run(drawn, tmp_path)
    blocks = _features(gpkg, "blocks")
    assert all(f["valid"] and f["source"] == "001-INPUT.png" for f in blocks)
    x0, y0, x1, y1 = B
    hit = [f for f in blocks if abs(f["envelope"][0] - x0) < 4
           and abs(f["envelope"][1] - x1) < 4 and abs(f["envelope"][3] + y0) < 4]
    assert len(hit) == 1
    _, _, ymin, ymax = hit[0]["envelope"]
    assert abs(ymin + y1) < 4 and abs(ymax + y0) < 4          # y = -row
    assert hit[0]["area"] == pytest.approx((x1 - x0) * (y1 - y0), rel=0.03)
    assert hit[0]["perimeter"] == pytest.approx(2 * (x1 - x0 + y1 - y0), rel=0.03)
    shapes = _features(gpkg, "shapes")
    count, _ = cv2.connectedComponents((cv2.imread(str(png), 0) > 0).astype(np.uint8),
                                       connectivity=4)
    assert len(shapes) == count - 1
    block_ids = {f["id"] for f in blocks}
    assert all(f["parent"] in block_ids for f in shapes)


def test_the_command_says_how_many_polygons_it_wrote_where_and_in_what_crs(drawn, tmp_path,
                                                                            capsys):
    png, gpkg = _run(drawn, tmp_path)
    out = capsys.readouterr().out.splitlines()
    blocks, shapes = len(_features(gpkg, "blocks")), len(_features(gpkg, "shapes"))
    assert blocks >= 2 and shapes >= blocks
    assert out[0] == f"001-INPUT.png: {blocks} blocks and {shapes} shapes found"
    assert out[1].startswith(f"  {png}: the {shapes} shapes as a 0/255 PNG")
    assert out[2].startswith(f"  {gpkg}: {blocks} blocks and {shapes} shapes as polygons, "
                             "in pixel coordinates (x = column, y = -row")
    assert not any("warning" in line for line in out)
    (tmp_path / "georef").mkdir()
    _run(drawn, tmp_path / "georef", "--georef", str(drawn / "001.points"))
    assert ("as polygons, in EPSG:2154 (RGF93 v1 / Lambert-93), georeferenced with 001.points"
            in capsys.readouterr().out)


def test_georeferenced_polygons_in_the_points_crs(drawn, tmp_path):
    _, gpkg = _run(drawn, tmp_path, "--georef", str(drawn / "001.points"))
    from osgeo import ogr, osr

    ds = ogr.Open(str(gpkg))
    srs = ds.GetLayerByName("blocks").GetSpatialRef()
    expected = osr.SpatialReference()
    expected.SetFromUserInput(CRS)
    assert srs is not None and srs.IsSame(expected)
    x0, y0, x1, y1 = A
    blocks = _features(gpkg, "blocks")
    hit = [f for f in blocks if abs(f["envelope"][0] - (1000 + 0.5 * x0)) < 2
           and abs(f["envelope"][1] - (1000 + 0.5 * x1)) < 2
           and abs(f["envelope"][3] - (5000 - 0.5 * y0)) < 2]
    assert len(hit) == 1
    emin, emax, nmin, nmax = hit[0]["envelope"]
    assert nmax == pytest.approx(5000 - 0.5 * y0, abs=2)
    assert nmin == pytest.approx(5000 - 0.5 * y1, abs=2)
    assert hit[0]["area"] == pytest.approx(0.25 * (x1 - x0) * (y1 - y0), rel=0.03)  # m2


def test_two_runs_write_the_same_bytes_dated_by_the_sheet(drawn, tmp_path, monkeypatch):
    """Issue 36: the GeoPackage's contents are dated by the sheet (or SOURCE_DATE_EPOCH),
    not by the time of writing, so a second run gives the same file, byte for byte."""
    import os
    import sqlite3
    import time

    os.utime(drawn / "001-INPUT.png", (1_700_000_000.25, 1_700_000_000.25))
    _, first = _run(drawn, tmp_path / "a")
    time.sleep(1.1)                     # the clock's second changes between the runs
    _, second = _run(drawn, tmp_path / "b")
    assert first.read_bytes() == second.read_bytes()
    with sqlite3.connect(first) as db:
        dates = {d for (d,) in db.execute("SELECT last_change FROM gpkg_contents")}
    assert dates == {"2023-11-14T22:13:20.250Z"}
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    _, third = _run(drawn, tmp_path / "c")
    with sqlite3.connect(third) as db:
        dates = {d for (d,) in db.execute("SELECT last_change FROM gpkg_contents")}
    assert dates == {"1970-01-01T00:00:00.000Z"}


def test_the_toise_is_named_in_the_layer_description(drawn, tmp_path):
    """A grid CRS in toises (``+to_meter=1.94903631``, Jacoubet's atlas): areas in toise2,
    not "unknown2"."""
    from osgeo import ogr

    toise = ("+proj=aeqd +lat_0=48.83635863 +lon_0=2.33652533 +x_0=0 +y_0=0 +ellps=GRS80 "
             "+to_meter=1.94903631 +no_defs +type=crs")
    pixel = np.array([[50.0, 50.0], [1300.0, 60.0], [80.0, 950.0], [1250.0, 900.0]])
    mapxy = pixel @ AFFINE[:, :2].T + AFFINE[:, 2]
    write_points_file(tmp_path / "t.points", GroundControlPoints(mapxy, pixel, crs=toise))
    _, gpkg = _run(drawn, tmp_path, "--georef", str(tmp_path / "t.points"))
    ds = ogr.Open(str(gpkg))
    description = ds.GetLayerByName("blocks").GetMetadataItem("DESCRIPTION")
    assert description.endswith("area and perimeter in toise2 and toise"), description


def test_georef_without_crs_line_is_an_error(drawn, tmp_path):
    bad = tmp_path / "bad.points"
    bad.write_text("mapX,mapY,sourceX,sourceY,enable\n0,0,0,0,1\n1,0,1,0,1\n0,1,0,-1,1\n")
    with pytest.raises(InputError, match="CRS"):
        _run(drawn, tmp_path, "--georef", str(bad))
    assert not (tmp_path / "s.png").exists() and not (tmp_path / "s.gpkg").exists()


@pytest.mark.qgis
def test_geopackage_opens_in_qgis(drawn, tmp_path, qgis_app):
    from qgis.core import QgsVectorLayer

    png, gpkg = _run(drawn, tmp_path, "--georef", str(drawn / "001.points"))
    count, _ = cv2.connectedComponents((cv2.imread(str(png), 0) > 0).astype(np.uint8),
                                       connectivity=4)
    layer = QgsVectorLayer(f"{gpkg}|layername=shapes", "shapes", "ogr")
    assert layer.isValid()
    assert layer.crs().authid() == CRS
    assert layer.featureCount() == count - 1
    assert all(f.geometry().isGeosValid() for f in layer.getFeatures())
    _, pixel_gpkg = _run(drawn, tmp_path / "px")
    blocks = QgsVectorLayer(f"{pixel_gpkg}|layername=blocks", "blocks", "ogr")
    assert blocks.isValid() and not blocks.crs().isGeographic()
    assert blocks.featureCount() == 4
    assert all(f.geometry().isGeosValid() for f in blocks.getFeatures())
    net_png, net_gpkg = tmp_path / "net.png", tmp_path / "net.gpkg"   # default: the network
    assert blocks_main([str(drawn / "001-INPUT.png"), "--mask", str(drawn / "001-INPUT-MASK.png"),
                        "-o", str(net_png), "--gpkg", str(net_gpkg)]) == 0
    count, _ = cv2.connectedComponents((cv2.imread(str(net_png), 0) > 0).astype(np.uint8),
                                       connectivity=4)
    net_blocks = QgsVectorLayer(f"{net_gpkg}|layername=blocks", "blocks", "ogr")
    assert net_blocks.isValid() and net_blocks.featureCount() == count - 1 == 4
    assert all(f.geometry().isGeosValid() for f in net_blocks.getFeatures())


def test_without_georef_the_georeference_beside_the_sheet_is_found(drawn, tmp_path, capsys):
    """core.georef's default output folder beside the sheet places the polygons (the
    plugin and the command line share this search: core.blocks.find_georeference)."""
    import shutil

    from osgeo import gdal

    from core.blocks import find_georeference

    d = tmp_path / "sheet"
    (d / "001-INPUT_georef").mkdir(parents=True)
    for name in ("001-INPUT.png", "001-INPUT-MASK.png"):
        shutil.copy(drawn / name, d / name)
    assert find_georeference(d / "001-INPUT.png") == (
        None, "in pixel coordinates (no georeference found)")
    shutil.copy(drawn / "001.points", d / "001-INPUT_georef" / "001-INPUT.points")
    georef, note = find_georeference(d / "001-INPUT.png")
    assert note == "georeferenced with 001-INPUT.points"
    assert georef.forward(np.array([[10.0, 20.0]]))[0] == pytest.approx([1005.0, 4990.0])
    _, gpkg = _run(d, tmp_path)
    assert "georeferenced with 001-INPUT.points" in capsys.readouterr().out
    x0, _y0, x1, _y1 = A
    assert any(abs(f["envelope"][0] - (1000 + 0.5 * x0)) < 2
               and abs(f["envelope"][1] - (1000 + 0.5 * x1)) < 2
               for f in _features(gpkg, "blocks"))
    # a GeoTIFF's own geotransform and CRS come first
    tif = d / "001-INPUT.tif"
    written = gdal.Translate(str(tif), str(d / "001-INPUT.png"), outputSRS=CRS,
                             outputBounds=[0, 100, 50, 0])
    del written     # GDAL 3.6: closing is dropping the last reference
    georef, note = find_georeference(tif)
    assert note == "georeferenced like the sheet"
    assert georef.forward(np.array([[0.0, 0.0]]))[0] == pytest.approx([0.0, 100.0])
