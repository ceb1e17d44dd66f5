"""Grid values printed inside the map, along the lines (issue 18, the ``inside`` style)."""

from __future__ import annotations

import numpy as np
import pytest

import core.synth.gridlabels_inside as inside_style
from core.georef import georeference
from core.georef.grid_labels import graticule_from_points
from core.georef.label_fit import LabelsUnreadableError, labelling_from_readings
from core.georef.label_inside import _family_it_runs_along
from core.georef.label_reader import LabelReading
from core.synth import generate_sheet

UP, LEFT, RIGHT = (0.0, -1.0), (-1.0, 0.0), (1.0, 0.0)
SPACING_PX = 400.0


def _inside_sheet(tmp_path, seed: int = 20, **overrides):
    params = {"label_size_px": 110.0, "label_missing": 0.0, "label_distractors": 2,
              **overrides}
    sheet = generate_sheet(seed, 2000, difficulty=0.0, spacing_px=SPACING_PX,
                           content_scale=0.3, jpeg_roundtrip=True, margin_labels="inside",
                           centre_easting=652400.0, centre_northing=6862300.0, **params)
    path = tmp_path / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    return sheet, path


def _naming_errors(sheet, res) -> list[float]:
    """Metres between the grid coordinates given to each detected crossing and its truth."""
    true_px = sheet.intersections + 0.5
    out = []
    for q, g in zip(res.pixel_xy, res.grid_xy, strict=True):
        d = np.hypot(*(true_px - q).T)
        j = int(np.argmin(d))
        if d[j] < 0.25 * SPACING_PX:
            out.append(float(np.hypot(*(sheet.grid_xy[j] - g))))
    return out


def test_inside_labels_are_printed_along_the_lines_in_a_halo(tmp_path):
    sheet, _ = _inside_sheet(tmp_path)
    labels = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    assert len(labels) >= 8 and all(lab["inside"] for lab in labels)
    assert sum(lab["distractor"] for lab in sheet.params["grid_labels"]) == 2
    cols = [lab for lab in labels if lab["axis"] == 0]
    rows = [lab for lab in labels if lab["axis"] == 1]
    # eastings turned with their line (reading upwards), northings upright; thousands or
    # full for the whole sheet
    assert {round(lab["angle"]) % 360 for lab in cols} == {270}
    assert {round(lab["angle"]) % 360 for lab in rows} == {0}
    thousands = len(labels[0]["text"]) <= 4
    assert all(lab["text"] == inside_style.inside_text(lab["value"], thousands)
               for lab in labels)
    # inside the map, not in the margins: well inside the sheet
    for lab in labels:
        cx, cy = lab["centre"]
        assert 0.05 * 2000 < cx < 0.95 * 2000 and 0.05 * 2000 < cy < 0.95 * 2000
    # each easting label sits beside its vertical line: within a label's height of it
    xs = sheet.intersections[:, 0]
    for lab in cols:
        gap = np.min(np.abs(xs - lab["centre"][0]))
        assert 0.5 * lab["size"][0] < gap < 1.5 * lab["size"][0]


def test_georeference_reads_the_values_printed_inside_the_map(tmp_path):
    sheet, path = _inside_sheet(tmp_path)
    res = georeference(path, sheet.grid_crs, gcps=False, mask=False, debug=True)
    errors = _naming_errors(sheet, res)
    assert len(errors) >= 6 and max(errors) <= 2.0
    assert res.labelling.spacing == 1000.0
    assert any("inside the map" in w for w in res.warnings)
    used = [lab for lab in res.labels if lab["used"]]
    assert {lab["family"] for lab in used} == {"columns", "rows"}
    assert len(used) >= 6 and all(lab["inside"] for lab in res.labels)
    truth = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    for lab in used:            # every label used is a printed value, read right
        cx, cy = (lab["box"][0] + lab["box"][2]) / 2, (lab["box"][1] + lab["box"][3]) / 2
        near = min(truth, key=lambda t: np.hypot(t["centre"][0] - cx, t["centre"][1] - cy))
        assert np.hypot(near["centre"][0] - cx, near["centre"][1] - cy) < 30
        assert lab["text"] == near["text"] and "inside the map" in lab["why"]
    assert res.outputs["labels"].stat().st_size > 1000


