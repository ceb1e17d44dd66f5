"""Every Processing algorithm of the provider runs end to end through processing.run."""

from __future__ import annotations

import json

import numpy as np
import pytest
from plugin_test_helpers import SPACING_PX, read_anchor

pytestmark = pytest.mark.qgis

PROVIDER = "graticule_georeferencer"


def _features(layer_or_id, context=None):
    from qgis.core import QgsProcessingUtils, QgsVectorLayer

    layer = layer_or_id
    if not isinstance(layer, QgsVectorLayer):
        layer = QgsProcessingUtils.mapLayerFromString(layer_or_id, context)
    return layer, list(layer.getFeatures())


def test_provider_lists_one_algorithm_per_capability(processing_provider):
    ids = {alg.name() for alg in processing_provider.algorithms()}
    assert ids >= {"detectgraticule", "georeference", "maparea", "buildingblocks", "evaluatet1",
                   "evaluatet2", "evaluatet3"}
    for alg in processing_provider.algorithms():
        assert alg.displayName() and alg.shortHelpString() and alg.group()
        assert alg.createInstance().name() == alg.name()


def test_detect_graticule_points_and_csv(processing_provider, sheet, tmp_path):
    import processing

    from core.formats.mapseg_csv import read_points_csv

    csv = tmp_path / "001-OUTPUT-PRED.csv"
    res = processing.run(f"{PROVIDER}:detectgraticule",
                         {"INPUT": str(sheet["image"]), "OUTPUT": "memory:",
                          "OUTPUT_CSV": str(csv)})
    layer, feats = _features(res["OUTPUT"])
    truth = read_points_csv(sheet["gt_csv"])
    assert res["COUNT"] == len(feats) >= 4
    # SPACING is the distance between neighbouring detected intersections
    px = np.array([[f["pixel_x"], f["pixel_y"]] for f in feats])
    gaps = np.hypot(*(px[:, None, :] - px[None]).transpose(2, 0, 1))
    np.fill_diagonal(gaps, np.inf)
    assert res["SPACING"] == pytest.approx(np.median(gaps.min(axis=1)), rel=0.02)
    # the sheet has no georeferencing: QGIS shows core pixel (x, y) at (x + 0.5, -(y + 0.5))
    for f in feats:
        p = f.geometry().asPoint()
        assert (p.x(), p.y()) == pytest.approx((f["pixel_x"] + 0.5, -(f["pixel_y"] + 0.5)))
    # ground truth is in the corner convention (top-left pixel centre at 0.5, 0.5)
    pts = np.array([[f.geometry().asPoint().x(), -f.geometry().asPoint().y()] for f in feats])
    nearest = np.min(np.hypot(*(pts[:, None, :] - truth[None]).transpose(2, 0, 1)), axis=1)
    assert np.max(nearest) < 3.0
    assert {f.name() for f in layer.fields()} >= {"column", "row", "confidence"}
    # pixel coordinates: an engineering CRS, not QGIS's default EPSG:4326
    assert not layer.crs().isGeographic() and layer.crs().authid() == ""
    assert layer.crs().description() == "Undefined Cartesian SRS"
    written = read_points_csv(csv)
    assert len(written) == sum(1 for f in feats if f["visible"])


def _detect_and_score_model():
    """A model chaining detection and the T3 score, as built in the model designer."""
    from qgis.core import (
        QgsProcessingModelAlgorithm,
        QgsProcessingModelChildAlgorithm,
        QgsProcessingModelChildParameterSource,
        QgsProcessingModelOutput,
        QgsProcessingModelParameter,
        QgsProcessingParameterFile,
        QgsProcessingParameterRasterLayer,
    )

    source = QgsProcessingModelChildParameterSource
    model = QgsProcessingModelAlgorithm("detect and score", "tests")
    model.addModelParameter(QgsProcessingParameterRasterLayer("sheet", "Sheet"),
                            QgsProcessingModelParameter("sheet"))
    model.addModelParameter(QgsProcessingParameterFile("truth", "Truth"),
                            QgsProcessingModelParameter("truth"))
    detect = QgsProcessingModelChildAlgorithm(f"{PROVIDER}:detectgraticule")
    detect.setChildId("detect")
    detect.addParameterSources("INPUT", [source.fromModelParameter("sheet")])
    csv_output = QgsProcessingModelOutput("csv", "Detected CSV")
    csv_output.setChildOutputName("OUTPUT_CSV")
    detect.setModelOutputs({"csv": csv_output})
    model.addChildAlgorithm(detect)
    score = QgsProcessingModelChildAlgorithm(f"{PROVIDER}:evaluatet3")
    score.setChildId("score")
    score.addParameterSources("REFERENCE", [source.fromModelParameter("truth")])
    score.addParameterSources("PREDICTION", [source.fromChildOutput("detect", "OUTPUT_CSV")])
    folder_output = QgsProcessingModelOutput("scores", "Scores")
    folder_output.setChildOutputName("OUTPUT_FOLDER")
    score.setModelOutputs({"scores": folder_output})
    model.addChildAlgorithm(score)
    return model


