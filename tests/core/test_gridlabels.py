"""Reading the grid values printed on a sheet (core.gridlabels, issue 33): generated sheets of
several label styles, a refusal that names its candidates, the CRS's area of use, the
--debug picture, and the real Jacoubet sheets in the venv and in the plugin's runtime."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.georef import georeference
from core.gridlabels import LabelsUnreadableError
from core.synth import generate_sheet

REPO = Path(__file__).resolve().parents[2]
JACOUBET = REPO.parent / "shared" / "data" / "jacoubet-1836"
SPACING_PX = 600.0
LAMBERT = "EPSG:2154"


def _sheet(tmp_path, style: str, seed: int = 18, name: str = "plate.jpg", **overrides):
    params = {"label_size_px": 110.0, "label_sides": 4, "label_turned": True,
              "label_missing": 0.0, "label_distractors": 2,
              "centre_easting": 652400.0, "centre_northing": 6862300.0, **overrides}
    sheet = generate_sheet(seed, 2000, difficulty=0.0, spacing_px=SPACING_PX,
                           content_scale=0.3, jpeg_roundtrip=True, margin_labels=style,
                           **params)
    path = tmp_path / name
    path.write_bytes(sheet.jpeg)
    return sheet, path


def _naming_error(sheet, res) -> float:
    """Largest distance (grid units) between the grid coordinates given to a detected
    crossing and its truth."""
    true_px = sheet.intersections + 0.5
    worst = 0.0
    for q, g in zip(res.pixel_xy, res.grid_xy, strict=True):
        d = np.hypot(*(true_px - q).T)
        j = int(np.argmin(d))
        if d[j] < 0.25 * SPACING_PX:
            worst = max(worst, float(np.hypot(*(sheet.grid_xy[j] - g))))
    return worst


@pytest.mark.parametrize("style", ["full", "grouped", "km"])
def test_generated_sheets_are_named_with_their_certainty(style, tmp_path):
    """Every detected crossing named right (within 2 m), from the CRS alone; the report
    gives each family's margin over its runner-up, above the threshold; every label used
    is a printed label."""
    sheet, path = _sheet(tmp_path, style)
    res = georeference(path, LAMBERT, gcps=False, mask=False)
    assert _naming_error(sheet, res) <= 2.0 and res.labelling.spacing == 1000.0
    cert = res.report["labelling"]["certainty"]
    assert cert["margin"] >= cert["threshold"]
    assert set(cert["families"]) == {"columns", "rows"}
    assert all(f["lines_read"] >= 2 for f in cert["families"].values())
    assert res.report["labelling"]["seconds"] > 0
    used = [lab for lab in res.labels if lab["used"]]
    truth = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    assert len(used) >= 6
    for lab in used:
        cx, cy = (lab["box"][0] + lab["box"][2]) / 2, (lab["box"][1] + lab["box"][3]) / 2
        near = min(truth, key=lambda t: np.hypot(t["centre"][0] - cx, t["centre"][1] - cy))
        assert np.hypot(near["centre"][0] - cx, near["centre"][1] - cy) < 60


def _inside_sheet(tmp_path, seed: int, missing: float):
    """A 4200 px sheet printing its values inside the map (a cell of 1450 px, so the
    frame's words are sought at half size), ``missing`` of them left out."""
    sheet = generate_sheet(seed, 4200, difficulty=0.3, spacing_px=1450.0, content_scale=0.5,
                           jpeg_roundtrip=True, margin_labels="inside", label_size_px=50.0,
                           label_missing=missing, label_distractors=2,
                           centre_easting=652400.0, centre_northing=6862300.0)
    path = tmp_path / "inside.jpg"
    path.write_bytes(sheet.jpeg)
    return sheet, path


def test_small_values_printed_inside_the_map_are_found_and_named(tmp_path):
    """Values printed on the map itself, small and grey beside their lines (the ``inside``
    style; a cell of 1450 px, so the frame's words are sought at half size): they are
    sought at full size and in the faint ink too, and the sheet is named right from the
    CRS alone with labels found inside the map (it was refused: "values read surely on
    0 line")."""
    sheet, path = _inside_sheet(tmp_path, 1, missing=0.0)
    res = georeference(path, LAMBERT, gcps=False, mask=False)
    assert _naming_error(sheet, res) <= 2.0
    inside = [lab for lab in res.labels if lab["used"] and lab["end"] == 0]
    assert len({(lab["family"], lab["line"]) for lab in inside}) >= 4


def test_words_read_inside_the_map_and_set_aside_are_shown_with_the_refusal(tmp_path):
    """An ``inside`` sheet with its values left out (a stray number printed among the map):
    the words read inside the map name no family and are set aside, but the refusal still
    carries them (what ``--debug`` draws), each with its reading and why it was not used."""
    sheet, path = _inside_sheet(tmp_path, 2, missing=0.8)
    with pytest.raises(LabelsUnreadableError) as refused:
        georeference(path, LAMBERT, gcps=False, mask=False)
    aside = [lab for lab in refused.value.labels if lab["short"] == "set aside"]
    assert aside and all(lab["inside"] and not lab["used"] for lab in aside)
    assert all("made no family surer" in lab["why"] for lab in aside)
    h, w = sheet.image.shape[:2]
    for lab in aside:
        x0, y0, x1, y1 = lab["box"]
        assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h and lab["confidence"] > 0


def test_small_raised_zeros_are_named_right_or_refused_with_both_candidates(tmp_path):
    """``651`` and small raised ``000`` on a small sheet: the reader may hesitate between
    651000 and 65100 (a raised zero lost); then it refuses and names both, never places the
    sheet on the wrong one."""
    sheet, path = _sheet(tmp_path, "raised")
    refused = None
    try:
        res = georeference(path, LAMBERT, gcps=False, mask=False)
    except LabelsUnreadableError as err:
        refused = err
    if refused is None:
        assert _naming_error(sheet, res) <= 2.0
    else:
        assert " or " in str(refused) and refused.candidates
        assert {c["family"] for c in refused.candidates} == {"columns", "rows"}


def test_unsigned_values_west_of_the_meridian_are_negative_eastings(tmp_path):
    """Values printed without their sign fall eastward: read as negative eastings (a local
    grid without an area of use: the text's direction decides)."""
    sheet, path = _sheet(tmp_path, "unsigned", centre_easting=-5400.0, centre_northing=6300.0)
    res = georeference(path, "paris-atlas", gcps=False, mask=False)
    assert _naming_error(sheet, res) <= 2.0
    assert any("without their minus sign" in w for w in res.warnings)


def test_an_upright_labelled_grid_turned_a_quarter_is_named_by_the_area_of_use(tmp_path):
    """The grid turned a quarter against the frame, its figures upright on the sheet: the
    text says north is up, but 6 860 000 can only be a Lambert-93 northing."""
    sheet = generate_sheet(18, 2400, difficulty=0.0, spacing_px=450.0, content_scale=0.3,
                           jpeg_roundtrip=True, margin_labels="plain", tilt_deg=88.0,
                           label_font="pt-serif", label_size_px=90.0, label_sides=4,
                           label_missing=0.0, label_distractors=2,
                           centre_easting=652400.0, centre_northing=6862300.0)
    path = tmp_path / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    res = georeference(path, LAMBERT, gcps=False, mask=False)
    true_px = sheet.intersections + 0.5
    for q, g in zip(res.pixel_xy, res.grid_xy, strict=True):
        j = int(np.argmin(np.hypot(*(true_px - q).T)))
        assert np.hypot(*(sheet.grid_xy[j] - g)) <= 2.0
    assert res.labelling.north_in_image in ("left", "right")
    assert any("area of use" in w for w in res.warnings)


def test_a_sheet_without_labels_is_refused_and_debug_draws_what_was_read(tmp_path):
    sheet, path = _sheet(tmp_path, "none")
    out = tmp_path / "out"
    with pytest.raises(LabelsUnreadableError) as refused:
        georeference(path, LAMBERT, gcps=False, mask=False, outdir=out, debug=True)
    message = str(refused.value)
    assert "do not name the grid surely" in message and "--anchor X,Y=E,N" in message
    assert "\n" not in message
    # the labels picture is the only file written
    assert sorted(p.name for p in out.iterdir()) == ["plate.labels.png"]


def test_a_geographic_crs_for_a_grid_in_metres_is_an_error_naming_grid_crs(tmp_path):
    sheet, path = _sheet(tmp_path, "full")
    with pytest.raises(InputError) as err:
        georeference(path, "EPSG:4326", gcps=False, mask=False, outdir=tmp_path / "o")
    assert "area of use of EPSG:4326" in str(err.value) and "--grid-crs" in str(err.value)
    assert not (tmp_path / "o").exists()


def test_values_that_fit_one_axis_of_the_crs_only_say_misread_or_another_crs(tmp_path):
    """Columns read 652 000 ... (Lambert-93 eastings), rows 400 000 ... (no Lambert-93
    northing): a cut-short label is as likely as another CRS, and the error says both."""
    sheet, path = _sheet(tmp_path, "full", centre_northing=400300.0)
    with pytest.raises(LabelsUnreadableError) as err:
        georeference(path, LAMBERT, gcps=False, mask=False, outdir=tmp_path / "o")
    message = str(err.value)
    said = re.match(r"the rows read \((\S+) to (\S+)\) cannot be northings of EPSG:2154, "
                    r"though the columns \((\S+) to (\S+)\) are eastings in it", message)
    assert said is not None, message
    # the ranges of the detected grid, one line beyond it on each side
    e, n = sheet.grid_xy.T
    step = 1000.0
    for (lo, hi), truth in (((said[1], said[2]), n), ((said[3], said[4]), e)):
        assert truth.min() - step <= float(lo) <= truth.min() + step
        assert truth.max() - step <= float(hi) <= truth.max() + step
    assert "--grid-crs" in message and "--anchor X,Y=E,N" in message
    assert not (tmp_path / "o").exists()


def test_a_spacing_that_is_not_the_printed_step_refuses(tmp_path):
    sheet, path = _sheet(tmp_path, "full")
    with pytest.raises(InputError):
        georeference(path, LAMBERT, spacing=250.0, gcps=False, mask=False,
                     outdir=tmp_path / "o")


JACOUBET_CRS = (JACOUBET / "CRS.proj").read_text().strip() if JACOUBET.is_dir() else ""


def _best_affine_error(sheet: str) -> tuple[np.ndarray, np.ndarray, float]:
    rows = [line.split(",") for line in (JACOUBET / f"{sheet}-GT.points").read_text()
            .splitlines() if line and not line.startswith(("#", "mapX"))]
    a = np.array([[float(v) for v in r[:4]] for r in rows])
    pixel, grid = a[:, 2:4] * [1, -1], a[:, :2]
    design = np.column_stack([pixel, np.ones(len(pixel))])
    fit = design @ np.linalg.lstsq(design, grid, rcond=None)[0]
    return pixel, grid, float(np.hypot(*(fit - grid).T).max())


@pytest.mark.skipif(not JACOUBET.is_dir(), reason="../shared/data/jacoubet-1836 not present")
@pytest.mark.parametrize("sheet", ["020", "021", "049"])
def test_real_jacoubet_sheets_from_the_crs_alone(sheet, tmp_path):
    """The user's command with the grid CRS and nothing else: placed within 1.1 times the
    best affine fit of the hand-placed crossings, or refused; never placed wrong."""
    path = tmp_path / "sheet.jpg"
    path.symlink_to(JACOUBET / f"{sheet}-INPUT.jpg")
    pixel, grid, best = _best_affine_error(sheet)
    try:
        res = georeference(path, JACOUBET_CRS, gcps=False, outdir=tmp_path / "out")
    except LabelsUnreadableError as refused:
        pytest.fail(f"refused: {refused}")
    err = np.hypot(*(res.transform.forward(pixel) - grid).T).max()
    assert err <= 1.1 * best + 0.5, (err, best)


@pytest.mark.skipif(not JACOUBET.is_dir(), reason="../shared/data/jacoubet-1836 not present")
def test_the_plugin_runtime_reads_a_real_sheet_as_the_venv_does():
    """The same labelling from QGIS's Python with Debian's packages (OpenCV 4.6) as from
    the venv (OpenCV 4.11): naming, the candidates and every word read (confidences
    included); margins within a hundredth."""
    sheet = JACOUBET / "021-INPUT.jpg"
    outs = []
    for python in ([sys.executable], ["/usr/bin/python3", "-s", "-E"]):
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
        proc = subprocess.run([*python, "-m", "core.gridlabels", str(sheet), "--crs",
                               JACOUBET_CRS, "--json"], cwd=REPO, capture_output=True,
                              text=True, env=env, timeout=600)
        assert proc.returncode in (0, 2), proc.stderr
        outs.append(json.loads(proc.stdout) if proc.returncode == 0 else proc.stderr)
    venv, qgis = outs
    assert isinstance(venv, dict) == isinstance(qgis, dict)
    if isinstance(venv, dict):
        for key in ("orientation", "origin", "spacing", "north", "warnings", "labels"):
            assert venv[key] == qgis[key], key
        for name, fam in venv["certainty"]["families"].items():
            other = qgis["certainty"]["families"][name]
            assert fam["best"] == other["best"] and fam["runner_up"] == other["runner_up"]
            # (the last bits of OpenCV's sums may move a margin by a thousandth)
            assert abs(fam["margin"] - other["margin"]) < 0.01
    else:
        assert venv == qgis


def test_values_read_cut_short_by_the_frame_are_read_whole_when_the_axes_clash(tmp_path):
    """Grouped values at 4000 px (``6 389 000``, 14 px high): the frame's finder cuts the
    rows' labels at their gap and reads ``389000 390000 ...`` surely, which, beside the
    columns' ``574000 ...``, can only be Lambert-93 eastings too. The sheet was refused
    ("cannot be northings"); the rows are now read again with the words the inside finder
    cuts whole (``6389000``), only as northings, and the sheet is named right."""
    rng = np.random.default_rng(5003)
    centre = {"centre_easting": float(rng.uniform(300000, 1000000)),
              "centre_northing": float(rng.uniform(6300000, 7000000))}
    sheet = generate_sheet(5003, 4000, difficulty=0.7 * ((4 * 0.618) % 1.0),
                           spacing_px=945.2, content_scale=0.4, jpeg_roundtrip=True,
                           margin_labels="grouped", orientation="axis",
                           grid_spacing_m=1000.0, **centre)
    path = tmp_path / "grouped.jpg"
    path.write_bytes(sheet.jpeg)
    res = georeference(path, LAMBERT, gcps=False, mask=False)
    assert _naming_error(sheet, res) <= 2.0
    rows = res.report["labelling"]["certainty"]["families"]["rows"]
    assert rows["best"].startswith("63") and rows["lines_read"] >= 2
    used = [lab for lab in res.labels if lab["used"] and lab["family"] == "rows"]
    assert used and all(len(lab["text"]) == 7 for lab in used)


def test_faint_readings_on_many_lines_do_not_outweigh_sure_ones(tmp_path):
    """A sheet in a style nothing was tuned on (upright labels, grid turned a quarter
    against the frame, 4000 px): the rows' ``667000 666000 ...`` are read surely on four
    lines, but the sequence of the same labels cut short, ``67000 ...``, gathered about as
    much evidence from words reading it at p 0.0001-0.01 (a five-figure string's chance is
    1e-6), and the sheet was refused (margin 1.3). Readings below P_NOISE are no evidence:
    named right, the rows' margin above the threshold."""
    rng = np.random.default_rng(11024)
    centre = {"centre_easting": float(rng.uniform(300000, 1000000)),
              "centre_northing": float(rng.uniform(6300000, 7000000))}
    sheet = generate_sheet(11024, 4000, difficulty=0.7 * ((25 * 0.618) % 1.0),
                           spacing_px=945.2, content_scale=0.4, jpeg_roundtrip=True,
                           margin_labels="plain", orientation="axis", tilt_deg=-90.0,
                           grid_spacing_m=1000.0, **centre)
    path = tmp_path / "plain.jpg"
    path.write_bytes(sheet.jpeg)
    res = georeference(path, LAMBERT, gcps=False, mask=False)
    assert _naming_error(sheet, res) <= 2.0
    families = res.report["labelling"]["certainty"]["families"]
    assert families["rows"]["best"].startswith("667000") and families["rows"]["margin"] >= 5.0