def test_a_wrong_value_printed_inside_is_left_out_and_named(tmp_path, monkeypatch):
    right = inside_style.inside_text

    def misprint(value: float, thousands: bool) -> str:
        text = right(value, thousands)
        return text.replace("6862", "6869") if text.startswith("6862") else text

    monkeypatch.setattr(inside_style, "inside_text", misprint)
    sheet, path = _inside_sheet(tmp_path)
    wrong = [lab for lab in sheet.params["grid_labels"] if lab["text"].startswith("6869")]
    assert len(wrong) == 1
    res = georeference(path, sheet.grid_crs, gcps=False, mask=False)
    errors = _naming_errors(sheet, res)
    assert len(errors) >= 6 and max(errors) <= 2.0
    left_out = [lab for lab in res.labels if not lab["used"]]
    assert any(lab["text"] == wrong[0]["text"] for lab in left_out)
    assert any("left out" in w and repr(wrong[0]["text"]) in w for w in res.warnings)


def test_an_inside_sheet_with_too_few_values_asks_for_an_anchor(tmp_path):
    sheet, path = _inside_sheet(tmp_path, label_missing=0.85)
    truth = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    # (two northings printed, no easting: too few to name the grid)
    assert len(truth) <= 2 and not [lab for lab in truth if lab["axis"] == 0]
    with pytest.raises(LabelsUnreadableError) as err:
        georeference(path, sheet.grid_crs, gcps=False, mask=False)
    assert "--anchor" in str(err.value) and "inside the map" in str(err.value)
    assert err.value.field == "anchor"


def _reading(family: str, line: int, text: str, word: int, up) -> LabelReading:
    return LabelReading(family, line, 0, (0, 0, 10, 10), text, float(text), 90.0, up, word,
                        inside=True)


@pytest.mark.parametrize(("col_up", "row_up", "north", "east_family"), [
    (LEFT, UP, "up", "columns"),      # north-up: eastings read upwards, northings upright
    (RIGHT, UP, "right", "rows"),     # turned a quarter clockwise: the columns are northings
])
def test_text_along_both_families_gives_the_orientation(col_up, row_up, north, east_family):
    index = np.array([[c, r] for r in range(4) for c in range(4)])
    g = graticule_from_points(100.0 + 300.0 * index, index, (1200, 1200))
    if east_family == "columns":
        rs = ([_reading("columns", c, str(652 + c), c, col_up) for c in range(4)]
              + [_reading("rows", r, str(6862 - r), 10 + r, row_up) for r in range(4)])
    else:
        rs = ([_reading("columns", c, str(6862 + c), c, col_up) for c in range(4)]
              + [_reading("rows", r, str(652 + r), 10 + r, row_up) for r in range(4)])
    lab, records = labelling_from_readings(g, rs, None)
    assert lab.north_in_image == north and lab.spacing == 1000.0
    assert all(r["used"] and r["inside"] for r in records)
    grid = lab.grid_coordinates(g.index)
    if east_family == "columns":
        expect = np.column_stack([652000 + 1000.0 * g.index[:, 0],
                                  6862000 - 1000.0 * g.index[:, 1]])
    else:
        expect = np.column_stack([652000 + 1000.0 * g.index[:, 1],
                                  6862000 + 1000.0 * g.index[:, 0]])
    assert np.allclose(grid, expect)


def test_a_word_by_a_crossing_belongs_to_the_line_it_runs_along():
    def found(family: str, box, along: bool, across: float):
        reading = LabelReading(family, 1, 0, box, "", None, 0.0, UP, 0, inside=True)
        return (np.zeros((4, 4), np.uint8), [reading]), along, across

    a = found("columns", (100, 100, 120, 160), False, 0.02)    # across the column line
    b = found("rows", (101, 100, 121, 161), True, 0.05)        # along the row line
    c = found("rows", (400, 400, 420, 460), False, 0.01)       # elsewhere: kept
    kept = _family_it_runs_along([a, b, c])
    first = [job[1][0] for job, _, _ in kept]          # each word's first reading
    assert [r.family for r in first] == ["rows", "rows"]
    assert first[0].box == (101, 100, 121, 161)
    # running along neither (or both): the line it is nearer across
    d = found("columns", (100, 100, 120, 160), True, 0.02)
    assert [job[1][0].family for job, _, _ in _family_it_runs_along([d, b])] == ["columns"]
