"""``python -m core.metrics T1|T2|T3``: outputs, names and keys of the official tool, errors."""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from core.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_SOME_FAILED, run_cli
from core.metrics.mapseg_cli import main

REPO = Path(__file__).resolve().parents[3]
pytest.importorskip("icdar21_mapseg_eval")


def run(command: str, *args) -> int:
    return run_cli(lambda argv: main(command, argv), [str(a) for a in args])


def run_official(task: int, ref: Path, pred: Path, out: Path) -> None:
    """The official command line's task function, in this process (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from icdar21_mapseg_eval import cli

    try:
        getattr(cli, f"task_0{task}")(str(ref), str(pred), str(out))
    finally:
        plt.close("all")


def _blocks(rng, h=48, w=64, n=9):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        x, y = int(rng.integers(0, w - 4)), int(rng.integers(0, h - 4))
        img[y:y + int(rng.integers(3, 11)), x:x + int(rng.integers(3, 15))] = 255
    return img


def _points_csv(path: Path, pts) -> None:
    path.write_text("x,y\n" + "".join(f"{x},{y}\n" for x, y in pts), encoding="utf-8")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """Two MapSeg sheets: masks (T1, T2) and points (T3), references and predictions."""
    rng = np.random.default_rng(5)
    root = tmp_path_factory.mktemp("mapseg")
    gt, pr = root / "gt", root / "pred"
    gt.mkdir()
    pr.mkdir()
    for sheet in ("101", "102"):
        ref = _blocks(rng)
        pred = np.roll(ref, 1, axis=1)
        pred[int(rng.integers(48)), :] = 0  # splits a block or two
        cv2.imwrite(str(gt / f"{sheet}-OUTPUT-GT.png"), ref)
        cv2.imwrite(str(pr / f"{sheet}-OUTPUT-PRED.png"), pred)
        pts = rng.integers(0, 3000, (8, 2))
        _points_csv(gt / f"{sheet}-OUTPUT-GT.csv", pts)
        _points_csv(pr / f"{sheet}-OUTPUT-PRED.csv", pts[:6] + rng.integers(-40, 41, (6, 2)))
    return gt, pr


@pytest.fixture(scope="module")
def official_outputs(dirs, tmp_path_factory):
    """The official command line's output directory for T1, T2 and T3 on ``dirs``."""
    root = tmp_path_factory.mktemp("official")
    for task in (1, 2, 3):
        run_official(task, *dirs, root / f"T{task}")
    return root


def _rows(path: Path) -> list[dict]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize(("command", "task", "json_name", "key", "global_csv", "column"), [
    ("T1", 1, "global_score.json", "global_mean_cocopq", "global_coco.csv", "COCO PQ"),
    ("T2", 2, "global_error.json", "global_mean_error", "global_hd95.csv", "Error"),
    ("T3", 3, "global_score.json", "global_mean_score", "global_rad:50_beta:0.50.csv",
     "Score"),
])
def test_directory_mode_equals_official_outputs(dirs, official_outputs, tmp_path, capsys,
                                                command, task, json_name, key, global_csv,
                                                column):
    gt, pr = dirs
    ours, theirs = tmp_path / "ours", official_outputs / command
    assert run(command, gt, pr, ours, "--official") == EXIT_OK
    mine = json.loads((ours / json_name).read_text())
    official = json.loads((theirs / json_name).read_text())
    for k, v in official.items():  # every official key, with the official value
        assert mine[k] == v, k
    ours_rows, their_rows = _rows(ours / global_csv), _rows(theirs / global_csv)
    assert [r["Reference"] for r in ours_rows] == [r["Reference"] for r in their_rows]
    for a, b in zip(ours_rows, their_rows, strict=True):
        assert float(a[column]) == float(b[column])
    out = capsys.readouterr().out
    assert f"{official[key]:0.3f}" in out and "101-OUTPUT-PRED" in out
    # default mode: T2 and T3 agree within 1e-9 (T1 may differ by its documented quirks,
    # which test_mapseg_panoptic.py covers)
    assert run(command, gt, pr, tmp_path / "default") == EXIT_OK
    default = json.loads((tmp_path / "default" / json_name).read_text())
    assert default["official"] is False and mine["official"] is True
    if command != "T1":
        assert abs(default[key] - official[key]) <= 1e-9


def test_t3_per_file_csvs_equal_official(dirs, official_outputs, tmp_path):
    gt, pr = dirs
    assert run("T3", gt, pr, tmp_path / "ours") == EXIT_OK
    for name in ("101-OUTPUT-PRED.eval.csv", "102-OUTPUT-PRED.plot.csv"):
        theirs = _rows(official_outputs / "T3" / name)
        ours = _rows(tmp_path / "ours" / name)
        assert len(ours) == len(theirs) > 0
        for a, b in zip(ours, theirs, strict=True):
            assert all(a[k] == b[k] for k in b), (name, a, b)  # same text, official columns
    for suffix in (".plot.pdf", ".plot.png", ".clf.pdf", ".clf.png"):
        assert (tmp_path / "ours" / f"102-OUTPUT-PRED{suffix}").stat().st_size > 1000


