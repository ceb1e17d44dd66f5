"""Optional Python packages the plugin needs, and how to tell the user about a missing one."""

from __future__ import annotations

import importlib.util

# import name -> pip package name
REQUIRED = {"cv2": "opencv-python-headless", "shapely": "shapely", "skimage": "scikit-image",
            "tqdm": "tqdm", "pyproj": "pyproj", "numpy": "numpy"}


def missing_packages() -> list[str]:
    """The pip names of the required packages that cannot be imported here."""
    return [pip for mod, pip in REQUIRED.items() if importlib.util.find_spec(mod) is None]


def install_command(packages: list[str]) -> str:
    """The one command that installs ``packages`` into QGIS's Python."""
    return "python3 -m pip install --user " + " ".join(packages)
