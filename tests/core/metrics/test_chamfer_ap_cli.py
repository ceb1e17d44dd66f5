"""``python -m core.metrics chamfer-ap``: challenge JSON files, OGR layers, errors, outputs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from osgeo import ogr, osr

from core.cli import EXIT_BAD_INPUT, EXIT_OK, run_cli
from core.metrics.__main__ import main as metrics_main

AP_KEYS = ("AP@0.5", "AP@1.0", "AP@1.5", "AP")
CLASSES = ("ped_crossing", "divider", "boundary")


def run(*args):
    return run_cli(metrics_main, ["chamfer-ap", *map(str, args)])


@pytest.fixture(scope="module")
def cases(shared):
    root = shared / "fixtures" / "chamfer_ap"
    return root, json.loads((root / "expected.json").read_text())


def write_layer(path, features, *, driver="GPKG", layer="lines", fields=None, epsg=None,
                mode="w"):
    """features: [(wkt or None, {field: value})]; fields: {name: ogr field type}."""
    drv = ogr.GetDriverByName(driver)
    ds = drv.CreateDataSource(str(path)) if mode == "w" else ogr.Open(str(path), 1)
    srs = None
    if epsg:
        srs = osr.SpatialReference()
        srs.ImportFromEPSG(epsg)
    lyr = ds.CreateLayer(layer, srs, ogr.wkbUnknown)
    for name, kind in (fields or {}).items():
        lyr.CreateField(ogr.FieldDefn(name, kind))
    for wkt, values in features:
        feat = ogr.Feature(lyr.GetLayerDefn())
        if wkt is not None:
            feat.SetGeometry(ogr.CreateGeometryFromWkt(wkt))
        for name, value in values.items():
            feat.SetField(name, value)
        lyr.CreateFeature(feat)
    ds = None  # closes and flushes the file
    return path


def wkt_line(points):
    return "LINESTRING (" + ", ".join(f"{p[0]!r} {p[1]!r}" for p in points) + ")"


def wkt_polygon(points):
    return "POLYGON ((" + ", ".join(f"{p[0]!r} {p[1]!r}" for p in points) + "))"


def case_as_layers(case_dir, tmp_path, driver, suffix, polygons=False):
    """A fixture case written as GT and prediction layers (fields token, class, score)."""
    gt = json.loads((case_dir / "gt.json").read_text())
    pred = json.loads((case_dir / "pred.json").read_text())
    fields = {"token": ogr.OFTString, "class": ogr.OFTString, "score": ogr.OFTReal}
    gt_features = []
    for frames in gt.values():
        for frame in frames:
            token = frame["timestamp"]
            n_lines = 0
            for cls in CLASSES:
                for line in frame["annotation"][cls]:
                    closed = len(line) > 3 and line[0][:2] == line[-1][:2]
                    wkt = (wkt_polygon if polygons and closed else wkt_line)(line)
                    gt_features.append((wkt, {"token": token, "class": cls}))
                    n_lines += 1
            if n_lines == 0:  # a frame without GT lines: declared by a feature without geometry
                gt_features.append((None, {"token": token, "class": "divider"}))
    pred_features = []
    for token, entry in pred["results"].items():
        pred_features += [
            (wkt_line(vector), {"token": token, "class": CLASSES[label], "score": score})
            for vector, score, label in zip(entry["vectors"], entry["scores"], entry["labels"],
                                            strict=True)]
        if not entry["vectors"]:  # a token with no predictions: declared without geometry
            pred_features.append((None, {"token": token}))
    gt_path = write_layer(tmp_path / f"gt{suffix}", gt_features, driver=driver, fields=fields)
    pred_path = write_layer(tmp_path / f"pred{suffix}", pred_features, driver=driver,
                            fields=fields)
    return gt_path, pred_path


def assert_reference(out, exp, classes=CLASSES):
    assert out["mAP"] == pytest.approx(exp["mAP"], abs=1e-9)
    for cls in classes:
        assert out[cls]["num_gts"] == exp[cls]["num_gts"]
        assert out[cls]["num_preds"] == exp[cls]["num_preds"]
        for key in AP_KEYS:
            assert out[cls][key] == pytest.approx(exp[cls][key], abs=1e-9)


def test_cli_on_challenge_files_official_json(cases, tmp_path, capsys):
    root, expected = cases
    case = "c10_edge_greedy_score_order"
    out_path = tmp_path / "out" / "result.json"
    rc = run(root / case / "gt.json", root / case / "pred.json", "--official", "--json",
             out_path, "--per-frame")
    assert rc == EXIT_OK
    out = json.loads(out_path.read_text())
    assert_reference(out, expected[case])
    assert out["stats"] == {**expected[case]["stats"], "mixed_tie_groups": 0}
    assert out["settings"]["mode"] == "official"
    assert list(out["per_frame"]) == list(expected[case]["per_frame"])
    printed = capsys.readouterr()
    assert f"mAP = {expected[case]['mAP']:.4f}" in printed.out
    assert "ped_crossing" in printed.err  # the class without GT is reported


def test_cli_default_mode_reports_null_for_class_without_gt(cases, tmp_path, capsys):
    root, expected = cases
    case = "c04_edge_class_without_gt"
    out_path = tmp_path / "r.json"
    assert run(root / case / "gt.json", root / case / "pred.json", "--json", out_path) == 0
    out = json.loads(out_path.read_text())
    assert out["ped_crossing"]["AP"] is None
    assert out["mAP"] == pytest.approx((expected[case]["divider"]["AP"]
                                        + expected[case]["boundary"]["AP"]) / 2, abs=1e-9)
    assert "n/a" in capsys.readouterr().out


def test_geopackage_layers_reproduce_the_reference(cases, tmp_path):
    """c07 (missing, extra and empty tokens) as GeoPackage layers with a frame field."""
    root, expected = cases
    case = "c07_edge_tokens"
    gt, pred = case_as_layers(root / case, tmp_path, "GPKG", ".gpkg")
    out_path = tmp_path / "r.json"
    assert run(gt, pred, "--frame-field", "token", "--official", "--json", out_path) == 0
    out = json.loads(out_path.read_text())
    assert_reference(out, expected[case])
    stats = expected[case]["stats"]
    for key in ("frames", "frames_without_gt", "missing_tokens", "extra_tokens", "gt_points"):
        assert out["stats"][key] == stats[key], key
    assert out["settings"]["sample_dist"] == 0.3


def test_geojson_polygons_are_closed_rings(cases, tmp_path):
    """c17: closed ped-crossing rings written as GeoJSON polygons score as the rings."""
    root, expected = cases
    case = "c17_closed_polygons"
    gt, pred = case_as_layers(root / case, tmp_path, "GeoJSON", ".geojson", polygons=True)
    assert "Polygon" in gt.read_text()
    out_path = tmp_path / "r.json"
    assert run(gt, pred, "--frame-field", "token", "--official", "--json", out_path) == 0
    out = json.loads(out_path.read_text())
    assert_reference(out, expected[case])
    assert out["stats"]["closed_gt_lines"] == expected[case]["stats"]["closed_gt_lines"]


def test_layer_options_multi_geometries_one_class_and_no_score(tmp_path):
    gt = write_layer(tmp_path / "gt.geojson", [
        ("MULTILINESTRING ((0 0, 100 0), (0 50, 100 50))", {"kind": "graticule"}),
        ("LINESTRING (0 0, 0 50)", {"kind": "graticule"}),
    ], driver="GeoJSON", fields={"kind": ogr.OFTString})
    pred = write_layer(tmp_path / "pred.geojson", [
        ("LINESTRING (0 3, 100 3)", {"kind": "graticule", "conf": 0.9}),
        ("LINESTRING Z (0 50 7, 100 50 7)", {"kind": "graticule", "conf": 0.8}),
        ("POINT (1 1)", {"kind": "graticule", "conf": 0.1}),
    ], driver="GeoJSON", fields={"kind": ogr.OFTString, "conf": ogr.OFTReal})
    out_path = tmp_path / "r.json"
    # the point is refused with the feature named
    assert run(gt, pred, "--class-field", "kind", "--score-field", "conf") == EXIT_BAD_INPUT
    pred = write_layer(tmp_path / "pred2.geojson", [
        ("LINESTRING (0 3, 100 3)", {"kind": "graticule", "conf": 0.9}),
        ("LINESTRING Z (0 50 7, 100 50 7)", {"kind": "graticule", "conf": 0.8}),
    ], driver="GeoJSON", fields={"kind": ogr.OFTString, "conf": ogr.OFTReal})
    rc = run(gt, pred, "--class-field", "kind", "--score-field", "conf", "--thresholds",
             "2,5", "--json", out_path)
    assert rc == EXIT_OK
    out = json.loads(out_path.read_text())
    assert out["graticule"]["num_gts"] == 3  # the multi-line gives two lines
    # at 2: the higher-scored line 3 away is a FP, the exact copy a TP: 1/3 recall at 1/2
    assert out["graticule"]["AP@2.0"] == pytest.approx(1 / 6)
    assert out["graticule"]["AP@5.0"] == pytest.approx(2 / 3)
    assert out["settings"]["sample_dist"] == pytest.approx(1.2)  # 0.6 x 2
    assert run(gt, pred, "--one-class", "--no-score", "--thresholds", "5", "--json",
               out_path) == EXIT_OK
    out = json.loads(out_path.read_text())
    assert out["all"]["AP@5.0"] == pytest.approx(2 / 3)
    assert any("no scores" in w for w in out["warnings"])


@pytest.mark.parametrize(("args", "message"), [
    (["--class-field", "nope"], "no field 'nope'"),
    (["--gt-layer", "missing"], "no layer 'missing'"),
    (["--thresholds", "a,b"], "--thresholds"),
    (["--one-class", "--class-field", "class"], "not both"),
])
def test_layer_errors_exit_2_without_output(tmp_path, capsys, args, message):
    gt = write_layer(tmp_path / "gt.gpkg", [("LINESTRING (0 0, 1 1)", {"class": "a"})],
                     fields={"class": ogr.OFTString})
    pred = write_layer(tmp_path / "pred.gpkg", [("LINESTRING (0 0, 1 1)",
                                                 {"class": "a", "score": 0.5})],
                       fields={"class": ogr.OFTString, "score": ogr.OFTReal})
    out_path = tmp_path / "r.json"
    assert run(gt, pred, *args, "--json", out_path) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not out_path.exists()
    assert not list(tmp_path.glob(".r*"))  # no temporary file left either


def test_layers_with_other_crs_or_several_layers_are_refused(tmp_path, capsys):
    fields = {"class": ogr.OFTString, "score": ogr.OFTReal}
    gt = write_layer(tmp_path / "gt.gpkg", [("LINESTRING (0 0, 1 1)", {"class": "a"})],
                     fields=fields, epsg=2154)
    pred = write_layer(tmp_path / "pred.gpkg", [("LINESTRING (0 0, 1 1)",
                                                 {"class": "a", "score": 0.5})],
                       fields=fields, epsg=3857)
    assert run(gt, pred) == EXIT_BAD_INPUT
    assert "different coordinate reference systems" in capsys.readouterr().err
    write_layer(gt, [("LINESTRING (0 0, 1 1)", {"class": "a"})], fields=fields, layer="other",
                epsg=2154, mode="a")
    assert run(gt, pred) == EXIT_BAD_INPUT
    assert "choose one with --gt-layer" in capsys.readouterr().err


def test_mixed_inputs_and_layer_options_on_json_are_refused(cases, tmp_path, capsys):
    root, _ = cases
    case = root / "c01_edge_threshold_boundaries"
    layer = write_layer(tmp_path / "p.gpkg", [("LINESTRING (0 0, 1 1)", {"class": "a"})],
                        fields={"class": ogr.OFTString})
    assert run(case / "gt.json", layer) == EXIT_BAD_INPUT
    assert "two challenge JSON files or two layers" in capsys.readouterr().err
    assert run(case / "gt.json", case / "pred.json", "--frame-field", "t") == EXIT_BAD_INPUT
    assert "only apply to layers" in capsys.readouterr().err
    assert run(case / "gt.json", tmp_path / "missing.json") == EXIT_BAD_INPUT
    assert "no such file" in capsys.readouterr().err


def test_python_dash_m_entry_point(cases, tmp_path):
    root, expected = cases
    case = "c05_edge_no_predictions"
    proc = subprocess.run([sys.executable, "-m", "core.metrics", "chamfer-ap",
                           str(root / case / "gt.json"), str(root / case / "pred.json")],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "mAP = 0.0000" in proc.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    proc = subprocess.run([sys.executable, "-m", "core.metrics", "chamfer-ap", str(bad),
                           str(bad)], capture_output=True, text=True, check=False)
    assert proc.returncode == EXIT_BAD_INPUT
    assert proc.stderr.startswith("error: ") and "not valid JSON" in proc.stderr


def test_read_layers_polygon_holes_curves_and_frames(tmp_path):
    from core.metrics.chamfer_ap import LayerFields, read_layers

    fields = {"sheet": ogr.OFTInteger, "class": ogr.OFTString, "score": ogr.OFTReal}
    gt = write_layer(tmp_path / "gt.gpkg", [
        ("POLYGON ((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 3 2, 3 3, 2 2))",
         {"sheet": 1, "class": "block"}),
        ("CIRCULARSTRING (0 0, 5 5, 10 0)", {"sheet": 1, "class": "street"}),
        (None, {"sheet": 2}),  # sheet 2 has no GT lines
    ], fields=fields)
    pred = write_layer(tmp_path / "pred.gpkg", [
        ("MULTIPOLYGON (((0 0, 10 0, 10 10, 0 10, 0 0)), ((20 20, 21 20, 21 21, 20 20)))",
         {"sheet": 1, "class": "block", "score": 0.5}),
        ("LINESTRING (0 0, 1 1)", {"sheet": 2, "class": "street", "score": 0.7}),
    ], fields=fields)
    inp = read_layers(gt, pred, fields=LayerFields(frame_field="sheet"))
    assert list(inp.gt_frames) == ["1", "2"] and inp.gt_frames["2"] == {}
    (block,) = inp.gt_frames["1"]["block"]  # the hole is ignored
    assert block.tolist() == [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]]
    (arc,) = inp.gt_frames["1"]["street"]
    assert len(arc) > 10 and arc[len(arc) // 2] == pytest.approx([5, 5], abs=0.5)
    assert [p.label for p in inp.pred_frames["1"]] == ["block", "block"]
    assert inp.classes == ("block", "street")
    assert any("without geometry" in note for note in inp.notes)
