"""Optional Python packages the plugin needs, and how to install them on this platform.

The plugin loads without them (no module of ``core`` is imported at load time); its actions
and algorithms then say which package is missing and how to install it into QGIS's Python:

- Debian and Ubuntu (``/etc/os-release`` ID or ID_LIKE): QGIS runs the system Python, so the
  distribution's packages (``sudo apt install python3-opencv ...``); no pip, numpy untouched.
- Windows, macOS and other systems: QGIS's own Python with pip, ``--user``, with numpy
  pinned to the version QGIS runs (``numpy==1.24.2`` in the same command), so pip never
  upgrades the numpy that QGIS and GDAL were built against. Or the plugin runs that pip
  into a folder of its own, :func:`deps_folder`, which :func:`activate` puts at the end of
  ``sys.path`` (after QGIS's packages: QGIS's numpy stays the one imported).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from .i18n import tr

# import name -> pip package name
# (never shapely: its wheel brings a second GEOS, and QGIS has loaded one already)
REQUIRED = {"cv2": "opencv-python-headless", "skimage": "scikit-image", "tqdm": "tqdm",
            "scipy": "scipy", "pyproj": "pyproj", "numpy": "numpy"}
# import name -> Debian 12 / Ubuntu package name
DEBIAN = {"cv2": "python3-opencv", "skimage": "python3-skimage", "tqdm": "python3-tqdm",
          "scipy": "python3-scipy", "pyproj": "python3-pyproj", "numpy": "python3-numpy"}
OS_RELEASE = Path("/etc/os-release")
DEPS_FOLDER = "graticule_georeferencer_deps"
DEBIAN_FAMILY, WINDOWS, MACOS, OTHER = "debian", "windows", "macos", "other"


def missing_packages() -> list[str]:
    """The import names (keys of :data:`REQUIRED`) of the packages not importable here."""
    missing = []
    for module in REQUIRED:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, a bad spec
            found = False
        if not found:
            missing.append(module)
    return missing


def read_os_release(path: Path = OS_RELEASE) -> dict[str, str]:
    """The KEY=value lines of an os-release file (quotes removed); empty when unreadable."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return {}
    values = {}
    for line in lines:
        key, sep, value = line.partition("=")
        if sep and not key.startswith("#"):
            values[key.strip()] = value.strip().strip("\"'")
    return values


def platform_family(os_release: Path = OS_RELEASE) -> str:
    """``"windows"``, ``"macos"``, ``"debian"`` (Debian, Ubuntu and their derivatives) or
    ``"other"``."""
    if sys.platform.startswith("win"):
        return WINDOWS
    if sys.platform == "darwin":
        return MACOS
    release = read_os_release(os_release)
    ids = {release.get("ID", ""), *release.get("ID_LIKE", "").split()}
    return DEBIAN_FAMILY if ids & {"debian", "ubuntu"} else OTHER


def numpy_pin() -> str:
    """``numpy==<the version running in QGIS>``; empty when numpy is not importable."""
    try:
        import numpy
    except ImportError:
        return ""
    return f"numpy=={numpy.__version__}"


def qgis_python() -> str:
    """The Python interpreter of this QGIS (``sys.executable`` is QGIS's own binary)."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    candidates = []
    for prefix in dict.fromkeys((sys.base_prefix, sys.prefix)):
        base = Path(prefix)
        candidates += [base / "python.exe", base / "bin" / f"python{version}",
                       base / "bin" / "python3"]
    candidates.append(Path(sys.executable).parent / "bin" / "python3")  # QGIS.app
    for path in candidates:
        if path.is_file():
            return str(path)
    return "python3"


def apt_command(missing: list[str]) -> str:
    """The apt line that installs the Debian packages of ``missing`` (import names)."""
    return "sudo apt install " + " ".join(DEBIAN[m] for m in missing)


def pip_packages(missing: list[str]) -> list[str]:
    """pip's arguments for ``missing``: numpy pinned to QGIS's version first, then the pip
    names of the other missing packages."""
    pin = numpy_pin()
    return ([pin] if pin else []) + [REQUIRED[m] for m in missing if m != "numpy" or not pin]


def pip_command(missing: list[str], family: str) -> str:
    """The pip line, for QGIS's Python, that installs ``missing`` with numpy pinned."""
    python = "python" if family == WINDOWS else f'"{qgis_python()}"'
    packages = " ".join(f'"{p}"' if "=" in p else p for p in pip_packages(missing))
    return f"{python} -m pip install --user {packages}"


def install_command(missing: list[str], family: str | None = None) -> str:
    """The one command that installs ``missing`` on this platform (apt or pip)."""
    family = family or platform_family()
    return apt_command(missing) if family == DEBIAN_FAMILY else pip_command(missing, family)


def names(missing: list[str], family: str | None = None) -> str:
    """The missing packages as the user installs them (Debian or pip names)."""
    family = family or platform_family()
    table = DEBIAN if family == DEBIAN_FAMILY else REQUIRED
    return ", ".join(table[m] for m in missing)


def bar_message(missing: list[str]) -> str:
    """One short sentence for the message bar (the button beside it gives the details)."""
    return tr("Missing Python packages: {0}.").format(names(missing))


def missing_message(missing: list[str]) -> str:
    """One sentence (Processing's refusal): what is missing and the command that installs
    it."""
    return tr("Missing Python packages: {0}. Install them with: {1} (then restart QGIS).") \
        .format(names(missing), install_command(missing))


def install_text(missing: list[str], family: str | None = None) -> str:
    """The full instructions of the install dialog for this platform."""
    family = family or platform_family()
    command = install_command(missing, family)
    head = tr("Graticule Georeferencer needs Python packages that QGIS's Python lacks: "
              "{0}.").format(names(missing, family))
    if family == DEBIAN_FAMILY:
        how = tr("On Debian and Ubuntu, QGIS runs the system Python: install the "
                 "distribution's packages (no pip; numpy stays as it is) in a terminal:")
    elif family == WINDOWS:
        how = tr("On Windows, open the OSGeo4W Shell (Start menu, QGIS folder) and run "
                 "QGIS's Python with pip; numpy is pinned to the version QGIS runs, so pip "
                 "never upgrades it:")
    else:
        how = tr("Run QGIS's own Python with pip in a terminal; numpy is pinned to the "
                 "version QGIS runs, so pip never upgrades it:")
    return "\n\n".join([head, how, command, tr("Then restart QGIS.")])


def deps_folder() -> Path:
    """The plugin's private package folder, ``<profile>/python/graticule_georeferencer_deps``."""
    from qgis.core import QgsApplication

    return Path(QgsApplication.qgisSettingsDirPath()) / "python" / DEPS_FOLDER


def pip_install_arguments(missing: list[str], target: Path) -> list[str]:
    """QGIS's Python's arguments that install ``missing`` into ``target`` (numpy pinned)."""
    return ["-m", "pip", "install", "--disable-pip-version-check", "--no-input",
            "--target", str(target), *pip_packages(missing)]


def activate(folder: Path | None = None) -> None:
    """Put the private package folder at the end of ``sys.path`` (QGIS's own packages,
    numpy first of all, keep precedence) and let the import system see new files there."""
    path = str(folder or deps_folder())
    if path not in sys.path:
        sys.path.append(path)
    importlib.invalidate_caches()
