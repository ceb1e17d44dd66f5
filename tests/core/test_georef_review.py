"""core.georef.review: a run opened for review, refitted as --gcps-only fits, saved as the
command line writes, a refused sheet named from one typed crossing."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.formats.qgis_points import read_points_file, write_points_file
from core.georef import georeference
from core.georef.__main__ import main as georef_cli
from core.georef.crs import parse_crs, same_crs
from core.georef.grid_labels import CENTRE_TO_CORNER, graticule_from_points
from core.georef.review import (
    ReviewPoints,
    name_crossings,
    nearest_crossing,
    open_review,
    refit,
    refused_review,
    save_review,
)
from core.gridlabels import LabelsUnreadableError


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A generated tilted sheet (grid every 500 px), georeferenced from one anchor into
    Lambert-93 with the Paris atlas grid: (sheet, its files, the result)."""
    from core.synth import generate_sheet, write_sheet

    tmp = tmp_path_factory.mktemp("review")
    sheet = generate_sheet(7, 1800, spacing_px=500.0, difficulty=0.2, orientation="tilted",
                           tilt_deg=3.0)
    paths = write_sheet(sheet, tmp, "007")
    graticule = graticule_from_points(sheet.intersections, sheet.grid_index(),
                                      sheet.image.shape[1::-1])
    k = len(sheet.intersections) // 2
    x, y = sheet.intersections[k] + CENTRE_TO_CORNER
    e, n = sheet.grid_xy[k]
    result = georeference(paths["image"], "EPSG:2154", grid_crs="paris-atlas",
                          anchors=[f"{x},{y}={e},{n}"], gcps=False, graticule=graticule,
                          outdir=tmp / "007-INPUT_georef")
    return sheet, paths, result


def test_a_run_opens_with_its_points_grid_values_and_detection_index(run):
    sheet, paths, result = run
    review = open_review(result.outputs["tif"].parent)
    assert review.sheet == paths["image"] and review.transform == "affine"
    assert same_crs(parse_crs(review.grid_crs), parse_crs("paris-atlas"))
    assert same_crs(parse_crs(review.crs), parse_crs("EPSG:2154"))
    assert np.array_equal(review.points.pixel_xy, result.pixel_xy)
    assert np.array_equal(review.points.grid_xy, sheet.grid_xy)
    assert np.array_equal(review.points.index, result.grid_index)
    assert review.points.used.tolist() == result.inliers.tolist()
    assert review.mask == paths["mask"] and not review.refused
    # the sheet and the report open the same run
    for other in (paths["image"], result.outputs["json"]):
        assert open_review(other).points.same_as(review.points)
    fit = refit(review.points, review.crs, review.grid_crs, review.transform)
    assert fit.rmse_px == pytest.approx(result.rmse_px, abs=1e-9)
    assert np.allclose(fit.residual_px, result.residual_px)


def test_refit_of_a_disabled_point_is_the_cli_gcps_only_fit(run, tmp_path, capsys):
    _sheet, paths, result = run
    review = open_review(result.outputs["tif"].parent)
    points = review.points.with_used(3, False).with_pixel(5, *(review.points.pixel_xy[5]
                                                               + [4.0, -3.0]))
    fit = refit(points, review.crs, review.grid_crs, "affine")
    assert not fit.used[3] and fit.used.sum() == len(points) - 1
    assert np.isfinite(fit.residual_px[3]).all()       # a disabled point keeps a residual
    gcps = tmp_path / "edited.points"
    write_points_file(gcps, points.as_gcps(review.grid_crs))
    for extra in ([], ["--outliers", "none"]):
        out = tmp_path / f"cli{len(extra)}"
        assert georef_cli([str(paths["image"]), "--crs", "EPSG:2154", "--grid-crs",
                           "paris-atlas", "--gcps", str(gcps), "--gcps-only", "-o", str(out),
                           *extra]) == 0
        report = json.loads((out / "007-INPUT.report.json").read_text())
        assert report["summary"]["rmse_px"] == pytest.approx(fit.rmse_px, rel=1e-12)
        assert report["summary"]["rmse_map"] == pytest.approx(fit.rmse_map, rel=1e-12)
        cli_res = np.array([[g["residual_px"]["dx"], g["residual_px"]["dy"]]
                            for g in report["gcps"]])
        assert np.allclose(cli_res, fit.residual_px, atol=1e-9)
        assert [g["used"] for g in report["gcps"]] == fit.used.tolist()
    capsys.readouterr()


