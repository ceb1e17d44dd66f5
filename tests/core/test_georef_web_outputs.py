"""core.georef outputs for the web: Cloud-Optimized GeoTIFF (--cog) and the Allmaps
Georeference Annotation (--iiif URL)."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pyproj
import pytest

from core.cli import run_cli
from core.georef.__main__ import main
from core.georef.crs import parse_crs
from core.georef.grid_labels import graticule_from_points
from core.georef.pipeline import georeference
from core.imageio import read_mask

URL = "https://example.org/iiif/atlas/005"


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    """A generated 1600 x 1200 px sheet (image, mask, .points) and its true graticule."""
    from core.synth import generate_sheet, write_sheet

    sheet = generate_sheet(5, (1600, 1200), spacing_px=300.0, difficulty=0.3)
    paths = write_sheet(sheet, tmp_path_factory.mktemp("sheet"), "005")
    graticule = graticule_from_points(sheet.intersections, sheet.grid_index(),
                                      sheet.image.shape[1::-1])
    return paths, graticule


def _run(sheet, outdir, **kwargs):
    paths, graticule = sheet
    return georeference(paths["image"], "EPSG:2154", grid_crs="paris-atlas",
                        graticule=graticule, outdir=outdir, **kwargs)


# ------------------------------------------------------------------ Cloud-Optimized GeoTIFF

@pytest.mark.parametrize("kind", ["affine", "tps"])
def test_cog_is_a_cog_with_overviews_georeferenced_like_the_plain_geotiff(sheet, tmp_path,
                                                                           kind):
    from osgeo import gdal

    plain = _run(sheet, tmp_path / "plain", transform=kind).outputs["tif"]
    cog = _run(sheet, tmp_path / "cog", transform=kind, cog=True).outputs["tif"]
    info = gdal.Info(str(cog), format="json")
    assert info["metadata"]["IMAGE_STRUCTURE"]["LAYOUT"] == "COG"
    assert info["metadata"]["IMAGE_STRUCTURE"]["COMPRESSION"] == "DEFLATE"
    assert "LAYOUT" not in gdal.Info(str(plain), format="json")["metadata"]["IMAGE_STRUCTURE"]
    a, b = gdal.Open(str(plain)), gdal.Open(str(cog))
    assert b.GetRasterBand(1).GetOverviewCount() >= 1
    assert b.GetRasterBand(1).GetOverview(0).XSize < b.RasterXSize
    assert a.GetGeoTransform() == b.GetGeoTransform()
    assert a.GetSpatialRef().IsSame(b.GetSpatialRef())
    assert (a.RasterXSize, a.RasterYSize, a.RasterCount) == \
        (b.RasterXSize, b.RasterYSize, b.RasterCount)
    assert b.GetRasterBand(b.RasterCount).GetColorInterpretation() == gdal.GCI_AlphaBand
    for band in range(1, a.RasterCount + 1):   # lossless: the same pixels
        assert np.array_equal(a.GetRasterBand(band).ReadAsArray(),
                              b.GetRasterBand(band).ReadAsArray())
    assert sorted(p.name for p in cog.parent.iterdir()) == \
        sorted(p.name for p in plain.parent.iterdir())   # no temporary file left


def test_cancelled_cog_leaves_no_output(sheet, tmp_path):
    from core.progress import Cancelled

    seen = []

    def progress(fraction, message):
        seen.append(message)
        if "Cloud-Optimized" in message and fraction > 0.1:
            raise Cancelled

    with pytest.raises(Cancelled):
        _run(sheet, tmp_path / "out", cog=True, progress=progress)
    assert any("Cloud-Optimized" in m for m in seen)
    assert list((tmp_path / "out").glob("*")) == []


# ------------------------------------------------------------------ Allmaps annotation

def _lonlat(map_xy) -> np.ndarray:
    t = pyproj.Transformer.from_crs("EPSG:2154", "EPSG:4326", always_xy=True)
    x, y = t.transform(*np.asarray(map_xy, float).T)
    return np.column_stack([x, y])


def test_annotation_gcps_are_the_reports_in_wgs84_lon_lat(sheet, tmp_path):
    res = _run(sheet, tmp_path / "o", iiif=URL + "/")
    doc = json.loads(res.outputs["allmaps"].read_text())
    # the structure of the published examples (IIIF georeference extension, Allmaps)
    assert doc["type"] == "Annotation" and doc["motivation"] == "georeferencing"
    assert doc["@context"] == ["http://iiif.io/api/extension/georef/1/context.json",
                               "http://iiif.io/api/presentation/3/context.json"]
    target = doc["target"]
    assert target["type"] == "SpecificResource"
    assert target["source"] == {"id": URL, "type": "ImageService2", "width": 1600,
                                "height": 1200}
    assert target["selector"]["type"] == "SvgSelector"
    body = doc["body"]
    assert body["type"] == "FeatureCollection"
    assert body["transformation"] == {"type": "polynomial", "options": {"order": 1}}
    feats = body["features"]
    assert all(f["type"] == "Feature" and f["geometry"]["type"] == "Point" for f in feats)
    assert all(isinstance(v, float) for f in feats
               for v in f["properties"]["resourceCoords"] + f["geometry"]["coordinates"])
    # the used GCPs of the report, at the same pixels, in longitude, latitude order
    used = [g for g in res.report["gcps"] if g["used"]]
    assert len(feats) == len(used) >= 9
    pixels = np.array([f["properties"]["resourceCoords"] for f in feats])
    lonlat = np.array([f["geometry"]["coordinates"] for f in feats])
    assert np.array_equal(pixels, np.array([g["pixel"] for g in used]))
    assert np.abs(lonlat - _lonlat([g["map"] for g in used])).max() < 1e-6
    assert np.all((lonlat[:, 0] > 2.0) & (lonlat[:, 0] < 2.7))     # Paris: lon 2.3,
    assert np.all((lonlat[:, 1] > 48.7) & (lonlat[:, 1] < 49.0))   # lat 48.8
    # the grid CRS the sheet is drawn in, as pyproj reads it back: the same places
    written = pyproj.CRS.from_user_input(body["resourceCrs"]["definition"])
    grid = np.array([g["grid"] for g in used])
    assert np.abs(_to_wgs84(grid, written) - _to_wgs84(grid, parse_crs("paris-atlas"))).max() \
        < 1e-9


def _to_wgs84(xy, crs) -> np.ndarray:
    t = pyproj.Transformer.from_crs(crs, "EPSG:4326", always_xy=True)
    return np.column_stack(t.transform(*np.asarray(xy, float).T))


def test_annotation_mask_polygon_outlines_the_map_area_inside_the_image(sheet, tmp_path):
    paths, _ = sheet
    res = _run(sheet, tmp_path / "o", iiif=URL, iiif_version=3)
    target = json.loads(res.outputs["allmaps"].read_text())["target"]
    assert target["source"]["type"] == "ImageService3"
    svg = target["selector"]["value"]
    m = re.fullmatch(r'<svg width="1600" height="1200"><polygon points="([-0-9., ]+)" /></svg>',
                     svg)
    assert m, svg
    poly = np.array([[float(v) for v in p.split(",")] for p in m.group(1).split()])
    assert len(poly) >= 4
    assert poly.min() >= 0 and poly[:, 0].max() <= 1600 and poly[:, 1].max() <= 1200
    mask = read_mask(paths["mask"])
    area = cv2.contourArea(poly.astype(np.float32))
    assert abs(area - mask.sum()) < 0.01 * mask.sum()
    # every polygon vertex lies on the map area's edge: inside within 1.5 px, outside too
    inside = cv2.dilate(mask.view(np.uint8), np.ones((5, 5), np.uint8))
    outside = cv2.dilate((~mask).view(np.uint8), np.ones((5, 5), np.uint8))
    ij = np.clip(np.floor(poly).astype(int), 0, [1599, 1199])
    assert np.all(inside[ij[:, 1], ij[:, 0]] | (ij[:, 0] % 1599 == 0) | (ij[:, 1] % 1199 == 0))
    assert outside[ij[:, 1], ij[:, 0]].any() or not (~mask).any()


@pytest.mark.parametrize(("kind", "expected"), [
    ("helmert", {"type": "helmert"}), ("projective", {"type": "projective"}),
    ("poly2", {"type": "polynomial", "options": {"order": 2}}),
    ("tps", {"type": "thinPlateSpline"})])
def test_annotation_names_the_fitted_transformation_as_allmaps(sheet, tmp_path, kind,
                                                               expected):
    res = _run(sheet, tmp_path / "o", iiif=URL, transform=kind)
    doc = json.loads(res.outputs["allmaps"].read_text())
    assert doc["body"]["transformation"] == expected


def test_cli_cog_and_iiif(sheet, tmp_path, capsys):
    paths, _ = sheet
    code = run_cli(main, [str(paths["image"]), "--crs", "EPSG:2154", "--grid-crs",
                          "paris-atlas", "--gcps-only", "--cog", "--iiif", URL,
                          "-o", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0
    note = tmp_path / "o" / "005-INPUT.allmaps.json"
    assert str(note) in out and json.loads(note.read_text())["target"]["source"]["id"] == URL
    from osgeo import gdal

    tif = str(tmp_path / "o" / "005-INPUT.tif")
    assert gdal.Info(tif, format="json")["metadata"]["IMAGE_STRUCTURE"]["LAYOUT"] == "COG"


@pytest.mark.parametrize("url", ["ftp://example.org/iiif/1", "example.org/iiif/1",
                                 "/data/sheet.jpg", "https://"])
def test_iiif_url_must_be_http_or_https(sheet, tmp_path, capsys, url):
    paths, _ = sheet
    code = run_cli(main, [str(paths["image"]), "--crs", "EPSG:2154", "--gcps-only",
                          "--iiif", url, "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert err.startswith("error: --iiif") and "http(s) URL" in err
    assert not (tmp_path / "o").exists()
