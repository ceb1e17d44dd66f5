"""Optional Python packages the plugin needs, and how to install them on this platform.

The plugin loads without them (no module of ``core`` is imported at load time); its actions
and algorithms then say which package is missing and how to install it into QGIS's Python:

- Debian and Ubuntu (``/etc/os-release`` ID or ID_LIKE): QGIS runs the system Python, so the
  distribution's packages (``sudo apt install python3-opencv ...``); no pip, numpy untouched.
- Windows, macOS and other systems: QGIS's own Python with pip, ``--user``, with numpy
  pinned to the version QGIS runs (``numpy==1.24.2`` in the same command), so pip never
  upgrades the numpy that QGIS and GDAL were built against. Or :class:`InstallDialog` runs
  that pip into a folder of its own, :func:`deps_folder`, which :func:`activate` puts at the
  end of ``sys.path`` (after QGIS's packages: QGIS's numpy stays the one imported).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path

from qgis.PyQt.QtCore import QProcess
from qgis.PyQt.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
)

from .i18n import tr

# import name -> (pip package, Debian 12 / Ubuntu package)
# (never shapely: its wheel brings a second GEOS, and QGIS has loaded one already)
PACKAGES = {"cv2": ("opencv-python-headless", "python3-opencv"),
            "skimage": ("scikit-image", "python3-skimage"), "tqdm": ("tqdm", "python3-tqdm"),
            "scipy": ("scipy", "python3-scipy"), "pyproj": ("pyproj", "python3-pyproj"),
            "numpy": ("numpy", "python3-numpy")}
DEBIAN_FAMILY, WINDOWS = "debian", "windows"


def missing_packages() -> list[str]:
    """The import names (keys of :data:`PACKAGES`) of the packages not importable here."""
    def found(module: str) -> bool:
        try:
            return importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):  # a module set to None in sys.modules, a bad spec
            return False

    return [module for module in PACKAGES if not found(module)]


def platform_family(os_release: Path = Path("/etc/os-release")) -> str:
    """``"windows"``, ``"macos"``, ``"debian"`` (Debian, Ubuntu and their derivatives, from
    the ID and ID_LIKE lines of ``os_release``) or ``"other"``."""
    if sys.platform.startswith("win"):
        return WINDOWS
    if sys.platform == "darwin":
        return "macos"
    try:
        lines = os_release.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    ids = {word for line in lines if line.startswith(("ID=", "ID_LIKE="))
           for word in line.partition("=")[2].strip().strip("\"'").split()}
    return DEBIAN_FAMILY if ids & {"debian", "ubuntu"} else "other"


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
    for base in [*map(Path, dict.fromkeys((sys.base_prefix, sys.prefix))),
                 Path(sys.executable).parent]:  # the last: QGIS.app
        for path in (base / "python.exe", base / "bin" / f"python{version}",
                     base / "bin" / "python3"):
            if path.is_file():
                return str(path)
    return "python3"


def pip_packages(missing: list[str]) -> list[str]:
    """pip's arguments for ``missing``: numpy pinned to QGIS's version first, then the pip
    names of the other missing packages."""
    pin = numpy_pin()
    return ([pin] if pin else []) + [PACKAGES[m][0] for m in missing if m != "numpy" or not pin]


def install_command(missing: list[str], family: str | None = None) -> str:
    """The one command that installs ``missing`` on this platform: the apt line on Debian
    and Ubuntu, else pip for QGIS's Python with numpy pinned."""
    family = family or platform_family()
    if family == DEBIAN_FAMILY:
        return "sudo apt install " + " ".join(PACKAGES[m][1] for m in missing)
    python = "python" if family == WINDOWS else f'"{qgis_python()}"'
    packages = " ".join(f'"{p}"' if "=" in p else p for p in pip_packages(missing))
    return f"{python} -m pip install --user {packages}"


def names(missing: list[str], family: str | None = None) -> str:
    """The missing packages as the user installs them (Debian or pip names)."""
    debian = (family or platform_family()) == DEBIAN_FAMILY
    return ", ".join(PACKAGES[m][1 if debian else 0] for m in missing)


def missing_message(missing: list[str]) -> str:
    """One sentence (Processing's refusal): what is missing and the command that installs
    it."""
    return tr("Missing Python packages: {0}. Install them with: {1} (then restart QGIS).") \
        .format(names(missing), install_command(missing))


