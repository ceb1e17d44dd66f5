"""core.georef.georeference end to end (detection replaced by known intersections): accuracy on
generated sheets, pixel conventions, lossless GeoTIFF, warps, GCP files, reports, errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from core.errors import InputError
from core.formats.qgis_points import (
    HEADER,
    GroundControlPoints,
    read_points_file,
    write_points_file,
)
from core.georef import fit_transform, georeference
from core.georef.crs import parse_crs, same_crs, transform_points
from core.georef.grid_labels import CENTRE_TO_CORNER, Anchor, graticule_from_points
from core.progress import Cancelled

L93 = np.array([[0.42, 0.012, 651000.0], [0.010, -0.419, 6862000.0]])  # pixel -> EPSG:2154


def _blocky(w: int, h: int, block: int = 8, seed: int = 0) -> np.ndarray:
    """RGB image of random-coloured block x block squares."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 256, (-(-h // block), -(-w // block), 3), dtype=np.uint8)
    return np.repeat(np.repeat(small, block, axis=0), block, axis=1)[:h, :w]


def _write_png(path: Path, img: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), np.ascontiguousarray(img[:, :, ::-1]))
    return path


def _sheet_with_gcps(tmp_path: Path, w: int = 640, h: int = 480, noise: float = 0.0):
    """A blocky PNG and a .points file of 12 GCPs mapped by L93 (plus optional noise)."""
    img = _blocky(w, h)
    path = _write_png(tmp_path / "sheet.png", img)
    xx, yy = np.meshgrid(np.linspace(40, w - 40, 4), np.linspace(30, h - 30, 3))
    pix = np.column_stack([xx.ravel(), yy.ravel()])
    mapxy = pix @ L93[:, :2].T + L93[:, 2]
    mapxy += np.random.default_rng(1).normal(0, noise, mapxy.shape)
    write_points_file(tmp_path / "sheet.points",
                      GroundControlPoints(mapxy, pix, crs=parse_crs("EPSG:2154").to_wkt()))
    return path, img, pix, mapxy


# ------------------------------------------------------------------ generated sheets


@pytest.mark.parametrize(("seed", "overrides", "n_anchors"),
                         [(3, {"orientation": "tilted"}, 1), (2, {"orientation": "rot90"}, 2)])
def test_generated_sheet_lands_within_1_5x_the_best_affine_residual(tmp_path, seed, overrides,
                                                                    n_anchors):
    from osgeo import gdal

    from core.synth import generate_sheet, write_sheet

    sheet = generate_sheet(seed, 2000, spacing_px=420.0, difficulty=0.5, **overrides)
    paths = write_sheet(sheet, tmp_path, f"{seed:03d}")
    rng = np.random.default_rng(seed)
    detected = sheet.intersections + rng.normal(0, 0.7, sheet.intersections.shape)
    index = sheet.grid_index()
    graticule = graticule_from_points(detected, index, sheet.image.shape[1::-1])
    picks = [0, len(detected) - 1][:n_anchors]
    raster_xy = sheet.intersections + CENTRE_TO_CORNER   # GCPs use raster coordinates
    anchors = [Anchor(tuple(raster_xy[i] + [25.0, -18.0]), tuple(sheet.grid_xy[i]))
               for i in picks]
    res = georeference(paths["image"], "EPSG:2154", grid_crs="paris-atlas", anchors=anchors,
                       gcps=False, graticule=graticule)
    assert np.array_equal(res.grid_xy, sheet.grid_xy)  # never a cell off, never mirrored
    l93 = transform_points(sheet.grid_xy, parse_crs("paris-atlas"), parse_crs("EPSG:2154"))
    best = fit_transform(raster_xy, l93, "affine")
    best_max = float(np.hypot(*best.residuals_map.T).max())
    gt = gdal.Open(str(res.outputs["tif"])).GetGeoTransform()
    p = raster_xy
    ours = np.column_stack([gt[0] + gt[1] * p[:, 0] + gt[2] * p[:, 1],
                            gt[3] + gt[4] * p[:, 0] + gt[5] * p[:, 1]])
    ours_max = float(np.hypot(*(ours - l93).T).max())
    assert ours_max <= 1.5 * best_max, (ours_max, best_max)
    assert res.rejected == [] and res.labelling.mirrored is False
    assert (res.labelling.north_in_image == "up") == (sheet.geometry.quarter_turns == 0)
    # the map-area mask beside the input became the alpha band
    ds = gdal.Open(str(res.outputs["tif"]))
    alpha = ds.GetRasterBand(4).ReadAsArray()
    assert np.array_equal(alpha > 0, sheet.map_mask)


