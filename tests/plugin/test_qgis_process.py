"""Every Processing algorithm of the plugin in QGIS's own runtime, through ``qgis_process``.

The zip of this tree (as ``make zip`` builds it) is installed in a temporary profile and
enabled; each algorithm then runs in a ``qgis_process.bin`` of its own, with QGIS's
system Python and Debian's packages (see qgis_process_helpers), on a generated 2500 px sheet
and on the real crop of the 1925 Paris atlas (skipped when ``../shared`` is absent). A crash
of QGIS fails the test with the end of its stderr. Each run costs a few seconds of QGIS
start-up: the runs of a sheet start together, two at a time, and each test checks one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from osgeo import gdal, ogr, osr
from plugin_test_helpers import REPO, load_tool, read_anchor
from qgis_process_helpers import PROVIDER, QGIS_PROCESS, QgisProcess, check_completed

from core.metrics.__main__ import main as metrics_cli

gdal.UseExceptions()
ogr.UseExceptions()

ALGORITHMS = ("buildingblocks", "detectgraticule", "evaluatet1", "evaluatet2", "evaluatet3",
              "georeference", "maparea", "refitgcps")
SHARED_CROP = REPO.parent / "shared" / "data" / "paris-1925-sheet1-crop"


@dataclass(frozen=True)
class Sheet:
    """A sheet and its truth: image, map-area mask, MapSeg intersections CSV, QGIS .points
    file, building-blocks mask (None when unknown), and a folder for outputs."""

    name: str
    image: Path
    mask: Path
    gt_csv: Path
    points: Path
    blocks: Path | None
    out: Path


@pytest.fixture(scope="session")
def qgis_process(tmp_path_factory):
    """qgis_process with the plugin zip of this tree installed and enabled."""
    if not QGIS_PROCESS.is_file():
        pytest.fail(f"{QGIS_PROCESS} not found: make install brings Debian's qgis package")
    dist = tmp_path_factory.mktemp("zip")
    plugin_zip = load_tool("make_zip").build_zip(REPO, dist)
    runner = QgisProcess(tmp_path_factory.mktemp("qgis_home"))
    try:
        runner.install(plugin_zip)
        yield runner
    finally:
        runner.close()


@pytest.fixture(scope="module", params=["synthetic", "real"])
def qp_sheet(request, tmp_path_factory) -> Sheet:
    """The generated north-up 2500 x 2500 px sheet of conftest (grid every 700 px: 1000 m =
    700 px, 12 crossings) and the real crop (about 2363 px per 1000 m, 3 crossings)."""
    out = tmp_path_factory.mktemp(f"qp_{request.param}")
    if request.param == "real":
        if not SHARED_CROP.is_dir():
            pytest.skip(f"{SHARED_CROP} not found")
        d = SHARED_CROP
        return Sheet("real", d / "INPUT.jpg", d / "INPUT-MASK.png", d / "GRATICULE-GT.csv",
                     d / "GRATICULE-GT.points", None, out)
    files = request.getfixturevalue("sheet")
    return Sheet("synthetic", files["image"], files["mask"], files["gt_csv"], files["points"],
                 files["blocks"], out)


def georeference_parameters(sheet: Sheet) -> dict:
    """georeference's parameters: the real crop's 3 crossings lie on one grid line, so a
    similarity from its GCP file; the generated sheet from one anchor typed in, affine."""
    params = {"INPUT": sheet.image, "MASK": sheet.mask, "CRS": "EPSG:2154",
              "OUTPUT_FOLDER": sheet.out / "georef", "OUTPUT_POINTS": sheet.out / "gcps.gpkg"}
    if sheet.name == "real":
        params.update(GCPS=sheet.points, TRANSFORM=0)
    else:
        x, y, e, n = read_anchor(sheet.points)
        params.update(ANCHORS=f"{x:.2f},{y:.2f}={e:.0f},{n:.0f}", TRANSFORM=1)
    return params


def shifted_blocks(sheet: Sheet) -> Path:
    """A building-block prediction: the truth moved by 3 and 2 px, its top-left ninth lost."""
    truth = gdal.Open(str(sheet.blocks)).ReadAsArray()
    prediction = np.roll(truth, (3, 2), axis=(0, 1))
    prediction[: truth.shape[0] // 3, : truth.shape[1] // 3] = 0
    memory = gdal.GetDriverByName("MEM").Create("", truth.shape[1], truth.shape[0], 1,
                                                gdal.GDT_Byte)
    memory.GetRasterBand(1).WriteArray(prediction)
    target = sheet.out / "blocks-shifted.png"
    gdal.GetDriverByName("PNG").CreateCopy(str(target), memory)
    return target


@pytest.fixture(scope="module")
def runs(qgis_process, qp_sheet) -> dict[str, Future]:
    """Every run on ``qp_sheet``, started at once (two at a time, the longest first) so that
    QGIS start-ups overlap; the scores of detection and map area wait for them. Each test
    waits for its own run."""
    sheet = qp_sheet
    jobs = {f"buildingblocks{level}": qgis_process.submit(
        "buildingblocks", INPUT=sheet.image, MASK=sheet.mask, LEVEL=level,
        OUTPUT=sheet.out / f"blocks-{level}.gpkg") for level in (1, 0)}
    jobs["georeference"] = qgis_process.submit("georeference", **georeference_parameters(sheet))
    if sheet.name == "synthetic":     # the real crop's GCPs are georeference's, above
        jobs["refitgcps"] = qgis_process.submit(
            "refitgcps", INPUT=sheet.image, GCPS=sheet.points, MASK=sheet.mask,
            CRS="EPSG:2154", TRANSFORM=1, OUTPUT_FOLDER=sheet.out / "refit",
            OUTPUT_POINTS=sheet.out / "refit.gpkg")
    jobs["detectgraticule"] = qgis_process.submit(
        "detectgraticule", INPUT=sheet.image, MASK=sheet.mask,
        OUTPUT=sheet.out / "intersections.gpkg", OUTPUT_CSV=sheet.out / "intersections.csv")
    if sheet.name == "real":   # no mask given and none beside the sheet: the map area computed
        alone = sheet.out / "no-mask"
        alone.mkdir()
        (alone / sheet.image.name).symlink_to(sheet.image)
        jobs["detectgraticule-computed"] = qgis_process.submit(
            "detectgraticule", INPUT=alone / sheet.image.name,
            OUTPUT=sheet.out / "intersections-computed.gpkg",
            OUTPUT_CSV=sheet.out / "intersections-computed.csv")
    jobs["maparea"] = qgis_process.submit("maparea", INPUT=sheet.image,
                                          OUTPUT=sheet.out / "map-area.png")
    if sheet.blocks is not None:
        jobs["evaluatet1"] = qgis_process.submit(
            "evaluatet1", REFERENCE=sheet.blocks, PREDICTION=shifted_blocks(sheet),
            OUTPUT_FOLDER=sheet.out / "t1")
    jobs["evaluatet3"] = qgis_process.submit_after(
        jobs["detectgraticule"], "evaluatet3", lambda found: {
            "REFERENCE": sheet.gt_csv, "PREDICTION": found["OUTPUT_CSV"],
            "OUTPUT_FOLDER": sheet.out / "t3"})
    jobs["evaluatet2"] = qgis_process.submit_after(
        jobs["maparea"], "evaluatet2", lambda found: {
            "REFERENCE": sheet.mask, "PREDICTION": found["OUTPUT"],
            "OUTPUT_FOLDER": sheet.out / "t2"})
    return jobs


@pytest.fixture(scope="module")
def synthetic(qp_sheet) -> Sheet:
    if qp_sheet.name != "synthetic":
        pytest.skip("no building-block truth for this sheet")
    return qp_sheet


def read_csv_points(path: Path) -> np.ndarray:
    """The x, y rows of a MapSeg CSV, pixels (x right, y down)."""
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def layer_features(path: Path, layer_name: str | None = None) -> list[ogr.Feature]:
    """The features of one layer of a vector file (the first layer by default)."""
    source = ogr.Open(str(path))
    layer = source.GetLayerByName(layer_name) if layer_name else source.GetLayer(0)
    assert layer is not None, f"{path} has no layer {layer_name}"
    features = [f.Clone() for f in layer]
    source = None
    return features


def core_score(task: str, reference: Path, prediction: Path, out: Path) -> dict:
    """The global JSON of ``python -m core.metrics TASK REF PRED OUT`` (core's CLI, run here
    with the venv's packages)."""
    assert metrics_cli([task, str(reference), str(prediction), str(out)]) == 0
    name = "global_error.json" if task == "T2" else "global_score.json"
    return json.loads((out / name).read_text())


def test_provider_lists_every_algorithm_tested_here(qgis_process):
    assert qgis_process.algorithms() == [f"{PROVIDER}:{a}" for a in ALGORITHMS]


def test_detectgraticule_finds_every_intersection_within_2_px(runs, qp_sheet):
    detection = runs["detectgraticule"].result()
    truth = read_csv_points(qp_sheet.gt_csv)
    assert detection["COUNT"] == len(truth)
    found = np.array([[f["pixel_x"], f["pixel_y"]] for f in layer_features(detection["OUTPUT"])])
    assert found.shape == truth.shape
    distances = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    assert distances.min(axis=1).max() < 2.0, distances.min(axis=1)
    csv = read_csv_points(Path(detection["OUTPUT_CSV"]))
    assert np.abs(np.sort(csv, axis=0) - np.sort(found, axis=0)).max() < 0.01


def test_detectgraticule_finds_the_real_crops_crossings_with_the_map_area_computed(
        runs, qp_sheet):
    if qp_sheet.name != "real":
        pytest.skip("the generated sheet is run with its mask only")
    detection = runs["detectgraticule-computed"].result()
    truth = read_csv_points(qp_sheet.gt_csv)
    found = read_csv_points(Path(detection["OUTPUT_CSV"]))
    assert detection["COUNT"] == len(found) == len(truth) == 3
    distances = np.linalg.norm(truth[:, None, :] - found[None, :, :], axis=2)
    assert distances.min(axis=1).max() < 2.0, distances.min(axis=1)


def test_georeference_fits_with_small_rmse_and_writes_a_geotiff_in_the_target_crs(
        runs, qp_sheet):
    results = runs["georeference"].result()
    if qp_sheet.name == "real":
        max_rmse_px, used, metres_per_px = 5.0, 3, 1000 / 2363
    else:
        max_rmse_px, used, metres_per_px = 1.0, len(read_csv_points(qp_sheet.gt_csv)), 1000 / 700
    assert results["USED"] == used
    assert 0 <= results["RMSE_PX"] < max_rmse_px
    assert 0 <= results["RMSE_MAP"] < max_rmse_px * metres_per_px
    raster = gdal.Open(results["OUTPUT_RASTER"])
    srs = osr.SpatialReference(wkt=raster.GetProjection())
    assert srs.GetAuthorityCode(None) == "2154"
    assert raster.RasterXSize > 0 and raster.GetGeoTransform()[1] > 0
    points = layer_features(results["OUTPUT_POINTS"])
    assert sum(bool(f["used"]) for f in points) == used


def test_maparea_writes_a_mask_of_the_sheets_size_close_to_the_truth(runs, qp_sheet):
    map_area = runs["maparea"].result()
    found = gdal.Open(str(map_area["OUTPUT"])).ReadAsArray()
    truth = gdal.Open(str(qp_sheet.mask)).ReadAsArray()
    image = gdal.Open(str(qp_sheet.image))
    assert found.shape == truth.shape == (image.RasterYSize, image.RasterXSize)
    assert set(np.unique(found)) <= {0, 255}
    inside, true_inside = found > 127, truth > 127
    iou = (inside & true_inside).sum() / (inside | true_inside).sum()
    assert iou > 0.9, iou
    assert map_area["FRACTION"] == pytest.approx(inside.mean(), abs=1e-3)


@pytest.mark.parametrize("level", [0, 1], ids=["blocks", "shapes"])
def test_buildingblocks_writes_valid_polygons(runs, level):
    results = runs[f"buildingblocks{level}"].result()
    layers = {"blocks": results["BLOCK_COUNT"]}
    if level == 1:
        layers["shapes"] = results["SHAPE_COUNT"]
    for name, count in layers.items():
        features = layer_features(results["OUTPUT"], name)
        assert len(features) == count > 0, name
        invalid = [f.GetFID() for f in features
                   if f.GetGeometryRef() is None or not f.GetGeometryRef().IsValid()]
        assert not invalid, f"{name}: invalid polygons {invalid[:10]}"
        assert all(f.GetGeometryRef().GetArea() > 0 for f in features), name


def assert_scores_match_core(results: dict, task: str, reference: Path, prediction: Path,
                             out: Path, keys: dict[str, str]) -> None:
    """Each output of ``keys`` equals the core CLI's global value of the same files."""
    summary = core_score(task, reference, prediction, out)
    for output, key in keys.items():
        assert results[output] == pytest.approx(summary[key], rel=1e-6, abs=1e-9), output


def test_evaluatet1_scores_blocks_like_the_core_cli(runs, synthetic):
    results = runs["evaluatet1"].result()
    assert 0 < results["PQ"] < 1 and 0 < results["SQ"] <= 1 and 0 < results["RQ"] <= 1
    assert_scores_match_core(results, "T1", synthetic.blocks, synthetic.out / "blocks-shifted.png",
                             synthetic.out / "t1-core", {"PQ": "global_mean_cocopq",
                                                         "SQ": "global_mean_cocosq",
                                                         "RQ": "global_mean_cocorq"})


def test_evaluatet2_scores_the_map_area_like_the_core_cli(runs, qp_sheet):
    results = runs["evaluatet2"].result()
    assert 0 <= results["HD95"] < 50
    assert_scores_match_core(results, "T2", qp_sheet.mask, qp_sheet.out / "map-area.png",
                             qp_sheet.out / "t2-core", {"HD95": "global_mean_error"})


def test_evaluatet3_scores_the_detection_like_the_core_cli(runs, qp_sheet):
    results = runs["evaluatet3"].result()
    assert 0.9 < results["PDS"] <= 1
    assert_scores_match_core(results, "T3", qp_sheet.gt_csv, qp_sheet.out / "intersections.csv",
                             qp_sheet.out / "t3-core", {"PDS": "global_mean_score"})


def test_refitgcps_writes_what_core_gcps_only_writes(runs, synthetic):
    """The review's last step in QGIS's runtime gives the numbers and the .points file of
    ``python -m core.georef --gcps-only --outliers none`` in the venv's."""
    from core.formats.qgis_points import read_points_file
    from core.georef.__main__ import main as georef_cli

    qp_sheet = synthetic
    results = runs["refitgcps"].result()
    kind = "affine"
    gcps = read_points_file(qp_sheet.points)
    cli = qp_sheet.out / "refit-core"
    assert georef_cli([str(qp_sheet.image), "--crs", "EPSG:2154", "--grid-crs", gcps.crs,
                       "--gcps", str(qp_sheet.points), "--gcps-only", "--outliers", "none",
                       "--transform", kind, "--mask", str(qp_sheet.mask), "-o", str(cli)]) == 0
    report = json.loads(next(cli.glob("*.report.json")).read_text())
    assert results["USED"] == report["summary"]["used"] == int(gcps.enabled.sum())
    assert results["RMSE_PX"] == pytest.approx(report["summary"]["rmse_px"], rel=1e-9, abs=1e-9)
    ours, theirs = (read_points_file(next(d.glob("*.points")))
                    for d in (qp_sheet.out / "refit", cli))
    assert np.allclose(ours.map_xy, theirs.map_xy, rtol=0, atol=1e-6)
    assert np.array_equal(ours.pixel_xy, theirs.pixel_xy)
    assert srs_code(results["OUTPUT_RASTER"]) == "2154"


def srs_code(raster: str) -> str:
    """The authority code of a raster's CRS."""
    return osr.SpatialReference(wkt=gdal.Open(raster).GetProjection()).GetAuthorityCode(None)


def test_a_crash_fails_the_test_with_the_end_of_stderr():
    crash = "import os, signal, sys; print('last words', file=sys.stderr, flush=True); " \
            "os.kill(os.getpid(), signal.SIGSEGV)"
    run = subprocess.run([sys.executable, "-c", crash], capture_output=True, text=True,
                         check=False)
    with pytest.raises(pytest.fail.Exception, match=r"(?s)crashed with exit code -11.*last words"):
        check_completed(run, "python")
    run.returncode = 139  # what a shell reports for the same crash
    with pytest.raises(pytest.fail.Exception, match="crashed with exit code 139"):
        check_completed(run, "python")
    run.returncode = 1
    with pytest.raises(pytest.fail.Exception, match="failed with exit code 1"):
        check_completed(run, "python")