def install_text(missing: list[str], family: str | None = None) -> str:
    """The full instructions of the install dialog for this platform."""
    family = family or platform_family()
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
    return "\n\n".join([head, how, install_command(missing, family), tr("Then restart QGIS.")])


def deps_folder() -> Path:
    """The plugin's private package folder, ``<profile>/python/graticule_georeferencer_deps``."""
    from qgis.core import QgsApplication

    return Path(QgsApplication.qgisSettingsDirPath()) / "python" / "graticule_georeferencer_deps"


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


class InstallDialog(QDialog):
    """The full instructions to install ``missing`` (import names) on ``family`` (this
    platform by default), a Copy button and, outside Debian and Ubuntu (where apt is the
    way), an "Install dependencies" button running pip into :func:`deps_folder`, its output
    shown as it comes."""

    def __init__(self, missing: list[str], family: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.missing, self.family = list(missing), family or platform_family()
        self.text = install_text(self.missing, self.family)
        self.process: QProcess | None = None
        self.setWindowTitle(tr("Graticule Georeferencer: missing Python packages"))
        layout = QVBoxLayout(self)
        self.instructions, self.log = QPlainTextEdit(self.text), QPlainTextEdit()
        self.instructions.setMinimumSize(640, 220)
        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        role = QDialogButtonBox.ButtonRole.ActionRole
        self.copy_button = buttons.addButton(tr("Copy"), role)
        self.copy_button.clicked.connect(self.copy)
        self.install_button = None
        if self.family != DEBIAN_FAMILY:
            self.install_button = buttons.addButton(tr("Install dependencies"), role)
            self.install_button.setToolTip(
                tr("Run pip with QGIS's Python into the plugin's own folder (numpy pinned)"))
            self.install_button.clicked.connect(lambda: self.install())
        for widget in (self.instructions, self.log, self.status, buttons):
            layout.addWidget(widget)
        self.instructions.setReadOnly(True)
        self.log.setReadOnly(True)
        self.log.setVisible(False)

    def copy(self) -> None:
        """Put the full instructions on the clipboard."""
        QApplication.clipboard().setText(self.text)
        self.status.setText(tr("Copied to the clipboard."))

    def install(self, program: str | None = None, arguments: list[str] | None = None,
                target: Path | None = None) -> None:
        """Run pip (``program arguments``; default QGIS's Python installing the missing
        packages into :func:`deps_folder`), its output streamed into the dialog; when it
        succeeds, the folder joins ``sys.path``."""
        if self.process is not None:
            return
        target = target or deps_folder()
        program = program or qgis_python()
        arguments = pip_install_arguments(self.missing, target) if arguments is None \
            else arguments
        self.log.setPlainText(" ".join([program, *arguments]))
        self.log.setVisible(True)
        self.status.setText(tr("Installing…"))
        self._busy(True)
        process = self.process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.readyReadStandardOutput.connect(self._read_output)
        process.finished.connect(lambda code, status: self._finished(code, status, target))
        process.errorOccurred.connect(lambda error: self._finished(None, None, target)
                                      if error == QProcess.ProcessError.FailedToStart else None)
        process.start(program, arguments)

    def _busy(self, busy: bool) -> None:
        if self.install_button is not None:
            self.install_button.setEnabled(not busy)

    def _read_output(self) -> None:
        if self.process is not None:
            data = bytes(self.process.readAllStandardOutput()).decode("utf-8", "replace")
            self.log.appendPlainText(data.rstrip("\n"))

    def _finished(self, code: int | None, status, target: Path) -> None:
        """pip ended with exit ``code`` (None: QGIS's Python could not be started)."""
        self._read_output()
        self.process = None
        self._busy(False)
        if code is None:
            self.status.setText(tr("QGIS's Python could not be started; copy the "
                                   "instructions and run them yourself."))
        elif code == 0 and status == QProcess.ExitStatus.NormalExit:
            activate(target)
            self.status.setText(tr("Installed in {0}. If the plugin still reports a missing "
                                   "package, restart QGIS.").format(target))
        else:
            self.status.setText(tr("pip failed (exit code {0}); see its output above, or "
                                   "copy the instructions and run them yourself.").format(code))

    def cleanup(self) -> None:
        """Stop a running pip (the plugin is unloading)."""
        process, self.process = self.process, None
        if process is not None:
            process.finished.disconnect()
            process.kill()
            process.waitForFinished(3000)