def test_default_points_file_beside_the_input_names_the_intersections(tmp_path):
    from core.synth import generate_sheet, write_sheet

    sheet = generate_sheet(5, 1600, spacing_px=400.0, difficulty=0.3, orientation="rot90")
    paths = write_sheet(sheet, tmp_path, "005")
    graticule = graticule_from_points(sheet.intersections, sheet.grid_index(),
                                      sheet.image.shape[1::-1])
    res = georeference(paths["image"], "paris-atlas", graticule=graticule)
    assert res.report["gcp_file"] == str(paths["points"])
    assert np.array_equal(res.grid_xy, sheet.grid_xy)
    with pytest.raises(InputError, match="--anchor X,Y=E,N .* --gcps"):
        georeference(paths["image"], "paris-atlas", graticule=graticule, gcps=False,
                     outdir=tmp_path / "none")
    assert not (tmp_path / "none").exists()


# ------------------------------------------------------------------ conventions, lossless

def test_pixel_centres_land_where_the_fit_says_and_pixels_are_unchanged(tmp_path):
    from osgeo import gdal

    path, img, _pix, _mapxy = _sheet_with_gcps(tmp_path)
    res = georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path / "out")
    ds = gdal.Open(str(res.outputs["tif"]))
    # lossless: the very pixels of the input, tiled and DEFLATE-compressed
    assert np.array_equal(ds.ReadAsArray().transpose(1, 2, 0), img)
    assert ds.GetMetadataItem("COMPRESSION", "IMAGE_STRUCTURE") == "DEFLATE"
    assert ds.GetRasterBand(1).GetBlockSize() == [512, 512]
    assert same_crs(parse_crs(ds.GetProjection()), parse_crs("EPSG:2154"))
    gt = ds.GetGeoTransform()
    inv = gdal.InvGeoTransform(gt)
    rng = np.random.default_rng(4)
    cols, rows = rng.integers(0, 640, 50), rng.integers(0, 480, 50)
    centres = np.column_stack([cols + 0.5, rows + 0.5])
    mapped = res.transform.forward(centres)
    for (i, j), (mx, my) in zip(zip(cols, rows, strict=True), mapped, strict=True):
        x, y = gdal.ApplyGeoTransform(inv, float(mx), float(my))
        assert (int(np.floor(x)), int(np.floor(y))) == (i, j)
        assert x - i == pytest.approx(0.5, abs=1e-6) and y - j == pytest.approx(0.5, abs=1e-6)
    # the exact affine the GCPs were made with
    assert np.allclose(gt, [651000.0, 0.42, 0.012, 6862000.0, 0.010, -0.419], atol=1e-6)
    # world file: A, D, B, E, then the centre of the top-left pixel
    wf = [float(v) for v in res.outputs["world"].read_text().split()]
    assert res.outputs["world"].suffix == ".pgw"
    assert np.allclose(wf[:4], [gt[1], gt[4], gt[2], gt[5]])
    assert np.allclose(wf[4:], res.transform.forward(np.array([[0.5, 0.5]]))[0], atol=1e-6)
    # the VRT's GCPs give GDAL the same transform at pixel centres
    vrt = gdal.Open(str(res.outputs["vrt"]))
    tr = gdal.Transformer(vrt, None, ["METHOD=GCP_POLYNOMIAL", "MAX_GCP_ORDER=1"])
    got, _ok = tr.TransformPoints(0, [tuple(c) for c in centres])
    assert np.abs(np.asarray(got)[:, :2] - mapped).max() < 1e-3  # VRT stores 4 decimals


