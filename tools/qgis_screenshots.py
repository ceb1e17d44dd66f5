"""Screenshots of the plugin in a real QGIS desktop window, for the README.

``make screenshots``: generates sheets with ``core.synth`` (one to georeference, the same
scan without GCPs or printed values to be refused, and a small atlas run by ``python -m
core.georef`` in directory mode: one sheet placed on another's ground, one refused), builds
the plugin zip (``tools/make_zip.py``), installs and enables it in a throwaway QGIS profile
(HOME points to a temporary folder), starts a virtual X display (Xvfb) and runs Debian's
QGIS twice with ``tools/qgis_screenshot_session.py``: in English (dialog, an anchor picked
on the detected intersections, the georeferenced result, the review panel before and after
a refit with one GCP disabled and one moved, a refused sheet settled with one typed
crossing, the atlas footprints, the blocks layer) and with ``--lang fr`` (both dialogs, the
georeferencing one with the longest error, a refusal). The pictures go to
docs/images/qgis-*.png. One line per step is printed; exit status 1 when QGIS fails.

Usage: python tools/qgis_screenshots.py [--output DIR] [--size PX]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "graticule_georeferencer"
DISPLAY = ":93"


def generate_sheet(folder: Path, size: int) -> Path:
    """A generated sheet (NNN-INPUT.jpg with NNN.points and its mask beside it)."""
    subprocess.run([sys.executable, "-m", "core.synth", str(folder), "--size", str(size),
                    "--seed", "4", "--spacing", "700", "--orientation", "tilted"], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    return next(folder.glob("*-INPUT.jpg"))


def refused_sheet(sheet: Path, folder: Path) -> Path:
    """The sheet's scan alone (no .points beside it, no printed values): refused."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "plate.jpg"
    shutil.copy(sheet, target)
    return target


def atlas_run(folder: Path) -> Path:
    """A directory run of five generated sheets in a 2 x 2 layout, fitted from their
    .points files: 105 is 102's scan given 101's GCPs (placed on 101's ground), 104 has no
    GCPs (refused). Returns the run's output folder."""
    src = folder / "sheets"
    code = ("import sys\nfrom pathlib import Path\nfrom core.synth import generate_sheet, "
            "write_sheet\nout = Path(sys.argv[1])\n"
            "for name, seed, e, n in (('101', 41, 0, 0), ('102', 42, 3300, 0), "
            "('103', 43, 0, -3300), ('104', 44, 3300, -3300)):\n"
            "    write_sheet(generate_sheet(seed, 1500, spacing_px=400.0, difficulty=0.0, "
            "centre_easting=e, centre_northing=n), out, name)\n")
    subprocess.run([sys.executable, "-c", code, str(src)], cwd=ROOT, check=True)
    (src / "104.points").unlink()
    for suffix in ("-INPUT.jpg", "-INPUT-MASK.png"):
        shutil.copy(src / f"102{suffix}", src / f"105{suffix}")
    shutil.copy(src / "101.points", src / "105.points")
    out = folder / "run"
    subprocess.run([sys.executable, "-m", "core.georef", str(src), "--crs", "EPSG:2154",
                    "--grid-crs", "paris-atlas", "--gcps-only", "--workers", "1", "-o",
                    str(out)], cwd=ROOT,
                   check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not (out / "footprints.gpkg").is_file():
        raise RuntimeError("the atlas run wrote no footprints.gpkg")
    return out


def install_plugin(home: Path) -> None:
    """Unzip the plugin into HOME's default QGIS profile and enable it there."""
    dist = home / "dist"
    subprocess.run([sys.executable, "tools/make_zip.py", "--output", str(dist)], cwd=ROOT,
                   check=True, stdout=subprocess.DEVNULL)
    profile = home / ".local/share/QGIS/QGIS3/profiles/default"
    plugins = profile / "python" / "plugins"
    plugins.mkdir(parents=True)
    with zipfile.ZipFile(next(dist.glob("*.zip"))) as z:
        z.extractall(plugins)
    (profile / "QGIS").mkdir()
    (profile / "QGIS" / "QGIS3.ini").write_text(
        f"[PythonPlugins]\n{PACKAGE}=true\n\n[qgis]\ncheckVersion=false\n", encoding="utf-8")


def run_qgis(home: Path, inputs: dict[str, Path], out: Path, mode: str, suffix: str,
             lang: str | None) -> bool:
    """One QGIS session; True when the session script says it is done."""
    log = home / f"session{suffix}.log"
    env = dict(os.environ, HOME=str(home), DISPLAY=DISPLAY, QT_QPA_PLATFORM="xcb",
               SHOT_SHEET=str(inputs["sheet"]), SHOT_REFUSED=str(inputs["refused"]),
               SHOT_ATLAS=str(inputs["atlas"]), SHOT_OUT=str(out), SHOT_MODE=mode,
               SHOT_SUFFIX=suffix, SHOT_LOG=str(log), XDG_RUNTIME_DIR=str(home))
    env.pop("PYTHONPATH", None)       # QGIS's own Python and Debian's packages only
    cmd = ["qgis", "--nologo", "--noversioncheck", "--code",
           str(ROOT / "tools" / "qgis_screenshot_session.py")]
    if lang:
        cmd[1:1] = ["--lang", lang]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    lines = log.read_text(encoding="utf-8").splitlines() if log.is_file() else []
    for line in lines:
        print(f"  {line}")
    if proc.returncode != 0 or "done" not in lines:
        print(f"QGIS exited with {proc.returncode}:\n{proc.stderr[-3000:]}", file=sys.stderr)
        return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", type=Path, default=ROOT / "docs" / "images")
    ap.add_argument("--size", type=int, default=3000, help="sheet size in pixels")
    args = ap.parse_args()
    if shutil.which("qgis") is None or shutil.which("Xvfb") is None:
        print("error: needs Debian's qgis and xvfb packages; run make install", file=sys.stderr)
        return 2
    args.output.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qgis-shots-") as tmp:
        home = Path(tmp)
        sheet = generate_sheet(home / "sheets", args.size)
        inputs = {"sheet": sheet, "refused": refused_sheet(sheet, home / "refused"),
                  "atlas": atlas_run(home / "atlas")}
        install_plugin(home)
        xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1920x1080x24", "-nolisten",
                                 "tcp"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(1.0)
            ok = run_qgis(home, inputs, args.output, "full", "", None)
            ok = run_qgis(home, inputs, args.output, "dialogs", "-fr", "fr") and ok
        finally:
            xvfb.terminate()
            xvfb.wait(timeout=10)
    print(f"screenshots in {args.output}" if ok else "screenshots: failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
