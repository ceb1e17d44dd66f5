"""``python -m core.metrics textdet``: table, JSON output, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.cli import EXIT_BAD_INPUT, EXIT_OK, EXIT_SOME_FAILED, run_cli
from core.metrics.__main__ import main as metrics_main


def _case(shared: Path, prefix: str) -> Path:
    (found,) = (shared / "fixtures" / "textdet").glob(f"{prefix}_*")
    return found


def _run(*args: str) -> int:
    return run_cli(metrics_main, ["textdet", *map(str, args)])


def test_json_has_the_fixture_structure_and_values(shared, tmp_path, capsys):
    case = _case(shared, "c01")
    want = json.loads((shared / "fixtures" / "textdet" / "expected.json").read_text("utf-8"))
    out = tmp_path / "sub" / "scores.json"
    assert _run(case / "gt", case / "pred", "--official", "--json", out) == EXIT_OK
    got = json.loads(out.read_text("utf-8"))
    assert got["mode"] == "official"
    for metric in ("iou", "deteval", "tiou"):
        for key in ("recall", "precision", "hmean"):
            assert got[metric][key] == pytest.approx(want[case.name][metric][key], abs=1e-9)
    assert got["cleval"]["e2e"]["num_char_tp_recall"] == 109
    assert got["per_image"]["img_1"]["iou"]["pairs"] == [[1, 1], [3, 3], [5, 5]]
    table = capsys.readouterr().out
    assert "iou" in table and "0.4783" in table and "cleval e2e" in table


def test_metric_selection_and_zip_input(shared, tmp_path, capsys):
    case = _case(shared, "c08")
    archive = tmp_path / "gt.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for f in sorted((case / "gt").iterdir()):
            z.write(f, f.name)
    out = tmp_path / "s.json"
    assert _run(archive, case / "pred", "--metrics", "deteval,iou", "--json", out) == EXIT_OK
    got = json.loads(out.read_text("utf-8"))
    assert [k for k in got if k in ("iou", "deteval", "tiou", "cleval")] == ["deteval", "iou"]
    assert got["stats"]["gt_lines"] == 7


def test_official_refusal_exits_1_and_keeps_the_other_metrics(shared, tmp_path, capsys):
    case = _case(shared, "c07")
    out = tmp_path / "s.json"
    assert _run(case / "gt", case / "pred", "--official", "--json", out) == EXIT_SOME_FAILED
    got = json.loads(out.read_text("utf-8"))
    assert "not clockwise" in got["iou"]["error"] and "not clockwise" in got["tiou"]["error"]
    assert got["deteval"]["hmean"] == pytest.approx(0.9794846864365582, abs=1e-9)
    assert "refuses" in capsys.readouterr().err


@pytest.mark.parametrize("extra", [["--metrics", "iou,bogus"], ["--metrics", ","]])
def test_bad_arguments_exit_2_without_output(shared, tmp_path, capsys, extra):
    case = _case(shared, "c01")
    out = tmp_path / "s.json"
    assert _run(case / "gt", case / "pred", *extra, "--json", out) == EXIT_BAD_INPUT
    assert not out.exists()
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_bad_input_file_exit_2_without_output(tmp_path, capsys):
    gt, res = tmp_path / "gt", tmp_path / "res"
    gt.mkdir()
    res.mkdir()
    (gt / "gt_img_1.txt").write_text("0,0,9,0,9,9,0,9,a\n")
    (res / "res_img_1.txt").write_text("0,0,9,0,9,9,0\n")
    out = tmp_path / "s.json"
    assert _run(gt, res, "--json", out) == EXIT_BAD_INPUT
    assert not out.exists()
    assert "res_img_1.txt line 1" in capsys.readouterr().err


def test_module_entry_point(shared):
    case = _case(shared, "c18")
    done = subprocess.run([sys.executable, "-m", "core.metrics", "textdet", str(case / "gt"),
                           str(case / "pred"), "--metrics", "iou"], capture_output=True,
                          text=True, cwd=Path(__file__).resolve().parents[3], check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[3].split()[0] == "iou"
