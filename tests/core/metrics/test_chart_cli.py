"""``python -m core.metrics chart``: outputs, exit codes, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_SOME_FAILED, run_cli
from core.metrics.__main__ import main as metrics_main

REPO = Path(__file__).resolve().parents[3]


def run(argv: list[str]) -> int:
    return run_cli(metrics_main, ["chart", *argv])


def case(shared: Path, task: str, name: str) -> Path:
    return shared / "fixtures" / "chart" / task / name


def test_official_json_has_the_result_keys(shared, tmp_path, capsys):
    d = case(shared, "task6b", "c03_value_noise")
    out = tmp_path / "scores.json"
    rc = run(["6b", str(d / "gt"), str(d / "pred"), "--official", "2020", "--json", str(out)])
    assert rc == EXIT_OK
    doc = json.loads(out.read_text())
    expected = json.loads((shared / "fixtures" / "chart" / "expected.json").read_text())
    ref = expected["task6b/c03_value_noise"]["ref2020"]
    for key in ("score", "name_score", "data_score"):
        assert isinstance(doc[key], float)
        assert doc[key] == pytest.approx(ref["mean_of_per_chart"][key], abs=1e-9)
    assert set(doc["per_chart"]) == set(ref["per_chart"])
    assert doc["mode"] == "official-2020"
    printed = capsys.readouterr().out
    assert "score 0.842645" in printed


def test_task4_with_images_and_task1_options(shared, tmp_path):
    d = case(shared, "task4", "c08_empty_gt_axes_typo")
    out = tmp_path / "t4.json"
    assert run(["4", str(d / "gt"), str(d / "pred"), "--images", str(d / "images"),
                "--official", "2019", "--json", str(out)]) == EXIT_OK
    assert json.loads(out.read_text())["f_measure"] == pytest.approx(0.6428571428571429)
    d = case(shared, "task1", "c10_missing_files_and_mapping")
    out = tmp_path / "t1.json"
    assert run(["1", str(d / "gt"), str(d / "pred"), "--official", "2020",
                "--ambiguous", str(d / "ambiguous_ids.txt"),
                "--class-mapping", str(d / "class_mapping.json"), "--json", str(out)]) == EXIT_OK
    assert json.loads(out.read_text())["average_f_measure"] == pytest.approx(0.8888888888888888)


def test_script_crash_is_one_line_and_writes_nothing(shared, tmp_path, capsys):
    d = case(shared, "task5", "c08_zero_height_line_legend")
    out = tmp_path / "never.json"
    rc = run(["5", str(d / "gt"), str(d / "pred"), "--official", "2020", "--json", str(out)])
    assert rc == EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ZeroDivisionError" in err[0]
    assert not out.exists()
    assert list(tmp_path.iterdir()) == []


def test_bad_input_exit_2(tmp_path, capsys):
    assert run(["2", str(tmp_path / "nope"), str(tmp_path)]) == EXIT_BAD_INPUT
    assert "no such GT folder" in capsys.readouterr().err
    assert run(["2", str(tmp_path), str(tmp_path), "--ambiguous", "x.txt"]) == EXIT_BAD_INPUT
    assert "does not apply to task 2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        run(["9", str(tmp_path), str(tmp_path)])
    assert exc.value.code == 2


def test_unreadable_prediction_is_reported_exit_1(tmp_path, capsys):
    gt, pred = tmp_path / "gt", tmp_path / "pred"
    gt.mkdir()
    pred.mkdir()
    doc = {"task1": {"output": {"chart_type": "Line"}}}
    for cid in ("a", "b"):
        (gt / f"{cid}.json").write_text(json.dumps(doc))
    (pred / "a.json").write_text(json.dumps(doc))
    (pred / "b.json").write_text("{broken")
    out = tmp_path / "out.json"
    assert run(["1", str(gt), str(pred), "--json", str(out)]) == EXIT_SOME_FAILED
    err = capsys.readouterr().err
    assert "1 file(s) could not be used" in err and "b:" in err
    result = json.loads(out.read_text())
    assert result["average_recall"] == pytest.approx(0.5)
    assert result["problems"][0]["chart"] == "b"


def test_module_entry_point(tmp_path):
    gt = tmp_path / "gt"
    gt.mkdir()
    (gt / "a.json").write_text(json.dumps({"task1": {"output": {"chart_type": "Pie"}}}))
    proc = subprocess.run([sys.executable, "-m", "core.metrics", "chart", "1", str(gt), str(gt),
                           "-q"], cwd=REPO, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "average_f_measure 1.000000" in proc.stdout
