"""Zero-input georeferencing: reading the grid values printed on the sheet (issue 18)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from core.errors import InputError
from core.georef import georeference
from core.georef.grid_labels import graticule_from_points
from core.georef.label_fit import (
    LabelsUnreadableError,
    family_reasons,
    fit_family,
    labelling_from_readings,
)
from core.georef.label_reader import (
    LabelReading,
    finer_gray,
    parse_value,
    read_words,
    sheet_gray,
    tesseract_started,
)
from core.georef.label_verify import (
    _add_tesseract,
    _best_sequence,
    _line_end,
    _orientations_to_read,
    _similarity,
    _Word,
    candidate_strings,
    labelling_from_labels,
)
from core.synth import generate_sheet
from core.synth.gridlabels import RAISED_RISE, RAISED_SIZE, label_runs, label_text

JACOUBET = Path(__file__).resolve().parents[3] / "shared" / "data" / "jacoubet-1836"
UP, LEFT, RIGHT = (0.0, -1.0), (-1.0, 0.0), (1.0, 0.0)


def _reading(family: str, line: int, text: str, word: int, up=UP, end: int = -1,
             conf: float = 80.0):
    value = float(text) if text.lstrip("-").isdigit() else None
    return LabelReading(family, line, end, (0, 0, 10, 10), text, value, conf, up, word)


def _grid(n: int = 4) -> object:
    index = np.array([[c, r] for r in range(n) for c in range(n)])
    return graticule_from_points(100.0 + 300.0 * index, index, (1200, 1200))


def test_sequence_fit_leaves_out_a_misread_and_a_street_number():
    rs = [_reading("columns", k, str(652000 + 1000 * k), k) for k in range(4)]
    rs[2] = _reading("columns", 2, "654900", 2)            # misread
    rs.append(_reading("columns", 1, "17", 9))             # a house number by the frame
    rs.append(_reading("columns", 3, "655000", 10, end=1))  # the other end of line 3
    fit, why = fit_family(rs, None)
    assert why == "" and (fit.a, fit.b) == (652000.0, 1000.0)
    assert sorted(fit.words) == [0, 1, 3, 10] and fit.lines == {0, 1, 3}


def test_sequence_fit_refuses_too_few_or_ambiguous_readings():
    two = [_reading("rows", 0, "6862000", 0), _reading("rows", 1, "6861000", 1)]
    fit, why = fit_family(two, None)
    assert fit is None and "only 2 readings on 2 lines" in why
    clear = [_reading("rows", 0, "6862000", 0, conf=96), _reading("rows", 1, "6861000", 1,
                                                                  conf=95)]
    assert fit_family(clear, None)[0] is not None     # two lines read clearly will do
    # two lines read at both ends are enough
    fit, _ = fit_family([*two, _reading("rows", 0, "6862000", 2, end=1),
                         _reading("rows", 1, "6861000", 3, end=1)], None)
    assert fit is not None and fit.b == -1000.0
    # a step that is not a round number, or not --spacing, proposes nothing
    odd = [_reading("rows", k, str(300 + 180 * k), k) for k in range(4)]
    assert fit_family(odd, None)[0] is None
    assert fit_family([*two, _reading("rows", 2, "6860000", 5)], 250.0)[0] is None


def test_north_up_sheet_with_turned_northing_labels():
    rs = ([_reading("columns", c, str(652000 + 1000 * c), c) for c in range(4)]
          + [_reading("rows", r, str(6862000 - 1000 * r), 10 + r, up=LEFT) for r in range(4)])
    g = _grid()
    lab, records = labelling_from_readings(g, rs, None)
    grid = lab.grid_coordinates(g.index)
    assert np.allclose(grid, np.column_stack([652000 + 1000.0 * g.index[:, 0],
                                              6862000 - 1000.0 * g.index[:, 1]]))
    assert lab.spacing == 1000 and lab.north_in_image == "up" and not lab.mirrored
    assert len(records) == 8 and all(r["used"] for r in records) and lab.source == "labels"


def test_unsigned_values_falling_eastward_are_negative_eastings():
    # Jacoubet: 3000, 2750, ... printed west of the meridian, falling eastward; km-free
    rs = ([_reading("columns", c, str(3000 - 250 * c), c) for c in range(4)]
          + [_reading("rows", r, str(3750 - 250 * r), 10 + r, up=LEFT) for r in range(4)])
    g = _grid()
    lab, _ = labelling_from_readings(g, rs, 250.0)
    grid = lab.grid_coordinates(g.index)
    assert np.allclose(grid, np.column_stack([-3000 + 250.0 * g.index[:, 0],
                                              3750 - 250.0 * g.index[:, 1]]))


def test_sheet_turned_a_quarter_and_thousands():
    # north points right: columns are northing lines, rows easting lines (east is down)
    rs = ([_reading("columns", c, str(6862 + c), c, up=UP) for c in range(4)]
          + [_reading("rows", r, str(652 + r), 10 + r, up=RIGHT) for r in range(4)])
    g = _grid()
    lab, _ = labelling_from_readings(g, rs, None)
    grid = lab.grid_coordinates(g.index)
    assert np.allclose(grid, np.column_stack([652000 + 1000.0 * g.index[:, 1],
                                              6862000 + 1000.0 * g.index[:, 0]]))
    assert lab.north_in_image == "right" and any("thousands" in w for w in lab.warnings)


def test_labels_that_do_not_determine_the_grid_ask_for_an_anchor():
    rs = [_reading("columns", c, str(652000 + 1000 * c), c) for c in range(4)]
    with pytest.raises(InputError, match="do not determine the grid.*--anchor"):
        labelling_from_readings(_grid(), rs, None)
    # two clear row labels name the rows, with a warning to check
    rs += [_reading("rows", r, str(6862000 - 1000 * r), 10 + r, up=LEFT, conf=95)
           for r in range(2)]
    lab, _ = labelling_from_readings(_grid(), rs, None)
    assert any("only two rows lines" in w for w in lab.warnings)


def test_two_lines_are_enough_when_their_step_is_the_other_familys():
    cols = [_reading("columns", c, str(652 + c), c) for c in range(4)]     # thousands
    rows = [_reading("rows", r, str(6862000 - 1000 * r), 10 + r, up=LEFT) for r in (1, 3)]
    g = _grid()
    lab, _ = labelling_from_readings(g, cols + rows, None)
    assert np.allclose(lab.grid_coordinates(g.index),
                       np.column_stack([652000 + 1000.0 * g.index[:, 0],
                                        6862000 - 1000.0 * g.index[:, 1]]))
    assert any("only two rows lines" in w for w in lab.warnings)
    # two readings with another step than the columns' name nothing
    other = [_reading("rows", r, str(6862000 - 2000 * r), 10 + r, up=LEFT) for r in (1, 3)]
    with pytest.raises(InputError, match="rows: only 2 readings on 2 lines"):
        labelling_from_readings(g, cols + other, None)
    # nor do they when the columns too are read on two lines only
    with pytest.raises(InputError, match="do not determine the grid"):
        labelling_from_readings(g, cols[:2] + rows, None)


def test_tesseract_reads_printed_figures():
    import cv2

    img = np.zeros((50, 220), np.uint8)
    cv2.putText(img, "6862000", (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 255, 2, cv2.LINE_AA)
    blank = np.zeros((40, 100), np.uint8)
    assert read_words([img, blank]) == [("6862000", pytest.approx(read_words([img])[0][1])),
                                        ("", 0.0)]


def test_many_words_are_read_by_several_tesseract_processes_in_order(monkeypatch):
    """Words split between Tesseract processes come back in their order, read as one
    process reads them."""
    import cv2

    import core.georef.label_reader as reader

    patches = []
    for k in range(12):
        img = np.zeros((50, 220), np.uint8)
        cv2.putText(img, str(1000 * (k + 1)), (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 255, 2,
                    cv2.LINE_AA)
        patches.append(img)
    monkeypatch.setattr(reader, "WORDS_PER_PROCESS", 4)
    monkeypatch.setattr(reader, "TESSERACT_PROCESSES", 3)
    split = read_words(patches)
    monkeypatch.setattr(reader, "TESSERACT_PROCESSES", 1)
    assert read_words(patches) == split
    assert [text for text, _ in split] == [str(1000 * (k + 1)) for k in range(12)]


def _figures(text: str) -> np.ndarray:
    """A word image (255 = ink) of ``text`` in plain figures."""
    import cv2

    img = np.zeros((50, 220), np.uint8)
    cv2.putText(img, text, (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.1, 255, 2, cv2.LINE_AA)
    return img


def test_the_word_tesseract_died_on_is_read():
    """Tesseract 5.3 (Debian 12) died of a floating-point exception reading this word image
    (cut by the old-style reader from a generated sheet, seed 1913) again inverted, its
    default for a line read unsurely; it is read the way it is printed only, and read."""
    import cv2

    dies = cv2.imread(str(Path(__file__).parent / "data" / "tesseract_fpe_word.png"),
                      cv2.IMREAD_GRAYSCALE)
    read = read_words([_figures("6862000"), dies, _figures("2750")])
    assert [text for text, _ in read][::2] == ["6862000", "2750"]
    assert len(read) == 3


FAKE_TESSERACT = """#!{python}
# Tesseract reading the image names on its standard input, dying of a signal (or stuck:
# {stuck}) on any image {size} pixels wide, after reading those before it
import os, signal, subprocess, sys, tempfile, time, cv2
names = sys.stdin.read().split()
dies = [i for i, n in enumerate(names) if cv2.imread(n, 0).shape[1] == {size}]
before = names[:dies[0]] if dies else names
with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
    fh.write("\\n".join(before) + "\\n")
