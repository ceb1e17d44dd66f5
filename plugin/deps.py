"""Optional Python packages the plugin needs, and how to tell the user about a missing one.

The plugin loads without them (no module of ``core`` is imported at load time); its actions
and algorithms then say which package is missing and the one command that installs it.
"""

from __future__ import annotations

import importlib.util

from .i18n import tr

# import name -> pip package name
# (never shapely: its wheel brings a second GEOS, and QGIS has loaded one already)
REQUIRED = {"cv2": "opencv-python-headless", "skimage": "scikit-image", "tqdm": "tqdm",
            "pyproj": "pyproj", "numpy": "numpy"}


def missing_packages() -> list[str]:
    """The pip names of the required packages that cannot be imported here."""
    missing = []
    for module, pip in REQUIRED.items():
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, a bad spec
            found = False
        if not found:
            missing.append(pip)
    return missing


def install_command(packages: list[str]) -> str:
    """The one command that installs ``packages`` into QGIS's Python."""
    return "python3 -m pip install --user " + " ".join(packages)


def missing_message(packages: list[str]) -> str:
    """One sentence for the message bar: what is missing and how to install it."""
    return tr("Missing Python packages: {0}. Install them with: {1} (then restart QGIS).") \
        .format(", ".join(packages), install_command(packages))