def test_file_mode_writes_curves_and_summary(dirs, tmp_path, capsys):
    gt, pr = dirs
    out = tmp_path / "out"
    assert run("T1", gt / "101-OUTPUT-GT.png", pr / "101-OUTPUT-PRED.png", out) == EXIT_OK
    names = {p.name for p in out.iterdir()}
    assert names == {"101-OUTPUT-PRED.eval.csv", "101-OUTPUT-PRED.plot.csv",
                     "101-OUTPUT-PRED.plot.pdf", "101-OUTPUT-PRED.plot.png",
                     "global_coco.csv", "global_score.json"}
    data = json.loads((out / "global_score.json").read_text())
    curve = _rows(out / "101-OUTPUT-PRED.plot.csv")
    assert float(curve[0]["F-score"]) == pytest.approx(data["global_mean_cocorq"])
    assert data["global_mean_cocopq"] == pytest.approx(
        data["global_mean_cocosq"] * data["global_mean_cocorq"])
    assert "Global score for task 1" in capsys.readouterr().out
    png = cv2.imread(str(out / "101-OUTPUT-PRED.plot.png"))
    assert png is not None and png.shape[0] >= 500


def test_stray_grey_pixel_default_vs_official(tmp_path, capsys):
    ref = np.zeros((30, 40), np.uint8)
    ref[3:10, 3:12] = ref[15:25, 20:35] = 255
    pred = ref.copy()
    pred[5, 5] = 254
    cv2.imwrite(str(tmp_path / "gt.png"), ref)
    cv2.imwrite(str(tmp_path / "pred.png"), pred)
    assert run("T1", tmp_path / "gt.png", tmp_path / "pred.png", tmp_path / "a") == EXIT_OK
    assert json.loads((tmp_path / "a" / "global_score.json").read_text())[
        "global_mean_cocopq"] == 1.0
    assert run("T1", tmp_path / "gt.png", tmp_path / "pred.png", tmp_path / "b",
               "--official") == EXIT_OK
    assert json.loads((tmp_path / "b" / "global_score.json").read_text())[
        "global_mean_cocopq"] < 0.5


@pytest.mark.filterwarnings("ignore::UserWarning")  # the official tool's own warnings
def test_t3_header_only_and_single_row(tmp_path, capsys):
    _points_csv(tmp_path / "gt.csv", [(10, 10), (500, 500)])
    _points_csv(tmp_path / "empty.csv", [])
    _points_csv(tmp_path / "one.csv", [(12, 10)])
    assert run("T3", tmp_path / "gt.csv", tmp_path / "empty.csv", tmp_path / "a") == EXIT_OK
    assert json.loads((tmp_path / "a" / "global_score.json").read_text())[
        "global_mean_score"] == 0.0
    assert run("T3", tmp_path / "gt.csv", tmp_path / "one.csv", tmp_path / "b") == EXIT_OK
    assert json.loads((tmp_path / "b" / "global_score.json").read_text())[
        "global_mean_score"] > 0.5
    capsys.readouterr()
    assert run("T3", tmp_path / "gt.csv", tmp_path / "one.csv", tmp_path / "c",
               "--official") == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "official" in err and "fails" in err and "one-row" in err and err.count("\n") == 1
    assert not (tmp_path / "c").exists()
    # the official command line does crash on both
    for name in ("one.csv", "empty.csv"):
        with pytest.raises((ValueError, TypeError, IndexError)):
            run_official(3, tmp_path / "gt.csv", tmp_path / name, tmp_path / "d")


def test_t2_empty_prediction(tmp_path, capsys):
    ref = np.zeros((30, 40), np.uint8)
    ref[5:20, 5:30] = 255
    cv2.imwrite(str(tmp_path / "gt.png"), ref)
    cv2.imwrite(str(tmp_path / "pred.png"), np.zeros_like(ref))
    assert run("T2", tmp_path / "gt.png", tmp_path / "pred.png", tmp_path / "a") == EXIT_OK
    data = json.loads((tmp_path / "a" / "global_error.json").read_text())
    assert data["global_mean_error"] == 50.0
    assert run("T2", tmp_path / "gt.png", tmp_path / "pred.png", tmp_path / "b",
               "--official") == EXIT_BAD_INPUT
    assert "fails on this input (empty prediction" in capsys.readouterr().err