def test_save_writes_the_files_the_cli_writes(run, tmp_path, capsys):
    from osgeo import gdal

    _sheet, paths, result = run
    review = open_review(result.outputs["tif"].parent)
    points = review.points.with_used(0, False)
    saved = save_review(review, points, "poly2", outdir=tmp_path / "saved")
    gcps = tmp_path / "edited.points"
    write_points_file(gcps, points.as_gcps(review.grid_crs))
    cli = tmp_path / "cli"
    assert georef_cli([str(paths["image"]), "--crs", "EPSG:2154", "--grid-crs", "paris-atlas",
                       "--gcps", str(gcps), "--gcps-only", "--outliers", "none",
                       "--transform", "poly2", "--spacing", str(review.spacing),
                       "-o", str(cli)]) == 0
    capsys.readouterr()
    names = {p.name for p in saved.outputs.values()}
    assert names == {p.name for p in cli.iterdir()}
    for name in names - {"007-INPUT.report.json", "007-INPUT.report.html", "007-INPUT.vrt",
                         "007-INPUT.tif"}:
        assert (tmp_path / "saved" / name).read_bytes() == (cli / name).read_bytes(), name
    ours, theirs = (json.loads((d / "007-INPUT.report.json").read_text())
                    for d in (tmp_path / "saved", cli))
    for report in (ours, theirs):
        report.pop("outputs"), report.pop("gcp_file")
    assert ours == theirs
    a, b = (gdal.Open(str(d / "007-INPUT.tif")) for d in (tmp_path / "saved", cli))
    assert np.array_equal(a.ReadAsArray(), b.ReadAsArray())
    assert a.GetGeoTransform() == b.GetGeoTransform()
    # the saved .points keeps the disabled point, disabled
    back = read_points_file(saved.outputs["points"])
    assert back.enabled.tolist() == points.used.tolist()


def test_saving_a_warped_kind_over_an_affine_run_removes_its_world_file(run, tmp_path):
    import shutil

    _sheet, _paths, result = run
    folder = tmp_path / "copy"
    shutil.copytree(result.outputs["tif"].parent, folder)
    review = open_review(folder)
    world = folder / "007-INPUT.jgw"
    assert world.is_file()
    saved = save_review(review, review.points, "poly2")
    assert saved.outputs["tif"].parent == folder and not world.exists()


def test_a_points_file_opens_in_its_own_crs(tmp_path, shared):
    import shutil

    jacoubet = shared / "data" / "jacoubet-1836"
    shutil.copy(jacoubet / "020-GT.points", tmp_path / "020-INPUT.points")
    (tmp_path / "020-INPUT.jpg").symlink_to(jacoubet / "020-INPUT.jpg")
    review = open_review(tmp_path / "020-INPUT.points", crs="EPSG:2154")
    toise = parse_crs((jacoubet / "CRS.proj").read_text())
    assert same_crs(parse_crs(review.grid_crs), toise)
    assert review.sheet == tmp_path / "020-INPUT.jpg"
    assert review.points.grid_xy[0].tolist() == [-3000.0, 3750.0]
    fit = refit(review.points, review.crs, review.grid_crs, "affine")
    assert fit.ok and fit.rmse_map < 5.0                # metres: about a toise