def test_detected_pixel_centres_become_gdal_corner_coordinates(tmp_path):
    from osgeo import gdal

    path = _write_png(tmp_path / "grid.png", _blocky(400, 300))
    c, r = np.meshgrid(np.arange(4), np.arange(3))
    index = np.column_stack([c.ravel(), r.ravel()])
    centres = index * 100.0 + 50.0  # detection convention: pixel (50, 50)'s centre is (50, 50)
    graticule = graticule_from_points(centres, index, (400, 300))
    res = georeference(path, "paris-atlas", anchors=["50,50=0,5000"], gcps=False,
                       graticule=graticule, outdir=tmp_path / "out")
    grid = np.column_stack([index[:, 0] * 1000.0, 5000.0 - index[:, 1] * 1000.0])
    assert np.array_equal(res.grid_xy, grid)
    gt = gdal.Open(str(res.outputs["tif"])).GetGeoTransform()
    inv = gdal.InvGeoTransform(gt)
    for (i, j), (e, n) in zip(centres.astype(int), grid, strict=True):
        assert gdal.ApplyGeoTransform(gt, i + 0.5, j + 0.5) == pytest.approx((e, n), abs=1e-6)
        x, y = gdal.ApplyGeoTransform(inv, e, n)
        assert (int(np.floor(x)), int(np.floor(y))) == (i, j)  # the node's pixel itself


def test_points_output_round_trips_in_the_qgis_format(tmp_path):
    path, _img, pix, mapxy = _sheet_with_gcps(tmp_path, noise=0.3)
    mapxy_bad = mapxy.copy()
    mapxy_bad[5] += [0.0, 1000.0]
    write_points_file(tmp_path / "sheet.points", GroundControlPoints(
        mapxy_bad, pix, crs=parse_crs("EPSG:2154").to_wkt()))
    res = georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path / "out")
    assert res.rejected == [5]
    text = res.outputs["points"].read_text()
    lines = text.splitlines()
    assert lines[0].startswith("#CRS: PROJCRS[") and lines[1] == HEADER
    assert all(float(line.split(",")[3]) < 0 for line in lines[2:])  # QGIS: sourceY = -row
    back = read_points_file(res.outputs["points"])
    assert np.array_equal(back.pixel_xy, res.pixel_xy) and np.array_equal(back.map_xy, res.map_xy)
    assert back.enabled.tolist() == res.inliers.tolist()
    assert same_crs(parse_crs(back.crs), parse_crs("EPSG:2154"))
    res_px = np.array([[float(v) for v in line.split(",")[5:7]] for line in lines[2:]])
    assert np.allclose(res_px, res.transform.inverse(res.map_xy) - res.pixel_xy)
    # the report tells the same story
    rep = json.loads(res.outputs["json"].read_text())
    assert rep["robust"]["rejected"] == [6] and rep["summary"]["used"] == 11
    assert rep["summary"]["rmse_map"] == pytest.approx(res.rmse_map)
    assert rep["gcps"][5]["used"] is False and rep["gcps"][5]["residual_map"]["length"] > 900
    html = res.outputs["html"].read_text()
    assert "data:image/png;base64," in html and html.count('class="rejected"') == 1


