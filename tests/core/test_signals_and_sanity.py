"""Issue 17: stop signals during the write phase, georeferencing that proves something, and the
batch ``core.blocks DIR --georef DIR``.

Signals are real: a command runs in a subprocess; the test waits until one of its temporary
files appears (the write phase has begun) and sends SIGTERM or SIGINT.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from core.cli import run_cli
from core.errors import InputError
from core.formats.qgis_points import read_points_file

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    """A generated 2000 px sheet (tilted 12.7 degrees, 420 px cells) with its ground truth;
    no mask file is kept beside it."""
    from core.synth import generate_sheet, write_sheet

    d = tmp_path_factory.mktemp("sheet")
    s = generate_sheet(3, 2000, spacing_px=420.0, difficulty=0.2)
    paths = write_sheet(s, d, "000")
    paths["mask"].unlink()
    truth = read_points_file(paths["points"])
    paths["points"].rename(d / "truth.points")
    return paths["image"], truth


def _run_and_signal(cmd: list[str], cwd: Path, pattern: str, sig: int) -> tuple[int, str]:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    try:
        while proc.poll() is None and time.monotonic() - t0 < 120:
            if list(cwd.glob(pattern)):
                proc.send_signal(sig)
                break
            time.sleep(0.002)
        else:
            pytest.fail(f"no temporary file {pattern} appeared (exit {proc.returncode})")
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err


@pytest.mark.parametrize(("sig", "kind", "pattern", "code"), [
    (signal.SIGTERM, "tps", "out/..*.colour.*.tif", 143),     # inside GDAL's warp
    (signal.SIGINT, "affine", "out/.*.tmp*.tif", 130),        # inside GDAL's CreateCopy
    (signal.SIGTERM, "affine", "out/.*.tmp*.vrt", 143),
])
def test_a_stop_signal_in_the_write_phase_leaves_nothing(sheet, tmp_path, sig, kind, pattern,
                                                          code):
    image, truth = sheet
    (tmp_path / "S.jpg").write_bytes(image.read_bytes())
    (tmp_path / "S.points").write_bytes(image.with_name("truth.points").read_bytes())
    before = sorted(p.name for p in tmp_path.iterdir())
    rc, err = _run_and_signal(
        [sys.executable, "-m", "core.georef", "S.jpg", "--crs", "EPSG:2154", "--grid-crs",
         "paris-atlas", "--gcps-only", "--transform", kind, "-o", "out"],
        tmp_path, pattern, sig)
    name = signal.Signals(sig).name
    assert rc == code, err
    assert err.strip() == f"error: interrupted by {name}; no partial output was kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # not even an empty "out"


def test_sigterm_while_writing_a_geopackage_leaves_nothing(tmp_path):
    from core.synth import generate_sheet, write_sheet

    write_sheet(generate_sheet(5, 1500, difficulty=0.1, jpeg_roundtrip=True), tmp_path, "001")
    rc, err = _run_and_signal(
        [sys.executable, "-m", "core.blocks", "001-INPUT.jpg", "-o", "o/b.png", "--gpkg",
         "o/b.gpkg"], tmp_path, "o/.*.tmp*", signal.SIGTERM)
    assert rc == 143 and err.strip().startswith("error: interrupted by SIGTERM"), err
    assert not (tmp_path / "o").exists()


# ---- georeferencing that proves something ------------------------------------------------

def _anchor(truth, i: int, dx: float = 0.0, dy: float = 0.0) -> str:
    (x, y), (e, n) = truth.pixel_xy[i], truth.map_xy[i]
    return f"{x + dx:.1f},{y + dy:.1f}={e:.0f},{n:.0f}"


def test_without_a_mask_file_the_map_area_is_searched_and_the_fit_is_right(sheet, tmp_path):
    from core.georef import fit_transform, georeference

    image, truth = sheet
    res = georeference(image, "paris-atlas", anchors=[_anchor(truth, 0, 30, -20)],
                       gcps=False, outdir=tmp_path / "o")
    assert res.report["detection_area"] == "compute"   # the computed map area
    best = fit_transform(truth.pixel_xy, truth.map_xy, "affine")
    corners = np.array([[0.0, 0.0], [2000, 0], [0, 2000], [2000, 2000]])
    error = np.abs(res.transform.forward(corners) - best.forward(corners)).max()
    assert error < 5.0, error                      # metres, at the sheet's corners
    assert int(res.inliers.sum()) >= 12            # crossings of the grid, not of the frame
    assert res.report["summary"]["redundancy"] > 0


def test_the_frame_is_not_taken_for_grid_lines_inside_the_map_area(sheet):
    from core.graticule import detect_on_sheet

    image, truth = sheet
    result = detect_on_sheet(image)                # no mask file: the map area is computed
    d = np.hypot(*(result.points[:, None] + 0.5 - truth.pixel_xy[None]).transpose(2, 0, 1))
    assert d.min(axis=1).max() < 3.0               # every crossing is a true grid node


@pytest.mark.parametrize(("offset", "message"), [
    ((160.0, 0.0), r"is 1[56]\d px \(3\d% of a grid cell\) from the nearest grid node"),
    ((-100.0, -100.0), r"is 14\d px \(3\d% of a grid cell\)"),
])
def test_an_anchor_far_from_any_node_is_an_error_saying_how_far(sheet, tmp_path, offset,
                                                                 message):
    from core.georef import georeference

    image, truth = sheet
    with pytest.raises(InputError, match=message):
        georeference(image, "paris-atlas", anchors=[_anchor(truth, 5, *offset)], gcps=False,
                     outdir=tmp_path / "o")
    assert not (tmp_path / "o").exists()


def test_an_anchor_outside_the_grid_is_an_error(sheet, tmp_path):
    from core.georef import georeference

    image, truth = sheet
    # two rows beyond the first one: no crossing there, snapping it would shift every label
    first = truth.map_xy[0]
    below = int(np.flatnonzero(np.all(truth.map_xy == first + np.array([0.0, -1000.0]), axis=1))[0])
    x, y = truth.pixel_xy[0] - 2 * (truth.pixel_xy[below] - truth.pixel_xy[0])
    with pytest.raises(InputError, match="beyond the grid lines found on the sheet"):
        georeference(image, "paris-atlas", anchors=[f"{x:.1f},{y:.1f}=0,5000"], gcps=False,
                     outdir=tmp_path / "o")


def test_an_anchor_in_the_margin_is_an_error(sheet, tmp_path):
    from core.georef import georeference

    image, _ = sheet
    # the case: pixel 100,100 is a node-free corner, in the margin one row above the
    # grid; it used to be snapped to a node nobody can see and "succeed" a row off
    with pytest.raises(InputError, match=r"\(column 0, row -1\), beyond .* outside the map "
                                         "area: no grid crossing was seen there"):
        georeference(image, "paris-atlas", anchors=["100,100=0,3000"], gcps=False,
                     outdir=tmp_path / "o")


def test_anchors_on_true_nodes_are_accepted_even_on_a_missed_outer_line(tmp_path):
    from core.georef import fit_transform, georeference
    from core.synth import generate_sheet, write_sheet

    # on this sheet the detection misses the outermost grid row; the anchor on it is in
    # the map area, so it stands, and the fit is right
    paths = write_sheet(generate_sheet(9, 1600, spacing_px=420.0, difficulty=0.3), tmp_path,
                        "009")
    paths["mask"].unlink()
    truth = read_points_file(paths["points"])
    paths["points"].unlink()
    res = georeference(paths["image"], "paris-atlas", anchors=[_anchor(truth, 0),
                                                               _anchor(truth, len(truth) - 1)],
                       gcps=False, outdir=tmp_path / "o")
    best = fit_transform(truth.pixel_xy, truth.map_xy, "affine")
    corners = np.array([[0.0, 0.0], [1600, 0], [0, 1600], [1600, 1600]])
    assert np.abs(res.transform.forward(corners) - best.forward(corners)).max() < 5.0


@pytest.mark.parametrize(("kind", "n"), [("helmert", 2), ("affine", 3)])
def test_a_fit_without_redundancy_says_so(sheet, tmp_path, capsys, kind, n):
    from core.georef.__main__ import main

    image, truth = sheet
    text = image.with_name("truth.points").read_text().splitlines()
    rows = [text[2], text[3], text[8]][:n]                 # not on one grid line
    (tmp_path / "few.points").write_text("\n".join(text[:2] + rows) + "\n")
    code = run_cli(main, [str(image), "--crs", "paris-atlas", "--gcps-only", "--gcps",
                          str(tmp_path / "few.points"), "--transform", kind,
                          "-o", str(tmp_path / "o")])
    out = capsys.readouterr().out
    assert code == 0
    assert f"{kind}, {n} of {n} GCPs used, no redundancy, accuracy unknown" in out
    assert "RMSE" not in out.splitlines()[0]
    assert f"warning: no redundancy: {n} GCPs determine a {kind} transform exactly" in out
    import json

    report = json.loads(next((tmp_path / "o").glob("*.report.json")).read_text())
    assert report["summary"]["redundancy"] == 0
    assert any(w.startswith("no redundancy") for w in report["warnings"])
    html = next((tmp_path / "o").glob("*.report.html")).read_text()
    assert "not measurable: no redundancy" in html


# ---- batch: blocks DIR --georef DIR with NNN.points ---------------------------------------

def test_blocks_directory_finds_nnn_points_in_the_georef_directory(tmp_path, capsys):
    from osgeo import ogr

    from core.blocks.__main__ import main
    from core.synth import generate_sheet, write_sheet

    sheets, georef = tmp_path / "sheets", tmp_path / "georef"
    for k in (1, 2):
        paths = write_sheet(generate_sheet(k, 1200, spacing_px=300.0, difficulty=0.1,
                                           jpeg_roundtrip=True),
                            sheets, f"00{k}")
        georef.mkdir(exist_ok=True)
        paths["points"].rename(georef / f"00{k}.points")
    code = run_cli(main, [str(sheets), "-o", str(tmp_path / "out"), "--gpkg", "--georef",
                          str(georef)])
    assert code == 0, capsys.readouterr().err
    for k in (1, 2):
        ds = ogr.Open(str(tmp_path / "out" / f"00{k}-OUTPUT-PRED.gpkg"))
        srs = ds.GetLayer(0).GetSpatialRef()
        assert srs is not None and "omerc" in srs.ExportToProj4()   # the sheet's grid CRS
