"""Every example command of README.md and of the manual runs, on the data it names.

The commands are the lines of the ```sh blocks (:mod:`doc_commands`). Each ``python -m``
command runs in a scratch folder beside a link to ``../shared``, so that
``../shared/data/...`` names the real sheets as it does from the repository's folder, with
``python`` the project's interpreter and the repository on ``PYTHONPATH``; it must exit 0
without an ``error:`` line, and what it writes is checked where the docs say what it gives.
The few commands that cannot run here (they install software or start QGIS) are listed in
NOT_RUN_HERE with the test that covers them: a command of the docs in neither place fails,
and so does an entry of NOT_RUN_HERE that the docs no longer hold.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from doc_commands import REPO, shell_blocks

CROP = "../shared/data/paris-1925-sheet1-crop"
JACOUBET = "../shared/data/jacoubet-1836"

NOT_RUN_HERE = {
    "make install": "the set-up itself: make test runs it before this suite",
    "make test": "this suite",
    "make demo": "make install, then python -m core.demo: "
                 "tests/core/test_georef_demo.py::test_demo_prints_paths_and_rmse",
    "sudo apt install python3-opencv python3-skimage python3-tqdm python3-pyproj "
    "python3-scipy": "installs Debian packages (make install does): "
                     "tests/plugin/test_debian_route.py imports the plugin with them alone",
    'python -m pip install --user "numpy==1.24.2" opencv-python-headless scikit-image tqdm':
        "installs into QGIS's Python on Windows and macOS: tests/plugin/test_deps.py checks "
        "the plugin's dialog writes this line, numpy pinned to the running version",
    "qgis_process plugins enable graticule_georeferencer":
        "tests/plugin/test_qgis_process.py installs the plugin's zip and enables it",
    f"qgis_process run graticule_georeferencer:detectgraticule --INPUT={CROP}/INPUT.jpg "
    "--OUTPUT=intersections.gpkg":
        "tests/plugin/test_qgis_process.py runs detectgraticule on this crop, with its mask "
        "and alone (map area computed)",
    "qgis_process --json run graticule_georeferencer:buildingblocks "
    f"--INPUT={CROP}/INPUT.jpg --LEVEL=1 --OUTPUT=shapes.gpkg":
        "tests/plugin/test_qgis_process.py runs buildingblocks at both levels on this crop",
}


def _truth(name: str) -> np.ndarray:
    shared = Path(os.environ.get("GRATICULE_SHARED", REPO.parent / "shared"))
    return np.loadtxt(shared / "data" / name, delimiter=",", skiprows=1, ndmin=2)


def _points(path: Path) -> np.ndarray:
    return np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)


def _crop_crossings(work: Path, out: str) -> None:
    found = _points(work / "crossings.csv")
    truth = _truth("paris-1925-sheet1-crop/GRATICULE-GT.csv")
    assert len(found) == 3
    assert np.linalg.norm(truth[:, None] - found[None], axis=2).min(axis=1).max() < 2.0


def _georeferenced(folder: str, stem: str, min_used: int) -> Callable[[Path, str], None]:
    def check(work: Path, out: str) -> None:
        report = json.loads((work / folder / f"{stem}.report.json").read_text())
        used = sum(1 for g in report["gcps"] if g["used"])
        assert used >= min_used, used
        assert (work / folder / f"{stem}.tif").stat().st_size > 0
    return check


def _placed_like_the_hand_points(work: Path, out: str) -> None:
    """Zero-input georeferencing of Jacoubet's sheet 020: every hand-placed crossing lands
    within 20 toises (a twelfth of a grid cell) of its grid coordinates."""
    _georeferenced("sheet-020", "020-INPUT", 20)(work, out)
    report = json.loads((work / "sheet-020" / "020-INPUT.report.json").read_text())
    gt = report["transform"]["geotransform"]
    shared = Path(os.environ.get("GRATICULE_SHARED", REPO.parent / "shared"))
    rows = [line.split(",") for line in (shared / "data" / "jacoubet-1836" / "020-GT.points")
            .read_text().splitlines() if line[:1] not in ("#", "m", "")]
    hand = np.array([[float(v) for v in r[:4]] for r in rows])
    x, y, grid = hand[:, 2], -hand[:, 3], hand[:, :2]       # .points: source y is -y
    placed = np.column_stack([gt[0] + gt[1] * x + gt[2] * y, gt[3] + gt[4] * x + gt[5] * y])
    assert np.hypot(*(placed - grid).T).max() < 20.0
    assert "grid values read" in out and "certainty" in out, out


def _blocks(work: Path, out: str) -> None:
    assert "blocks found" in out and "warning" not in out, out
    assert (work / "blocks.png").is_file() and (work / "blocks.gpkg").is_file()


def _directory(work: Path, out: str) -> None:
    for nnn in ("020", "021", "049"):
        assert len(_points(work / "jacoubet-crossings" / f"{nnn}-OUTPUT-PRED.csv")) >= 8
    with open(work / "jacoubet-crossings" / "summary.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 3


def _allmaps(work: Path, out: str) -> None:
    annotation = json.loads((work / "crop-web" / "INPUT.allmaps.json").read_text())
    assert annotation["motivation"] == "georeferencing"
    assert (work / "crop-web" / "INPUT.tif").is_file()


#: what a command writes, checked after it ran (by the command's output folder or file)
CHECKS: dict[str, Callable[[Path, str], None]] = {
    "-o crossings.csv": _crop_crossings,
    "-o sheet-020": _placed_like_the_hand_points,
    "-o crop-georef": _georeferenced("crop-georef", "INPUT", 3),
    "-o crop-from-gcps": _georeferenced("crop-from-gcps", "INPUT", 3),
    "-o crop-web": _allmaps,
    "--gpkg blocks.gpkg": _blocks,
    "-o jacoubet-crossings": _directory,
}


def doc_commands() -> dict[str, str]:
    """Every distinct command of the docs -> where it first appears (file:line)."""
    found: dict[str, str] = {}
    for block in shell_blocks():
        for command in block.commands:
            found.setdefault(command, block.id)
    return found


COMMANDS = doc_commands()
RUN_HERE = sorted(c for c in COMMANDS if c not in NOT_RUN_HERE)


def test_every_command_is_run_here_or_covered_by_a_named_test():
    cannot_run = [f"{COMMANDS[c]}: {c}" for c in RUN_HERE if not c.startswith("python -m ")]
    assert not cannot_run, "add these to NOT_RUN_HERE with the test that covers them"
    stale = sorted(set(NOT_RUN_HERE) - set(COMMANDS))
    assert not stale, f"NOT_RUN_HERE lists commands the docs no longer hold: {stale}"
    unchecked = [c for c in RUN_HERE if not any(key in c for key in CHECKS)]
    assert not unchecked, f"say in CHECKS what these write: {unchecked}"


@pytest.fixture
def sandbox(tmp_path, shared) -> tuple[Path, dict[str, str]]:
    """A scratch folder ``work/`` with ``../shared`` linked beside it, and the environment
    the commands run in (``python`` = this interpreter; the repository importable)."""
    (tmp_path / "shared").symlink_to(shared, target_is_directory=True)
    (tmp_path / "bin").mkdir()
    python = tmp_path / "bin" / "python"   # a venv's interpreter must be called by its path
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ, PYTHONPATH=str(REPO),
               PATH=f"{tmp_path / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")
    return work, env


@pytest.mark.parametrize("command", RUN_HERE, ids=[COMMANDS[c] + " " + c.split(" -o ")[-1]
                                                   for c in RUN_HERE])
def test_doc_command_runs_on_the_data_it_names(sandbox, command):
    work, env = sandbox
    run = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True,
                         text=True, timeout=600, check=False)
    assert run.returncode == 0, f"{COMMANDS[command]}: {command}\n{run.stderr[-2000:]}"
    assert "error:" not in run.stderr, run.stderr[-2000:]
    for key, check in CHECKS.items():
        if key in command:
            check(work, run.stdout)