def test_gcps_only_keeps_disabled_points_out_of_the_fit_and_in_the_outputs(tmp_path):
    """A point disabled in the .points file (as the review panel saves it) is fitted by no
    one, keeps its residuals, stays disabled in the written .points, and is not an
    outlier."""
    path, _img, pix, mapxy = _sheet_with_gcps(tmp_path, noise=0.3)
    enabled = np.ones(len(pix), dtype=bool)
    enabled[[2, 7]] = False
    gcps = GroundControlPoints(mapxy, pix, enabled, crs=parse_crs("EPSG:2154").to_wkt())
    write_points_file(tmp_path / "sheet.points", gcps)
    res = georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path / "out",
                       outliers="none")
    alone = fit_transform(pix[enabled], mapxy[enabled], "affine")
    assert res.rmse_px == pytest.approx(alone.rmse_px, abs=1e-12)
    assert res.inliers.tolist() == enabled.tolist() and res.rejected == []
    assert np.allclose(res.residual_px, alone.inverse(mapxy) - pix)
    back = read_points_file(res.outputs["points"])
    assert back.enabled.tolist() == enabled.tolist()
    rep = json.loads(res.outputs["json"].read_text())
    assert rep["robust"]["disabled"] == [3, 8] and rep["summary"]["disabled"] == 2
    assert rep["summary"]["rejected"] == 0 and not any("left out" in w for w in res.warnings)
    # the same GCPs given as an object rather than a file: the same fit, no GCP file
    again = georeference(path, "EPSG:2154", gcps=gcps, gcps_only=True, outliers="none",
                         outdir=tmp_path / "again")
    assert again.rmse_px == res.rmse_px and again.report["gcp_file"] is None
    assert again.outputs["points"].read_text() == res.outputs["points"].read_text()


def test_fit_gcps_is_the_fit_of_a_run(tmp_path):
    from core.georef import fit_gcps

    path, _img, pix, mapxy = _sheet_with_gcps(tmp_path, noise=0.3)
    res = georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path / "out")
    fit = fit_gcps(pix, mapxy, "EPSG:2154", "EPSG:2154", "affine")
    assert fit.rmse_px == res.rmse_px and fit.rmse_map == res.rmse_map
    assert np.array_equal(fit.residual_px, res.residual_px)
    assert fit.inliers.tolist() == res.inliers.tolist()
    with pytest.raises(InputError, match="at least"):
        fit_gcps(pix[:2], mapxy[:2], "EPSG:2154", "EPSG:2154", "affine")


def test_real_crop_with_its_three_hand_placed_gcps(real_crop, tmp_path):
    kwargs = {"grid_crs": "paris-atlas", "gcps": real_crop / "GRATICULE-GT.points",
              "gcps_only": True, "mask": real_crop / "INPUT-MASK.png"}
    with pytest.raises(InputError, match="lie on one line; --transform helmert needs only two"):
        georeference(real_crop / "INPUT.jpg", "EPSG:2154", outdir=tmp_path / "a", **kwargs)
    res = georeference(real_crop / "INPUT.jpg", "EPSG:2154", transform="helmert",
                       outdir=tmp_path / "h", **kwargs)
    # about 2363 px per 1000 m, nearly north-up, hand placement to a few pixels
    assert res.transform.params["scale"] == pytest.approx(1000.0 / 2363.0, rel=0.01)
    assert abs(res.transform.params["rotation_deg"]) < 1.0
    assert res.rmse_px < 5.0 and res.rejected == []
    x0, y0 = res.transform.geotransform[0], res.transform.geotransform[3]
    assert 640000 < x0 < 660000 and 6855000 < y0 < 6870000  # Paris in Lambert-93


# ------------------------------------------------------------------ warped kinds

@pytest.mark.parametrize("kind", ["projective", "poly2", "tps"])
def test_warped_outputs_put_pixels_at_their_map_position(tmp_path, kind):
    from osgeo import gdal

    path, img, pix, mapxy = _sheet_with_gcps(tmp_path, noise=0.2)
    res = georeference(path, "EPSG:2154", gcps_only=True, transform=kind, resampling="near",
                       outdir=tmp_path / kind)
    ds = gdal.Open(str(res.outputs["tif"]))
    assert ds.RasterCount == 4 and "world" not in res.outputs
    assert ds.GetRasterBand(4).GetColorInterpretation() == gdal.GCI_AlphaBand
    data = ds.ReadAsArray()
    assert data[3, 0, 0] == 0 and data[3, -1, -1] == 0  # rotated footprint: corners outside
    inv = gdal.InvGeoTransform(ds.GetGeoTransform())
    # centres of 8x8 blocks: the output pixel at their map position has the block's colour
    by, bx = np.meshgrid(np.arange(2, 58, 5), np.arange(2, 78, 7), indexing="ij")
    centres = np.column_stack([bx.ravel() * 8 + 4.0, by.ravel() * 8 + 4.0])
    mapped = res.transform.forward(centres)
    hits = 0
    for (cx, cy), (mx, my) in zip(centres, mapped, strict=True):
        x, y = gdal.ApplyGeoTransform(inv, float(mx), float(my))
        out = data[:, int(y), int(x)]
        assert out[3] == 255
        hits += np.array_equal(out[:3], img[int(cy), int(cx)])
    assert hits == len(centres)


