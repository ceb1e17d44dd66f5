"""Property-based and fuzz tests (hypothesis, seeds fixed): every reader and every command
line either gives a valid result or a clean InputError (one ``error:`` line, exit 2), and
never changes an input.

Readers get arbitrary and adversarial text (NaN, inf, huge and malformed numbers, broken
structure); command lines get argument lists drawn from each command's own options with
careless values. So that a command line accepted as valid costs nothing, its work function
is replaced by one that records the call: the property is "refused cleanly, or reached the
work with valid values". Bounded: a few hundred examples in all, about 20 s.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.cli import run_cli
from core.errors import InputError
from core.limits import MAX_MAP_COORD, MAX_PIXEL_COORD

FUZZ = settings(derandomize=True, deadline=None, max_examples=60, database=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

NUMBER_TEXT = st.one_of(
    st.sampled_from(["nan", "NaN", "inf", "-inf", "1e400", "-1e400", "2673e038", "1e300",
                     "0", "-0", "-1", "1e-320", "", " ", "abc", "1,5", "0x10", "1_000",
                     "99999999999999999999999", "1e7", "10000001"]),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-10**12, 10**12).map(str),
    st.text(alphabet="0123456789.eE+-", max_size=8),
)


def outcome(read, *args, **kwargs):
    """``(value, None)`` or ``(None, message)`` when ``read`` raises InputError."""
    try:
        return read(*args, **kwargs), None
    except InputError as exc:
        return None, str(exc)


def _digest(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.md5(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


# ---- readers -----------------------------------------------------------------------------

@FUZZ
@given(rows=st.lists(st.one_of(st.tuples(NUMBER_TEXT, NUMBER_TEXT).map(",".join),
                               st.text(max_size=12)), max_size=6),
       header=st.sampled_from(["x,y", "X, Y", "\ufeffx,y", "y,x", ""]))
def test_mapseg_csv_reader_gives_bounded_points_or_a_clean_error(tmp_path, rows, header):
    from core.formats.mapseg_csv import read_points_csv

    path = tmp_path / "p.csv"
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    pts, error = outcome(read_points_csv, path)
    if error is not None:
        assert "\n" not in error
        return
    assert pts.shape[1] == 2 and pts.dtype == np.float64
    assert np.isfinite(pts).all() and (np.abs(pts) <= MAX_PIXEL_COORD).all()


@FUZZ
@given(rows=st.lists(st.lists(NUMBER_TEXT, min_size=3, max_size=8).map(",".join),
                     max_size=5),
       crs=st.sampled_from(["", "#CRS: EPSG:2154\n", "#CRS:\n", "# comment\n"]))
def test_qgis_points_reader_gives_bounded_points_or_a_clean_error(tmp_path, rows, crs):
    from core.formats.qgis_points import HEADER, read_points_file

    path = tmp_path / "p.points"
    path.write_text(crs + "\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    gcps, error = outcome(read_points_file, path)
    if error is not None:
        assert "\n" not in error
        return
    assert np.isfinite(gcps.map_xy).all() and np.isfinite(gcps.pixel_xy).all()
    assert (np.abs(gcps.map_xy) <= MAX_MAP_COORD).all()
    assert (np.abs(gcps.pixel_xy) <= MAX_PIXEL_COORD).all()


@FUZZ
@given(lines=st.lists(st.one_of(
    st.tuples(st.lists(NUMBER_TEXT, min_size=8, max_size=8).map(",".join),
              st.text(max_size=6)).map(",".join),
    st.lists(st.integers(-10**15, 10**15), min_size=8, max_size=9).map(
        lambda v: ",".join(map(str, v))),
    st.text(max_size=30)), max_size=5))
def test_rrc_text_reader_gives_bounded_words_or_a_clean_error(lines, tmp_path):
    from core.metrics.textdet.rrc_format import parse_text

    words, error = outcome(parse_text, "\n".join(lines), "res_1.txt", need_text=False)
    if error is not None:
        assert error.startswith("res_1.txt line ")
        return
    for w in words:
        assert len(w.points) == 8 and all(abs(v) <= MAX_PIXEL_COORD for v in w.points)


JSON_NUMBERS = st.one_of(st.integers(-10**6, 10**6), st.floats(-1e6, 1e6),
                         st.sampled_from([1e300, -1e300, 1e8, 0.0, float("nan"), float("inf")]),
                         st.floats(-60.0, 60.0))
JSON = st.recursive(st.one_of(st.none(), st.booleans(), JSON_NUMBERS, st.text(max_size=5)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4),
                                            st.dictionaries(st.text(max_size=6), inner,
                                                            max_size=4)),
                    max_leaves=12)


@st.composite
def submissions(draw) -> dict:
    """A submission frame: n vectors with n scores and n labels, mostly well formed so
    that the numbers (NaN, inf, 1e300, 1e8) reach the metric."""
    n = draw(st.integers(0, 3))
    coordinate = st.one_of(st.floats(-60.0, 60.0), st.sampled_from([1e300, -1e300, 1e8]),
                           st.sampled_from([float("nan"), float("inf")]), st.integers(-99, 99))
    point = st.lists(coordinate, min_size=2, max_size=2)
    return {"vectors": draw(st.lists(st.lists(point, min_size=1, max_size=4), min_size=n,
                                     max_size=n)),
            "scores": draw(st.lists(JSON_NUMBERS, min_size=n, max_size=n)),
            "labels": draw(st.lists(st.sampled_from([0, 1, 2, 7]), min_size=n,
                                    max_size=n))}


@pytest.fixture(scope="module")
def chamfer_gt(shared) -> Path:
    return shared / "fixtures" / "chamfer_ap" / "c01_edge_threshold_boundaries" / "gt.json"


@FUZZ
@given(frame=submissions(), junk=JSON)
def test_chamfer_ap_scores_or_refuses_any_submission(chamfer_gt, tmp_path, capsys, frame,
                                                     junk):
    from core.metrics.__main__ import main

    token = json.loads(chamfer_gt.read_text())
    token = next(iter(token.values()))[0]["timestamp"]
    pred = tmp_path / "pred.json"
    doc = {"results": {token: frame}, "junk": junk}
    pred.write_text(json.dumps(doc))           # Python writes NaN / Infinity as they are
    before = _digest(tmp_path)
    code = run_cli(main, ["chamfer-ap", str(chamfer_gt), str(pred)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 2)
    if code == 2:
        assert len(err) == 1 and err[0].startswith("error: "), err
    assert _digest(tmp_path) == before


@FUZZ
@given(task=st.sampled_from(["1", "2", "3", "5", "6b"]), doc=JSON,
       blocks=st.lists(st.fixed_dictionaries({
           "bb": st.fixed_dictionaries(dict.fromkeys(("x0", "y0", "width", "height"),
                                                         JSON_NUMBERS)),
           "text": st.text(max_size=4)}), max_size=3))
def test_chart_scores_or_refuses_any_prediction(shared, tmp_path, capsys, task, doc, blocks):
    from core.metrics.__main__ import main

    src = shared / "fixtures" / "chart" / f"task{task}"
    case = sorted(p for p in src.iterdir() if p.is_dir())[0]
    gt = case / "gt"
    chart = sorted(gt.glob("*.json"))[0].name
    pred = tmp_path / "pred"      # tmp_path is shared by the examples
    shutil.rmtree(pred, ignore_errors=True)
    pred.mkdir()
    content = {"task2": {"output": {"text_blocks": blocks}}} if task == "2" else doc
    (pred / chart).write_text(json.dumps(content))
    out = tmp_path / "o.json"
    out.unlink(missing_ok=True)
    code = run_cli(main, ["chart", task, str(gt), str(pred), "--json", str(out), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 1, 2)
    if code == 2:
        assert len(err) == 1 and err[0].startswith("error: "), err
        assert not out.exists()
    else:
        result = json.loads(out.read_text())
        assert all(isinstance(v, int | float) and (v is None or math.isfinite(v))
                   for k, v in result.items() if isinstance(v, float))


# ---- command lines -----------------------------------------------------------------------

class Reached(BaseException):  # not an error: the arguments were accepted
    """Raised by a stubbed work function: the command accepted its arguments."""


def _reach(*args, **kwargs):
    raise Reached(args, kwargs)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, shared) -> Path:
    d = tmp_path_factory.mktemp("cli")
    img = np.random.default_rng(1).integers(100, 255, (300, 300, 3), dtype=np.uint8)
    assert cv2.imwrite(str(d / "S.jpg"), img)
    assert cv2.imwrite(str(d / "M.png"), np.full((300, 300), 255, np.uint8))
    (d / "S.points").write_text("mapX,mapY,sourceX,sourceY\n0,0,10,-10\n1000,0,200,-12\n"
                                "0,-1000,12,-200\n")
    (d / "gt.csv").write_text("x,y\n1,2\n")
    shutil.copytree(shared / "fixtures" / "textdet" / "c01_edge_thresholds" / "gt", d / "tgt")
    case = shared / "fixtures" / "chamfer_ap" / "c01_edge_threshold_boundaries"
    shutil.copy(case / "gt.json", d / "gt.json")
    shutil.copy(case / "pred.json", d / "pred.json")
    return d


COMMANDS = {
    # command: (module holding main, "module:function" of the work to stub (module empty:
    # main's own), positionals, {option: kind of value})
    "graticule": ("core.graticule.__main__", [":detect_on_sheet"], ["S.jpg"],
                  {"-o": "out", "--mask": "file", "--no-mask": None, "--spacing": "num",
                   "--all": None, "--debug": "out"}),
    "maparea": ("core.maparea.__main__", [":map_area_mask"], ["S.jpg"],
                {"-o": "out", "--reduce": "num"}),
    "blocks": ("core.blocks.__main__", [":segment_sheet"], ["S.jpg"],
               {"-o": "out", "--mask": "file", "--level": "word", "--gpkg": "out",
                "--tolerance": "num", "--scale": "num", "--lines": None}),
    "georef": ("core.georef.__main__", ["core.georef.pipeline:_labelled_detections",
                                        "core.georef.crs:transform_points"], ["S.jpg"],
               {"--crs": "crs", "--grid-crs": "crs", "--spacing": "num", "--anchor": "anchor",
                "--gcps": "file", "--no-gcps": None, "--gcps-only": None,
                "--transform": "word", "-o": "out", "--mask": "file", "--threshold": "num",
                "--outliers": "word", "--overviews": None}),
    "synth": ("core.synth.__main__", [":generate_sheet"], ["sy"],
              {"--count": "num", "--size": "num", "--width": "num", "--height": "num",
               "--seed": "num", "--first-index": "num", "--difficulty": "num",
               "--spacing": "num", "--quality": "num", "--content-scale": "num"}),
    "T3": ("core.metrics.mapseg_cli", [":_pairs"], ["gt.csv", "@file", "@out"],
           {"--official": None}),
    "textdet": ("core.metrics.textdet.cli", [":evaluate_paths"], ["tgt", "tgt"],
                {"--metrics": "word", "--json": "out", "--official": None}),
    "chamfer-ap": ("core.metrics.chamfer_ap.cli", [":chamfer_ap"], ["gt.json", "pred.json"],
                   {"--json": "out", "--thresholds": "num", "--sample-dist": "num",
                    "--official": None, "--per-frame": None}),
}
VALUES = {
    "num": NUMBER_TEXT,
    "out": st.sampled_from(["o.csv", "o.png", "o.gpkg", "o.json", "S.jpg", "M.png", "./S.jpg",
                            "S.points", "gt.json", "tgt/gt_img_1.txt", "S.jpg/x", "out", ".",
                            "/proc/sys/x/o", "d/e/f.png"]),
    "file": st.sampled_from(["S.jpg", "M.png", "S.points", "missing.png", "tgt", "gt.csv"]),
    "word": st.sampled_from(["blocks", "shapes", "tps", "affine", "helmert", "magsac", "none",
                             "iou", "", "x"]),
    "crs": st.sampled_from(["EPSG:2154", "paris-atlas", "EPSG:0", "nowhere", "4326"]),
    "anchor": st.one_of(st.tuples(NUMBER_TEXT, NUMBER_TEXT, NUMBER_TEXT, NUMBER_TEXT).map(
        lambda v: f"{v[0]},{v[1]}={v[2]},{v[3]}"), st.text(max_size=8)),
}


@st.composite
def command_lines(draw, name: str) -> list[str]:
    _, _, positionals, options = COMMANDS[name]
    argv = [draw(VALUES[p[1:]]) if p.startswith("@") else p for p in positionals]
    required = [f for f in ("-o", "--crs") if f in options and name != "textdet"]
    for flag in required + draw(st.lists(st.sampled_from(sorted(options)), max_size=3)):
        argv.append(flag)
        if options[flag] is not None:
            argv.append(draw(VALUES[options[flag]]))
    return argv


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_line_is_refused_cleanly_or_reaches_the_work(name, inputs, tmp_path,
                                                                   monkeypatch, capsys):
    import importlib

    from core.metrics.__main__ import main as metrics_main

    module_name, stubs, _, _ = COMMANDS[name]
    module = importlib.import_module(module_name)
    for stub in stubs:
        owner, attr = stub.split(":")
        monkeypatch.setattr(importlib.import_module(owner) if owner else module, attr, _reach)
    work = tmp_path / "w"
    shutil.copytree(inputs, work)
    monkeypatch.chdir(work)
    main = (lambda argv: metrics_main([name, *argv])) if module_name.startswith(
        "core.metrics") else module.main
    before = _digest(work)

    seen = {"reached": 0, "refused": 0}

    @settings(FUZZ, max_examples=40)
    @given(argv=command_lines(name))
    def check(argv):
        capsys.readouterr()
        try:
            code = run_cli(main, argv)
        except SystemExit as exc:     # argparse's own usage error: exit 2, no traceback
            code = exc.code
            assert code == 2
        except Reached:
            seen["reached"] += 1      # accepted: the work would start
            return
        seen["refused"] += code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert code in (0, 2), (argv, err)
        if code == 2:
            assert sum(line.startswith(("error:", "python -m")) or ": error:" in line
                       for line in err) == 1, (argv, err)
        assert "Traceback" not in "\n".join(err)
        assert _digest(work) == before, argv
        for p in work.iterdir():      # folders made for outputs never reached
            if p.name not in before and not any(k.startswith(p.name + "/") for k in before):
                shutil.rmtree(p) if p.is_dir() else p.unlink()

    check()
    assert seen["reached"] and seen["refused"], seen     # both outcomes were exercised
