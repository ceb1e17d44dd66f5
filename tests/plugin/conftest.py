"""Plugin test fixtures: a throw-away QGIS profile, small generated sheets, Processing.

QGIS keeps custom CRSs (the Paris atlas grid the plugin registers) in the profile's
database: the tests point QGIS at a temporary profile so they never touch the user's. Each
test process makes its own: pytest-xdist's workers inherit the environment of the process
that starts them, so they all used that process's profile.
"""

from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

# a profile made by the process that started this one is not the user's: make our own
if os.environ.get("QGIS_CUSTOM_CONFIG_PATH", "") in (
        "", os.environ.get("GRATICULE_TEST_QGIS_PROFILE")):
    _PROFILE = tempfile.mkdtemp(prefix="graticule-qgis-profile-")
    os.environ["QGIS_CUSTOM_CONFIG_PATH"] = _PROFILE
    os.environ["GRATICULE_TEST_QGIS_PROFILE"] = _PROFILE
    atexit.register(shutil.rmtree, _PROFILE, True)

sys.path.insert(0, str(Path(__file__).parent))

from plugin_test_helpers import SHEET_SIZE, SPACING_PX


@pytest.fixture(scope="session")
def sheet_dir(tmp_path_factory) -> Path:
    """Two generated 2500 x 2500 px sheets (grid every 700 px), MapSeg names, written once:
    001 is north-up and clean, 002 is tilted by 4 degrees."""
    from core.synth import generate_sheet, write_sheet

    out = tmp_path_factory.mktemp("sheets")
    write_sheet(generate_sheet(11, SHEET_SIZE, spacing_px=SPACING_PX, difficulty=0.0,
                               jpeg_roundtrip=True), out, "001")
    write_sheet(generate_sheet(12, SHEET_SIZE, spacing_px=SPACING_PX, difficulty=0.1,
                               orientation="tilted", tilt_deg=4.0, jpeg_roundtrip=True),
                out, "002")
    return out


@pytest.fixture(scope="session")
def sheet(sheet_dir) -> dict[str, Path]:
    """The files of sheet 001 by key: image, gt_csv, mask, blocks, points, json."""
    from core.synth import sheet_paths

    return sheet_paths(sheet_dir, "001")


@pytest.fixture(scope="module")
def processing_provider(qgis_app, plugin_package):
    """Processing initialised with the plugin's provider registered (for one test module:
    the plugin registers its own when a test loads it)."""
    from processing.core.Processing import Processing
    from qgis.core import QgsApplication

    Processing.initialize()
    module = __import__(f"{plugin_package.__name__}.plugin.processing_provider.provider",
                        fromlist=["GraticuleGeoreferencerProvider"])
    registry = QgsApplication.processingRegistry()
    provider = registry.providerById("graticule_georeferencer")
    added = None
    if provider is None:
        added = provider = module.GraticuleGeoreferencerProvider()
        registry.addProvider(provider)
    yield provider
    if added is not None:
        registry.removeProvider(added)