@pytest.mark.parametrize("kind", ["affine", "projective", "tps"])
def test_outside_the_map_area_mask_is_transparent(tmp_path, kind):
    from osgeo import gdal

    path, _img, _pix, _mapxy = _sheet_with_gcps(tmp_path, noise=0.2)
    mask = np.zeros((480, 640), np.uint8)
    mask[:, 320:] = 255  # the map is the right half
    _write_png(tmp_path / "mask.png", np.dstack([mask] * 3))
    res = georeference(path, "EPSG:2154", gcps_only=True, transform=kind,
                       mask=tmp_path / "mask.png", outdir=tmp_path / kind)
    ds = gdal.Open(str(res.outputs["tif"]))
    alpha = ds.GetRasterBand(4).ReadAsArray()
    inv = gdal.InvGeoTransform(ds.GetGeoTransform())
    for x in (100.5, 250.5, 400.5, 600.5):
        for y in (50.5, 240.5, 430.5):
            mx, my = res.transform.forward(np.array([[x, y]]))[0]
            c, r = (int(v) for v in gdal.ApplyGeoTransform(inv, float(mx), float(my)))
            assert alpha[r, c] == (255 if x > 320 else 0)


def test_poly3_with_too_few_points_is_refused_without_output(tmp_path):
    path, *_ = _sheet_with_gcps(tmp_path)
    pts = read_points_file(tmp_path / "sheet.points")
    write_points_file(tmp_path / "sheet.points", GroundControlPoints(
        pts.map_xy[:9], pts.pixel_xy[:9], crs=pts.crs))
    with pytest.raises(InputError, match="poly3 transform needs at least 10 GCPs, got 9"):
        georeference(path, "EPSG:2154", gcps_only=True, transform="poly3",
                     outdir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ errors, cancel, QGIS

def test_bad_inputs_are_one_line_input_errors(tmp_path):
    path, *_ = _sheet_with_gcps(tmp_path)
    with pytest.raises(InputError, match="unknown CRS"):
        georeference(path, "EPSG:0", gcps_only=True)
    _write_png(tmp_path / "mask.png", np.zeros((10, 10, 3), np.uint8))
    with pytest.raises(InputError, match="mask .* is 10 x 10 px but the image is 640 x 480"):
        georeference(path, "EPSG:2154", gcps_only=True, mask=tmp_path / "mask.png")
    with pytest.raises(InputError, match="sheet.points is an input; writing it would destroy"):
        georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path)
    with pytest.raises(InputError, match="no such file"):
        georeference(tmp_path / "missing.jpg", "EPSG:2154", gcps_only=True)
    with pytest.raises(InputError, match="unknown transform"):
        georeference(path, "EPSG:2154", gcps_only=True, transform="spline")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mask.png", "sheet.png",
                                                           "sheet.points"]


def test_cancel_from_progress_leaves_no_output(tmp_path):
    path, *_ = _sheet_with_gcps(tmp_path)
    seen = []

    def progress(fraction, message):
        seen.append(fraction)
        if fraction > 0.6:
            raise Cancelled

    with pytest.raises(Cancelled):
        georeference(path, "EPSG:2154", gcps_only=True, transform="tps",
                     outdir=tmp_path / "out", progress=progress)
    assert seen and list((tmp_path / "out").glob("*")) == []


