"""Shared fixtures: paths to ../shared, a QGIS application, the plugin as an installed package."""

from __future__ import annotations

import gc
import importlib
import os
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("GRATICULE_SHARED", REPO.parent / "shared"))
PLUGIN_NAME = "graticule_georeferencer"


@pytest.fixture(scope="session")
def shared() -> Path:
    """The read-only ``../shared`` folder with real data and conformance fixtures."""
    if not SHARED.is_dir():
        pytest.fail(f"{SHARED} not found: the tests need ../shared beside the checkout "
                    "(or GRATICULE_SHARED pointing to it)")
    return SHARED


@pytest.fixture(scope="session")
def real_crop(shared: Path) -> Path:
    """The real 9000 x 3000 crop of the 1925 Paris atlas, sheet 1."""
    return shared / "data" / "paris-1925-sheet1-crop"


@pytest.fixture(scope="session")
def qgis_app():
    """One QgsApplication for the session, with the Processing framework initialised."""
    from qgis.core import QgsApplication

    app = QgsApplication.instance()
    if app is None:
        app = QgsApplication([], False)
        QgsApplication.setPrefixPath("/usr", True)
        app.initQgis()
    plugins_dir = "/usr/share/qgis/python/plugins"
    if plugins_dir not in sys.path:
        sys.path.append(plugins_dir)
    yield app
    # Qt objects left to the garbage collector after the session die after QGIS's singletons
    # and crash the interpreter on exit: delete them while QGIS still runs.
    from qgis.core import QgsProject
    from qgis.PyQt.QtCore import QCoreApplication, QEvent

    QgsProject.instance().clear()
    QCoreApplication.sendPostedEvents(None, QEvent.DeferredDelete)
    gc.collect()


@pytest.fixture(scope="session")
def plugin_package(tmp_path_factory, qgis_app):
    """The repository imported as the installed plugin package ``graticule_georeferencer``."""
    root = tmp_path_factory.mktemp("qgis_plugins")
    (root / PLUGIN_NAME).symlink_to(REPO, target_is_directory=True)
    sys.path.insert(0, str(root))
    return importlib.import_module(PLUGIN_NAME)