def test_a_refusal_carries_its_detection_and_one_typed_crossing_names_them_all(tmp_path):
    from core.synth import generate_sheet, write_sheet

    sheet = generate_sheet(3, 1600, spacing_px=450.0, difficulty=0.0, margin_labels="none")
    paths = write_sheet(sheet, tmp_path, "003")
    paths["points"].unlink()
    graticule = graticule_from_points(sheet.intersections, sheet.grid_index(),
                                      sheet.image.shape[1::-1])
    with pytest.raises(LabelsUnreadableError) as refused:
        georeference(paths["image"], "EPSG:2154", grid_crs="paris-atlas", graticule=graticule,
                     outdir=tmp_path / "out")
    assert refused.value.graticule is graticule and not (tmp_path / "out").exists()
    review = refused_review(paths["image"], refused.value, crs="EPSG:2154",
                            grid_crs="paris-atlas")
    assert review.refused and len(review.points) == len(sheet.intersections)
    assert not review.points.known.any() and not review.points.used.any()
    fit = refit(review.points, review.crs, review.grid_crs)
    assert not fit.ok
    with pytest.raises(InputError, match="type the easting"):
        save_review(review, review.points, "affine")
    # one crossing typed: every crossing named, as the truth says
    k = 4
    typed = review.points.with_grid(k, *sheet.grid_xy[k])
    named, warnings = name_crossings(review, typed)
    assert np.array_equal(named.grid_xy, sheet.grid_xy) and named.used.all()
    assert any("north-up" in w for w in warnings)
    fit = refit(named, review.crs, review.grid_crs)
    assert fit.ok and fit.rmse_px < 1.0


def test_points_snap_to_the_nearest_crossing_within_a_quarter_cell(run):
    _sheet, _paths, result = run
    review = open_review(result.outputs["tif"].parent)
    x, y = review.crossings[2]
    assert nearest_crossing(review, (x + 30.0, y - 40.0)) == (x, y)
    assert nearest_crossing(review, (x + 200.0, y)) is None        # 500 px cells
    assert nearest_crossing(review, (x + 200.0, y), max_px=250.0) == (x, y)


def test_snapshots_are_immutable_and_compare_with_nan(run):
    points = ReviewPoints([[0, 0], [1, 1]], [[np.nan, np.nan], [5, 5]])
    assert points.used.tolist() == [False, True]       # no grid value: not used
    with pytest.raises(ValueError, match="read-only"):
        points.pixel_xy[0, 0] = 3.0
    assert points.same_as(ReviewPoints([[0, 0], [1, 1]], [[np.nan, np.nan], [5, 5]]))
    grown = points.with_point(7.0, 8.0)
    assert len(grown) == 3 and not grown.used[2] and len(points) == 2
    assert grown.without(2).same_as(points)
    assert points.with_grid(0, 1.0, 2.0).used.tolist() == [True, True]


def test_nothing_to_review_is_one_line(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        open_review(tmp_path / "missing")
    with pytest.raises(InputError, match="holds no run report"):
        open_review(tmp_path)
    (tmp_path / "x.jpg").write_bytes(b"")
    with pytest.raises(InputError, match="no .points file beside it"):
        open_review(tmp_path / "x.jpg")
    for stem in ("a", "b"):
        (tmp_path / f"{stem}.report.json").write_text("{}")
    with pytest.raises(InputError, match="runs of 2 sheets; open one"):
        open_review(tmp_path)
    with pytest.raises(InputError, match="is not a report of core.georef"):
        open_review(tmp_path / "a.report.json")


def test_report_without_grid_wkt_names_the_grid_by_its_code(run, tmp_path):
    import shutil

    _sheet, _paths, result = run
    folder = tmp_path / "old"
    shutil.copytree(result.outputs["tif"].parent, folder)
    report_path = folder / "007-INPUT.report.json"
    report = json.loads(report_path.read_text())
    del report["crs"]["grid_wkt"]
    report_path.write_text(json.dumps(report))
    review = open_review(folder)
    # the Paris atlas grid has no code: its map coordinates (Lambert-93) are shown instead
    assert same_crs(parse_crs(review.grid_crs), parse_crs("EPSG:2154"))
    fit = refit(review.points, review.crs, review.grid_crs)
    assert fit.rmse_px == pytest.approx(result.rmse_px, abs=1e-6)
    assert Path(review.sheet).is_file()