@pytest.mark.qgis
def test_geotiff_opens_in_qgis_with_crs_and_extent(tmp_path, qgis_app):
    from qgis.core import QgsRasterLayer

    path, _img, _pix, _mapxy = _sheet_with_gcps(tmp_path)
    res = georeference(path, "EPSG:2154", gcps_only=True, outdir=tmp_path / "out")
    layer = QgsRasterLayer(str(res.outputs["tif"]), "georef", "gdal")
    assert layer.isValid()
    assert layer.crs().authid() == "EPSG:2154"
    corners = res.transform.forward(np.array([[0.0, 0.0], [640.0, 0.0], [0.0, 480.0],
                                              [640.0, 480.0]]))
    ext = layer.extent()
    pix = res.transform.pixel_size()
    # QGIS shows a rotated raster through a warped VRT: its extent is the corners' bounding box
    assert ext.xMinimum() == pytest.approx(corners[:, 0].min(), abs=2 * pix)
    assert ext.xMaximum() == pytest.approx(corners[:, 0].max(), abs=2 * pix)
    assert ext.yMinimum() == pytest.approx(corners[:, 1].min(), abs=2 * pix)
    assert ext.yMaximum() == pytest.approx(corners[:, 1].max(), abs=2 * pix)
    # the identify tool reads the original colour at a pixel centre's map position
    from qgis.core import QgsPointXY, QgsRaster

    centre = res.transform.forward(np.array([[100.5, 200.5]]))[0]
    ident = layer.dataProvider().identify(QgsPointXY(*centre), QgsRaster.IdentifyFormatValue)
    img = _blocky(640, 480)
    assert [int(ident.results()[b]) for b in (1, 2, 3)] == img[200, 100].tolist()


def test_result_carries_the_detection_grid_index_and_residuals_as_arrays(tmp_path):
    path = _write_png(tmp_path / "grid.png", _blocky(400, 300))
    c, r = np.meshgrid(np.arange(4), np.arange(3))
    index = np.column_stack([c.ravel(), r.ravel()])
    centres = index * 100.0 + 50.0
    centres[5] += (2.0, -1.0)            # one node off by (2, -1) px: a visible residual
    graticule = graticule_from_points(centres, index, (400, 300))
    res = georeference(path, "paris-atlas", anchors=["50,50=0,5000"], gcps=False,
                       graticule=graticule, outdir=tmp_path / "out", outliers="none")
    assert res.graticule is graticule
    assert np.array_equal(res.grid_index, index)
    assert res.residual_px.shape == res.residual_map.shape == (12, 2)
    # residuals are the fit's own: map -> pixel minus pixel, pixel -> map minus map
    assert np.allclose(res.residual_px, res.transform.inverse(res.map_xy) - res.pixel_xy)
    assert np.allclose(res.residual_map, res.transform.forward(res.pixel_xy) - res.map_xy)
    assert int(np.argmax(np.hypot(*res.residual_px.T))) == 5
    rows = res.report["gcps"]
    assert [g["residual_px"]["length"] for g in rows] == pytest.approx(
        np.hypot(*res.residual_px.T).tolist(), abs=1e-3)


def test_errors_name_options_so_each_front_end_words_them(tmp_path):
    path, *_ = _sheet_with_gcps(tmp_path)
    with pytest.raises(InputError) as err:
        georeference(path, "EPSG:2154", gcps_only=True, transform="poly3",
                     outdir=tmp_path / "out")
    assert err.value.field == "transform"
    assert "--transform" in str(err.value)
    plugin_words = err.value.render(lambda name: {"transform": "“Transform”"}[name])
    assert "fewer unknowns (“Transform”)" in plugin_words and "--" not in plugin_words
    with pytest.raises(InputError) as err:
        georeference(path, "EPSG:2154", spacing=-5, outdir=tmp_path / "out")
    assert err.value.field == "spacing" and err.value.value == -5
    assert str(err.value) == "--spacing must be a positive distance, not -5"