def test_model_chains_detection_and_t3_score(processing_provider, sheet, tmp_path):
    import processing

    model = _detect_and_score_model()
    csv = tmp_path / "001-OUTPUT-PRED.csv"
    out = tmp_path / "t3"
    res = processing.run(model, {"sheet": str(sheet["image"]), "truth": str(sheet["gt_csv"]),
                                 "detect:csv": str(csv), "score:scores": str(out)})
    assert res["detect:csv"] == str(csv) and csv.is_file()
    from core.formats.mapseg_csv import read_points_csv
    from core.metrics.point_detection import pds

    summary = json.loads((out / "global_score.json").read_text())
    expected = pds(read_points_csv(sheet["gt_csv"]), read_points_csv(csv)).score
    assert summary["global_mean_score"] == pytest.approx(expected) and expected > 0.5
    assert summary["predictions"] == [str(csv)]


def test_georeference_raster_extent_crs_and_residual_points(processing_provider, sheet,
                                                            tmp_path):
    import processing
    from qgis.core import (
        QgsCoordinateReferenceSystem,
        QgsCoordinateTransform,
        QgsPointXY,
        QgsProject,
        QgsRasterLayer,
    )

    from core.synth.params import PARIS_GRID_CRS

    x, y, e, n = read_anchor(sheet["points"])
    out = tmp_path / "georef"
    res = processing.run(f"{PROVIDER}:georeference", {
        "INPUT": str(sheet["image"]), "SPACING": 1000.0, "ANCHORS": f"{x},{y}={e},{n}",
        "CRS": "EPSG:2154", "TRANSFORM": 1, "OUTPUT_FOLDER": str(out),
        "OUTPUT_POINTS": "memory:"})
    raster = QgsRasterLayer(res["OUTPUT_RASTER"], "r")
    assert raster.isValid()
    assert raster.crs().authid() == "EPSG:2154"
    assert res["RMSE_PX"] < 1.5
    meta = json.loads(sheet["json"].read_text())
    grid = QgsCoordinateReferenceSystem.fromProj(PARIS_GRID_CRS)
    to_l93 = QgsCoordinateTransform(grid, raster.crs(), QgsProject.instance())
    layer, feats = _features(res["OUTPUT_POINTS"])
    assert layer.crs().authid() == "EPSG:2154"
    assert res["USED"] == sum(1 for f in feats if f["used"]) >= 4
    assert len(feats) <= meta["intersections"] + len(meta["hidden_intersections"])
    for f in feats:
        expected = to_l93.transform(QgsPointXY(f["easting"], f["northing"]))
        p = f.geometry().asPoint()
        assert p.distance(expected) < 1e-3
        assert f["residual_px"] < 3.0
        # the grid index of detection names the node: easting grows with the column
        assert f["column"] is not None and f["row"] is not None
    by_index = {(f["column"], f["row"]): (f["easting"], f["northing"]) for f in feats}
    (c0, r0), (e0, n0) = next(iter(by_index.items()))
    for (c, r), (east, north) in by_index.items():
        assert (east - e0, north - n0) == pytest.approx((1000.0 * (c - c0), -1000.0 * (r - r0)))
    ext = raster.extent()
    corner = to_l93.transform(QgsPointXY(e, n))
    assert ext.contains(corner)
    assert ext.width() == pytest.approx(2500 * 1000.0 / SPACING_PX, rel=0.01)
    assert (out / "001-INPUT.points").is_file() and res["REPORT"].endswith(".html")


def test_map_area_mask_scored_with_t2(processing_provider, sheet, tmp_path):
    import processing

    from core.imageio import image_size, read_mask

    mask = tmp_path / "001-OUTPUT-PRED.png"
    res = processing.run(f"{PROVIDER}:maparea", {"INPUT": str(sheet["image"]),
                                                 "OUTPUT": str(mask)})
    assert res["OUTPUT"] == str(mask)
    predicted = read_mask(mask)
    truth = read_mask(sheet["mask"])
    assert predicted.shape[::-1] == image_size(sheet["image"])
    assert res["FRACTION"] == pytest.approx(predicted.mean())
    assert res["FRACTION"] == pytest.approx(truth.mean(), abs=0.05)
    out = tmp_path / "t2"
    score = processing.run(f"{PROVIDER}:evaluatet2", {"REFERENCE": str(sheet["mask"]),
                                                      "PREDICTION": str(mask),
                                                      "OUTPUT_FOLDER": str(out)})
    assert 0 <= score["HD95"] < 30
    summary = json.loads((out / "global_error.json").read_text())
    assert summary["global_mean_error"] == pytest.approx(score["HD95"])