def _bad_inputs(tmp_path: Path) -> dict[str, tuple]:
    good = np.zeros((20, 30), np.uint8)
    good[2:8, 2:8] = 255
    cv2.imwrite(str(tmp_path / "good.png"), good)
    cv2.imwrite(str(tmp_path / "small.png"), good[:10])
    cv2.imwrite(str(tmp_path / "rgb.png"), np.dstack((good, good // 2, good)))
    cv2.imwrite(str(tmp_path / "float.tif"), good.astype(np.float32))
    (tmp_path / "bad.csv").write_text("x,y\n1,2\n3;4\n", encoding="utf-8")
    _points_csv(tmp_path / "ok.csv", [(1, 2), (3, 4)])
    (tmp_path / "d1").mkdir()
    (tmp_path / "d2").mkdir()
    cv2.imwrite(str(tmp_path / "d1" / "001-OUTPUT-GT.png"), good)
    cv2.imwrite(str(tmp_path / "d2" / "002-OUTPUT-PRED.png"), good)
    return {
        "missing": ("T1", tmp_path / "good.png", tmp_path / "nope.png", "no such file"),
        "sizes": ("T2", tmp_path / "good.png", tmp_path / "small.png", "one size"),
        "rgb": ("T1", tmp_path / "good.png", tmp_path / "rgb.png", "colour"),
        "float": ("T1", tmp_path / "float.tif", tmp_path / "good.png", "float32"),
        "csv": ("T3", tmp_path / "ok.csv", tmp_path / "bad.csv", "line 3"),
        "unmatched": ("T1", tmp_path / "d1", tmp_path / "d2", "no prediction for 001"),
        "file-and-dir": ("T3", tmp_path / "ok.csv", tmp_path / "d1", "two files or two"),
    }


@pytest.mark.parametrize("case", ["missing", "sizes", "rgb", "float", "csv", "unmatched",
                                  "file-and-dir"])
def test_bad_input_one_line_error_and_no_output(tmp_path, capsys, case):
    command, ref, pred, message = _bad_inputs(tmp_path)[case]
    out = tmp_path / "out"
    assert run(command, ref, pred, out) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err and err.count("\n") == 1, err
    assert not out.exists()


def test_directory_mode_goes_on_past_a_bad_file(dirs, tmp_path, capsys):
    gt, pr = dirs
    pr2 = tmp_path / "pred"
    shutil.copytree(pr, pr2)
    (pr2 / "102-OUTPUT-PRED.csv").write_text("x,y\nnot,numbers\n", encoding="utf-8")
    out = tmp_path / "out"
    assert run("T3", gt, pr2, out) == EXIT_SOME_FAILED
    data = json.loads((out / "global_score.json").read_text())
    assert data["failed"] == ["102-OUTPUT-PRED.csv"] and len(data["references"]) == 1
    assert data["global_mean_score"] == float(
        _rows(out / "global_rad:50_beta:0.50.csv")[0]["Score"])
    assert "1 of 2 failed" in capsys.readouterr().err


def test_module_entry_point(dirs, tmp_path):
    gt, pr = dirs
    proc = subprocess.run(
        [sys.executable, "-m", "core.metrics", "T2", str(gt), str(pr), str(tmp_path / "o")],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    value = json.loads((tmp_path / "o" / "global_error.json").read_text())["global_mean_error"]
    assert math.isfinite(value) and f"{value:0.3f}" in proc.stdout


@pytest.mark.filterwarnings("ignore::UserWarning")  # imageio's note on 16-bit PNG
@pytest.mark.parametrize("suffix", [".png", ".tif"])
def test_t1_label_map_files(tmp_path, suffix):
    """16-bit PNG and 32-bit TIFF label maps, read as the official tool reads them."""
    import tifffile
    from icdar21_mapseg_eval import COCO
    from skimage.io import imread

    rng = np.random.default_rng(9)
    dtype = np.uint16 if suffix == ".png" else np.int32
    ref = np.zeros((40, 60), dtype)
    for k in range(1, 9):  # labels 1..8, a segment may have several pieces
        y, x = int(rng.integers(0, 34)), int(rng.integers(0, 54))
        ref[y:y + 6, x:x + 6] = k
    pred = np.roll(ref, 1, axis=0)
    paths = tmp_path / f"ref{suffix}", tmp_path / f"pred{suffix}"
    for path, img in zip(paths, (ref, pred), strict=True):
        if suffix == ".png":
            cv2.imwrite(str(path), img)
        else:
            tifffile.imwrite(path, img)
    assert run("T1", *paths, tmp_path / "out", "--official") == EXIT_OK
    got = json.loads((tmp_path / "out" / "global_score.json").read_text())
    a, b = imread(paths[0], as_gray=True), imread(paths[1], as_gray=True)
    assert np.array_equal(a, ref)  # same labels (imageio gives int32 for 16-bit PNG)
    assert got["global_mean_cocopq"] == float(COCO(a, b)[0]) > 0.3