out = subprocess.run([{real!r}, fh.name] + sys.argv[2:], capture_output=True, text=True).stdout
os.unlink(fh.name)
sys.stdout.write(out if before else "level\\tpage_num\\n")
sys.stdout.flush()
if not dies:
    sys.exit(0)
if {stuck}:
    time.sleep(600)
os.kill(os.getpid(), signal.SIGFPE)
"""


def test_a_word_tesseract_dies_on_is_left_unread_and_the_others_are_read(monkeypatch,
                                                                         tmp_path):
    """A Tesseract process killed by a signal leaves the word it was reading unread; a new
    process reads the words after it (the first word of a share or not), in order."""
    import shutil
    import sys

    import core.georef.label_reader as reader

    size = 77                          # 77 - 24 pixels of padding: a 53 px wide word
    fake = tmp_path / "tesseract"
    fake.write_text(FAKE_TESSERACT.format(python=sys.executable, size=size, stuck=False,
                                          real=shutil.which("tesseract")))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    dies = np.zeros((30, size - 24), np.uint8)
    monkeypatch.setattr(reader, "WORDS_PER_PROCESS", 3)
    monkeypatch.setattr(reader, "TESSERACT_PROCESSES", 2)
    words = [_figures("6862000"), dies, _figures("2750"), dies, dies, _figures("500")]
    read = read_words(words)
    assert [text for text, _ in read] == ["6862000", "", "2750", "", "", "500"]
    assert [conf for _, conf in read] == [read_words([w])[0][1] if t else 0.0
                                         for w, (t, _) in zip(words, read, strict=True)]
    # a process dying at every word is a broken installation: an error, not empty readings
    with pytest.raises(InputError, match="Tesseract failed"):
        read_words([dies] * 8)


def test_a_word_tesseract_is_stuck_on_is_left_unread(monkeypatch, tmp_path):
    """A Tesseract process still reading after its time is stopped: the word it was reading
    stays unread, the words after it are read by a new process."""
    import shutil
    import sys
    import time

    import core.georef.label_reader as reader

    size = 77
    fake = tmp_path / "tesseract"
    fake.write_text(FAKE_TESSERACT.format(python=sys.executable, size=size, stuck=True,
                                          real=shutil.which("tesseract")))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    monkeypatch.setattr(reader, "TESSERACT_START_S", 3.0)
    monkeypatch.setattr(reader, "TESSERACT_WORD_S", 0.1)
    t0 = time.monotonic()
    read = read_words([_figures("2750"), np.zeros((30, size - 24), np.uint8), _figures("500")])
    assert [text for text, _ in read] == ["2750", "", "500"]
    assert time.monotonic() - t0 < 20


def test_label_styles():
    assert label_text(6862000.0, "grouped") == "6 862 000"
    assert label_text(652000.0, "thousands") == "652"
    assert label_text(-3000.0, "unsigned") == "3000"
    assert label_text(-3000.0, "full") == "-3000"
    assert label_text(-3000.0, "oldstyle") == "3000"
    assert label_text(652000.0, "km") == "652 km"
    assert label_text(652000.0, "raised") == "652000"
    assert label_runs("652000", "raised") == [("652", 1.0, 0.0),
                                              ("000", RAISED_SIZE, RAISED_RISE)]
    assert label_runs("652 km", "km") == [("652 km", 1.0, 0.0)]


def test_values_read_with_their_unit():
    assert parse_value("652km") == 652000.0 and parse_value("652000m") == 652000.0
    assert parse_value("-3000") == -3000.0 and parse_value("652") == 652.0
    assert parse_value("0652") is None and parse_value("km") is None
    assert parse_value("65k2") is None


def test_oldstyle_labels_stand_by_the_frame_on_four_sides_read_from_outside():
    sheet = generate_sheet(7, 1200, difficulty=0.0, spacing_px=360.0, content_scale=0.2,
                           margin_labels="oldstyle", label_sides=2, label_missing=0.0,
                           centre_easting=-5200.0, centre_northing=6300.0)
    labels = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    assert all(lab["text"] == str(abs(round(lab["value"]))) for lab in labels)
    rows = [lab for lab in labels if lab["axis"] == 1]
    cols = [lab for lab in labels if lab["axis"] == 0]
    # four sides whatever label_sides says; northings turned a quarter, the two sides
    # opposite ways (each read from outside the frame); eastings upright
    assert {round(lab["angle"]) % 360 for lab in rows} == {90, 270}
    assert {round(lab["angle"]) % 360 for lab in cols} == {0}
    ys = [lab["centre"][1] for lab in cols]
    assert min(ys) < 0.2 * 1200 and max(ys) > 0.8 * 1200


@pytest.fixture(scope="module")
def labelled_sheet(tmp_path_factory):
    sheet = generate_sheet(18, 2000, difficulty=0.0, spacing_px=600.0, content_scale=0.3,
                           jpeg_roundtrip=True, margin_labels="grouped", label_size_px=110.0,
                           label_sides=4, label_turned=True, label_missing=0.0,
                           label_distractors=2,
                           centre_easting=652400.0, centre_northing=6862300.0)
    path = tmp_path_factory.mktemp("labelled") / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    return sheet, path


def test_generated_sheet_carries_its_labels_with_truth(labelled_sheet):
    sheet, _ = labelled_sheet
    labels = sheet.params["grid_labels"]
    true = [lab for lab in labels if not lab["distractor"]]
    assert len(true) >= 8 and sum(lab["distractor"] for lab in labels) == 2
    for lab in true:
        assert lab["text"] == label_text(lab["value"], "grouped")
        x0, y0, x1, y1 = lab["box"]
        assert 0 <= x0 < x1 <= 2000 and 0 <= y0 < y1 <= 2000


def test_georeference_reads_the_labels_of_a_generated_sheet(labelled_sheet):
    sheet, path = labelled_sheet
    res = georeference(path, sheet.grid_crs, gcps=False, mask=False, debug=True)
    err = np.hypot(*(res.transform.forward(sheet.intersections + 0.5) - sheet.grid_xy).T)
    assert err.max() < 2.0 and res.labelling.spacing == 1000.0
    used = [lab for lab in res.labels if lab["used"]]
    assert len(used) >= 6 and {lab["family"] for lab in used} == {"columns", "rows"}
    truth = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    for lab in used:       # every label used is a printed label, read right
        x0, y0, x1, y1 = lab["box"]
        near = [t for t in truth if abs((t["box"][0] + t["box"][2]) / 2 - (x0 + x1) / 2) < 40
                and abs((t["box"][1] + t["box"][3]) / 2 - (y0 + y1) / 2) < 40]
        assert near and lab["value"] == near[0]["value"]
    report = json.loads(res.outputs["json"].read_text())
    assert report["labelling"]["source"] == "labels"
    assert len(report["labelling"]["labels"]) == len(res.labels)
    assert "Grid labels read on the sheet" in res.outputs["html"].read_text()
    assert res.outputs["labels"].stat().st_size > 1000


def test_a_sheet_without_labels_refuses_without_doubting_the_spacing(tmp_path):
    """No values printed at all, --spacing given: every reading runs and the refusal asks for
    an anchor, without asking whether the spacing is right (no figures to doubt it by)."""
    from core.graticule import detect_on_sheet

    sheet = generate_sheet(18, 2000, difficulty=0.0, spacing_px=600.0, content_scale=0.3,
                           jpeg_roundtrip=True)
    path = tmp_path / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    with pytest.raises(LabelsUnreadableError) as refused:
        labelling_from_labels(path, detect_on_sheet(str(path), None), 1000.0)
    message = refused.value.render()
    assert "multiples of --spacing 1000 against the small figures by the frame:" in message
    # each reader's reason once, families failing alike named together
    assert message.count("do not determine the grid") == 1
    assert "along the lines inside the map: " in message
    assert "grid's spacing" not in message and message.endswith("--gcps FILE.points")


@pytest.mark.parametrize("style", ["km", "raised"])
def test_georeference_reads_units_and_raised_zeros_on_a_generated_sheet(style, tmp_path):
    """``652 km`` and ``652`` with small raised ``000``: every detected crossing named
    right (within 2 m of its true grid coordinates), each label used read as printed."""
    sheet = generate_sheet(18, 2000, difficulty=0.0, spacing_px=600.0, content_scale=0.3,
                           jpeg_roundtrip=True, margin_labels=style, label_size_px=110.0,
                           label_sides=4, label_turned=True, label_missing=0.0,
                           label_distractors=2,
                           centre_easting=652400.0, centre_northing=6862300.0)
    path = tmp_path / "plate.jpg"
    path.write_bytes(sheet.jpeg)
    res = georeference(path, sheet.grid_crs, gcps=False, mask=False)
    true_px = sheet.intersections + 0.5
    for q, g in zip(res.pixel_xy, res.grid_xy, strict=True):
        j = int(np.argmin(np.hypot(*(true_px - q).T)))
        assert np.hypot(*(sheet.grid_xy[j] - g)) <= 2.0
    assert res.labelling.spacing == 1000.0
    used = [lab for lab in res.labels if lab["used"]]
    assert len({lab["line"] for lab in used if lab["family"] == "columns"}) >= 2
    assert len({lab["line"] for lab in used if lab["family"] == "rows"}) >= 2
    truth = [lab for lab in sheet.params["grid_labels"] if not lab["distractor"]]
    for lab in used:
        cx, cy = (lab["box"][0] + lab["box"][2]) / 2, (lab["box"][1] + lab["box"][3]) / 2
        near = min(truth, key=lambda t: np.hypot(t["centre"][0] - cx, t["centre"][1] - cy))
        if style == "km":       # the unit read with the figures: 652km is 652000
            assert lab["text"] == near["text"].replace(" ", "")
            assert lab["value"] == near["value"]
        else:                   # the figures at full height: thousands
            assert lab["value"] * 1000 == near["value"]


def test_families_failing_alike_are_named_together():
    assert family_reasons([("columns", "x"), ("rows", "x")]) == "columns and rows: x"
    assert family_reasons([("columns", "x"), ("rows", "y")]) == "columns: x; rows: y"
    assert family_reasons([("rows", "y")]) == "rows: y"
    assert family_reasons([("", "no values")]) == "no values"


def test_candidate_strings_are_the_multiples_of_the_spacing():
    strings = candidate_strings(250.0)
    assert strings[:3] == ["250", "500", "750"] and strings[-1] == "99750"
    assert len(strings) == 399
    assert candidate_strings(2.5) == [] and candidate_strings(1.0) == []  # not bounded
    sim = _similarity("2750", ["2750", "2250", "275", "7250", "1000"])
    assert sim.tolist() == [1.0, 0.5, 0.5, 0.25, 0.125]
    assert _similarity("", ["2750"]).tolist() == [0.0]


def _word(line: int, texts: list[str], strings: list[str], end: int = -1) -> _Word:
    scores = np.max([_similarity(t, strings) for t in texts], axis=0)
    return _Word(0, line, end, (0, 0, 1, 1), (UP, UP), np.stack([scores, np.zeros_like(scores)]))


def test_sequence_of_multiples_is_chosen_by_the_readings_and_ties_refused():
    strings = candidate_strings(250.0)
    # 3000, 2750 ... falling a step a line; misreads of a figure or two, a missing label
    reads = {0: ["5000"], 1: ["2790", "2750"], 2: ["210", "2510"], 3: ["2250"], 4: ["2000"]}
    words = [_word(k, t, strings) for k, t in reads.items()]
    words.append(_word(2, ["500"], strings, end=1))           # a scale bar's "500"
    key, why, margin = _best_sequence(words, len(strings))
    assert why == "" and margin >= 1.0
    m0, d = key
    assert [strings[m0 + d * k] for k in range(5)] == ["3000", "2750", "2500", "2250", "2000"]
    # 3 and 5 read as often as each other: 3750... and 5750... cannot be told apart
    amb = [_word(0, ["3750"], strings), _word(1, ["5500"], strings), _word(2, ["5250"], strings),
           _word(3, ["3000"], strings)]
    key, why, _ = _best_sequence(amb, len(strings))
    assert key is None and "agree almost equally" in why
    # figures that match hardly anything: said so, not as a tie
    faint = [_word(k, [t], strings) for k, t in enumerate(["9", "11"])]
    key, why, _ = _best_sequence(faint, len(strings))
    assert key is None and "match no sequence" in why


def test_tesseract_reads_a_side_one_way_up_where_the_figure_reader_is_sure_of_it():
    """The labels along one side of the frame stand one way up: a side whose words the
    figure reader finds far likelier one way is shown to Tesseract that way only; a side
    it is unsure of, both ways."""
    strings = candidate_strings(250.0)
    sure, unsure = _word(0, ["2750"], strings), _word(1, ["2500"], strings, end=1)
    unsure.scores[1] = unsure.scores[0]                  # as likely either way up
    turned = _word(2, ["3000"], strings)
    turned.family, turned.scores = 1, turned.scores[::-1].copy()   # likelier half a turn round
    faint = _word(3, ["3000"], strings)
    faint.family, faint.end, faint.scores = 1, 1, 0.1 * faint.scores   # too little to say
    ways = _orientations_to_read([sure, unsure, turned, faint])
    assert ways == {(0, -1): (0,), (0, 1): (0, 1), (1, -1): (1,), (1, 1): (0, 1)}
    # Tesseract's readings raise the scores of the orientations read, and only those
    sure.crops = [_figures("2500")]
    unsure.crops = [_figures("2500")[::-1, ::-1]]       # printed upside down
    _add_tesseract([sure, unsure], 22.0, strings)
    assert sure.scores[0, strings.index("2500")] == 1.0 and not sure.scores[1].any()
    assert unsure.scores[1, strings.index("2500")] == 1.0


def test_small_words_on_a_sheet_of_large_cells_are_read_again_at_twice_the_resolution():
    """The resolution labels are read at is chosen from the grid cell (half from 1400 px);
    words found there under 12 px high are read again at full resolution, unless a cell is
    then over 2000 px (the time that costs)."""
    def words(height: int) -> list[LabelReading]:
        return [LabelReading("columns", k, -1, (100 * k, 0, 100 * k + 5 * height, 3 * height),
                             "", None, 0.0, UP, k, height=float(height)) for k in range(4)]

    index = np.array([[c, r] for r in range(3) for c in range(3)])
    image = np.full((3600, 3600), 255, np.uint8)
    result = graticule_from_points(300.0 + 1500.0 * index, index, (3600, 3600))
    gray = sheet_gray(image, result)
    assert gray[1] == 2 and gray[0].shape == (1800, 1800)
    finer = finer_gray(image, result, gray, words(20))       # 10 px high as read
    assert finer is not None and finer[1] == 1 and finer[0].shape == (3600, 3600)
    assert finer_gray(image, result, gray, words(30)) is None       # 15 px: readable
    assert finer_gray(image, result, gray, []) is None
    wide = graticule_from_points(300.0 + 2100.0 * index, index, (4800, 4800))
    assert finer_gray(image, wide, (gray[0], 2), words(20)) is None  # a 2100 px cell
    # along the lines inside the map most words are the map's: only those read as two
    # figures or more are measured
    along = words(60) + [LabelReading("rows", 9, 0, (0, 0, 90, 20), "6802", 6802.0, 80.0, UP,
                                      9 + k, height=20.0) for k in range(3)]
    assert finer_gray(image, result, gray, along) is None
    assert finer_gray(image, result, gray, along, figures=True)[1] == 1
    assert finer_gray(image, result, gray, words(20), figures=True) is None   # none read


def test_the_sheet_is_read_again_finer_only_after_every_reading_failed(monkeypatch):
    """The first reading, the old-style check and the search inside all run at the
    resolution chosen from the cell; only when all three fail (and the words are small) is
    every reading made again at twice the resolution. A sheet named at the first try is
    never read again."""
    import contextlib

    import core.georef.label_verify as verify

    calls = []
    named = [_reading("columns", c, str(652000 + 1000 * c), c) for c in range(4)] \
        + [_reading("rows", r, str(6862000 - 1000 * r), 10 + r, up=LEFT) for r in range(4)]
    first = {"coarse": [], "fine": []}

    def read_labels(image, result, gray, started=None):
        calls.append(("first", gray[0]))
        return first[gray[0]]

    monkeypatch.setattr(verify, "tesseract_started", lambda: contextlib.nullcontext([]))
    monkeypatch.setattr(verify, "sheet_gray", lambda image, result: ("coarse", 2))
    monkeypatch.setattr(verify, "read_labels", read_labels)
    monkeypatch.setattr(verify, "verify_labels", lambda image, result, spacing, gray: (
        calls.append(("old-style", gray[0])) or ([], [("", "no figures")])))
    monkeypatch.setattr(verify, "read_inside_labels", lambda image, result, gray: (
        calls.append(("inside", gray[0])) or []))
    monkeypatch.setattr(verify, "finer_gray", lambda image, result, gray, readings: (
        calls.append(("finer?", gray[0])) or ("fine", 1)))
    with pytest.raises(LabelsUnreadableError):
        labelling_from_labels("plate.jpg", _grid(), 1000.0)
    assert calls == [("first", "coarse"), ("old-style", "coarse"), ("inside", "coarse"),
                     ("finer?", "coarse"), ("first", "fine"), ("old-style", "fine"),
                     ("inside", "fine")]
    calls.clear()
    first["coarse"] = named
    lab = labelling_from_labels("plate.jpg", _grid(), 1000.0)
    assert calls == [("first", "coarse")] and lab.origin.tolist() == [652000.0, 6862000.0]


def test_a_family_named_from_two_lines_is_read_again_finer_and_the_surer_naming_kept(
        monkeypatch):
    """A naming whose rows rest on two lines only (a misread leading figure can name such a
    sheet a whole 6 000 000 m off) is read again at twice the resolution when its words are
    small; the finer naming is kept when it rests on more lines, else the first one."""
    import contextlib

    import core.georef.label_verify as verify

    def readings(north: float, rows: int) -> list[LabelReading]:
        return [_reading("columns", c, str(652000 + 1000 * c), c) for c in range(4)] \
            + [_reading("rows", r, str(int(north) - 1000 * r), 10 + r, up=LEFT)
               for r in range(rows)]

    first = {"coarse": readings(805000, 2), "fine": readings(6805000, 4)}
    calls = []
    monkeypatch.setattr(verify, "tesseract_started", lambda: contextlib.nullcontext([]))
    monkeypatch.setattr(verify, "sheet_gray", lambda image, result: ("coarse", 2))
    monkeypatch.setattr(verify, "read_labels", lambda image, result, gray, started=None: (
        calls.append(gray[0]) or first[gray[0]]))
    monkeypatch.setattr(verify, "finer_gray",
                        lambda image, result, gray, words, figures=False: ("fine", 1))
    lab = labelling_from_labels("plate.jpg", _grid(), None)
    assert calls == ["coarse", "fine"] and lab.origin.tolist() == [652000.0, 6805000.0]
    assert not any("only two" in w for w in lab.warnings)
    # read again no surer: the first naming stands, with its warning
    first["fine"] = readings(6805000, 2)
    lab = labelling_from_labels("plate.jpg", _grid(), None)
    assert lab.origin.tolist() == [652000.0, 805000.0]
    assert any("only two rows lines" in w for w in lab.warnings)
    # words not small: not read again
    calls.clear()
    monkeypatch.setattr(verify, "finer_gray",
                        lambda image, result, gray, words, figures=False: None)
    labelling_from_labels("plate.jpg", _grid(), None)
    assert calls == ["coarse"]


def test_tesseract_started_ahead_reads_as_one_started_for_the_words():
    """Processes started ahead (loading their model while the sheet is decoded) read the
    words as a process started for them does; those left waiting are stopped."""
    words = [_figures("6862000"), _figures("2750")]
    with tesseract_started() as started:
        waiting = list(started)
        assert waiting
        ahead = read_words(words, started=started)
        assert len(started) == len(waiting) - 1         # two words: one process took them
        other = read_words(words, chars="0123456789", started=started)
        assert [t for t, _ in other] == ["6862000", "2750"]
        assert len(started) == len(waiting) - 1         # reading other characters: not used
    assert all(proc.poll() is not None for proc in waiting)
    assert ahead == read_words(words) and [t for t, _ in ahead] == ["6862000", "2750"]


def test_upright_family_is_the_easting_when_the_other_reads_from_outside():
    # Jacoubet: eastings upright at top and bottom, northings turned to be read from
    # outside the frame (left: upwards, right: downwards), all without sign
    rs = []
    for c in range(4):
        rs += [_reading("columns", c, str(3000 - 250 * c), 2 * c, up=UP),
               _reading("columns", c, str(3000 - 250 * c), 2 * c + 1, up=UP, end=1)]
    for r in range(4):
        rs += [_reading("rows", r, str(3750 - 250 * r), 20 + 2 * r, up=LEFT),
               _reading("rows", r, str(3750 - 250 * r), 21 + 2 * r, up=RIGHT, end=1)]
    lab, _ = labelling_from_readings(_grid(), rs, 250.0)
    assert lab.north_in_image == "up" and lab.orientation.tolist() == [[1, 0], [0, -1]]
    assert lab.origin.tolist() == [-3000.0, 3750.0]


@pytest.mark.skipif(not JACOUBET.is_dir(), reason="../shared/data/jacoubet-1836 not present")
def test_real_jacoubet_sheet_labelled_from_its_old_style_figures(tmp_path):
    from core.graticule import detect_on_sheet

    path = tmp_path / "sheet.jpg"
    path.write_bytes((JACOUBET / "021-INPUT.jpg").read_bytes())
    graticule = detect_on_sheet(str(path))
    lab = labelling_from_labels(path, graticule, 250.0)
    assert lab.source == "labels" and lab.spacing == 250.0 and lab.north_in_image == "up"
    assert any("old-style figures" in w for w in lab.warnings)
    used = [r for r in lab.labels if r["used"]]
    for fam in ("columns", "rows"):
        mine = [r for r in used if r["family"] == fam]
        assert len({r["line"] for r in mine}) >= 3
        assert all(r["value"] % 250 == 0 for r in mine)
        # a line read at both ends reads the same value at both
        for line in {r["line"] for r in mine}:
            assert len({r["value"] for r in mine if r["line"] == line}) == 1
    # the grid coordinates of the crossings agree with the values read by the frame:
    # one step of the grid per grid line, eastings growing eastward
    grid = lab.grid_coordinates(graticule.index)
    east = grid[np.argsort(graticule.points[:, 0])][:, 0]
    assert east[-1] - east[0] > 0 and set(np.diff(np.unique(grid[:, 0]))) == {250.0}
    # a wrong spacing is named in the refusal, which lists what every reading read
    with pytest.raises(LabelsUnreadableError) as refused:
        labelling_from_labels(path, graticule, 300.0)
    message = refused.value.render()
    assert "multiples of --spacing 300" in message and "is that the grid's spacing?" in message
    assert message.endswith("--gcps FILE.points")
    assert len(refused.value.labels) > len(used)


def test_a_line_hidden_under_a_block_by_the_frame_ends_at_the_frame_when_gaps_are_bridged():
    """Line up the middle of a strip (out = up): 100 px from the bottom, under a block 40 px
    long (no contrast across it), then 20 px more to the frame."""
    strip = np.full((300, 21), 220, np.uint8)
    strip[-100:, 10] = 60                      # the line, from the bottom out
    strip[-140:-100, :] = 80                   # the block it is hidden under
    strip[-160:-140, 10] = 60                  # its last 20 px, too short a run alone
    assert _line_end(strip, 40) == 100.0
    assert _line_end(strip, 40, 30) == 100.0   # a gap longer than bridged
    assert _line_end(strip, 40, 50) == 160.0