def test_cancel_stops_an_algorithm_and_writes_nothing(processing_provider, sheet, tmp_path):
    import processing
    from qgis.core import QgsProcessingFeedback

    feedback = QgsProcessingFeedback()
    seen = []

    def cancel_at_first_progress(value):
        seen.append(value)
        feedback.cancel()

    feedback.progressChanged.connect(cancel_at_first_progress)
    out = tmp_path / "georef"
    res = processing.run(f"{PROVIDER}:georeference", {
        "INPUT": str(sheet["image"]), "ANCHORS": "0,0=0,0", "CRS": "EPSG:2154",
        "OUTPUT_FOLDER": str(out), "OUTPUT_POINTS": "memory:"}, feedback=feedback)
    assert seen and feedback.isCanceled()
    assert "RMSE_PX" not in res and "OUTPUT_RASTER" not in res
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("bad", ["nonsense", "EPSG:999999", "+proj=foo"])
def test_an_unknown_grid_crs_is_an_error_that_names_it(processing_provider, sheet, tmp_path,
                                                       bad):
    import processing
    from qgis.core import QgsProcessingException

    out = tmp_path / "georef"
    with pytest.raises(QgsProcessingException) as err:
        processing.run(f"{PROVIDER}:georeference", {
            "INPUT": str(sheet["image"]), "GRID_CRS": bad, "CRS": "EPSG:2154",
            "OUTPUT_FOLDER": str(out), "OUTPUT_POINTS": "memory:"})
    assert bad in str(err.value) and "Grid CRS" in str(err.value)
    assert not out.exists() or not any(out.iterdir())


def test_core_errors_name_the_form_fields(processing_provider, sheet, tmp_path):
    import processing
    from qgis.core import QgsProcessingException

    x, y, e, n = read_anchor(sheet["points"])
    with pytest.raises(QgsProcessingException) as err:
        processing.run(f"{PROVIDER}:georeference", {
            "INPUT": str(sheet["image"]), "ANCHORS": f"{x},{y}={e},{n}", "SPACING": 1000.0,
            "CRS": "EPSG:2154", "TRANSFORM": 4, "THRESHOLD": 0,
            "OUTPUT_FOLDER": str(tmp_path / "g"), "OUTPUT_POINTS": "memory:"})
    text = str(err.value)
    assert "--" not in text and "“Transform”" in text, text


def test_refit_gcps_writes_what_the_cli_writes_for_a_points_file(processing_provider, sheet,
                                                                  tmp_path):
    """The review's last step scripted: a .points file with one point disabled in, the
    files of ``core.georef --gcps-only --outliers none`` out."""
    import processing

    from core.formats.qgis_points import read_points_file, write_points_file
    from core.georef.__main__ import main as georef_cli

    gcps = read_points_file(sheet["points"])
    gcps.enabled[2] = False
    points = tmp_path / "reviewed.points"
    write_points_file(points, gcps)
    res = processing.run(f"{PROVIDER}:refitgcps", {
        "INPUT": str(sheet["image"]), "GCPS": str(points), "CRS": "EPSG:2154",
        "TRANSFORM": 1, "OUTPUT_FOLDER": str(tmp_path / "alg"), "OUTPUT_POINTS": "memory:"})
    assert georef_cli([str(sheet["image"]), "--crs", "EPSG:2154", "--grid-crs", gcps.crs,
                       "--gcps", str(points), "--gcps-only", "--outliers", "none",
                       "-o", str(tmp_path / "cli")]) == 0
    report = json.loads((tmp_path / "cli" / "001-INPUT.report.json").read_text())
    assert res["RMSE_PX"] == report["summary"]["rmse_px"]
    assert res["USED"] == len(gcps) - 1 == report["summary"]["used"]
    assert (tmp_path / "alg" / "001-INPUT.points").read_bytes() == \
        (tmp_path / "cli" / "001-INPUT.points").read_bytes()
    layer, feats = _features(res["OUTPUT_POINTS"])
    assert [bool(f["used"]) for f in feats] == gcps.enabled.tolist()
