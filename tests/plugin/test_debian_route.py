"""The core modules the plugin runs import with Debian's packages alone: QGIS's system
Python (``/usr/bin/python3``) with python3-opencv, python3-skimage, python3-tqdm,
python3-scipy and python3-pyproj, without the project's venv, and without shapely (whose
wheel brings a second GEOS into QGIS's process). The qgis_process tests run them there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from plugin_test_helpers import REPO

SYSTEM_PYTHON = Path("/usr/bin/python3")
PLUGIN_MODULES = ("core.graticule", "core.georef", "core.georef.review", "core.georef.footprints",
                  "core.blocks", "core.maparea")
DEBIAN_PACKAGES = ("cv2", "skimage", "tqdm", "scipy", "pyproj", "numpy")

_CHECK = """
import importlib, json, sys
modules = sys.argv[1].split(",")
for name in modules:
    importlib.import_module(name)
shapely = "shapely" in sys.modules
packages = {name: importlib.import_module(name).__file__ for name in sys.argv[2].split(",")}
print(json.dumps({"shapely": shapely, "packages": packages,
                  "numpy": sys.modules["numpy"].__version__}))
"""


def test_plugin_modules_import_with_debian_packages_only_and_without_shapely():
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    # -s: no user site-packages, -E: no PYTHON* variables; the repository root is the cwd
    run = subprocess.run([str(SYSTEM_PYTHON), "-s", "-E", "-c", _CHECK,
                          ",".join(PLUGIN_MODULES), ",".join(DEBIAN_PACKAGES)],
                         cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr[-2000:]
    found = json.loads(run.stdout.strip().splitlines()[-1])
    assert not found["shapely"], "a plugin module imports shapely"
    for name, path in found["packages"].items():
        assert path.startswith("/usr/lib/python3/dist-packages/"), (name, path)
    assert found["numpy"] == "1.24.2"
