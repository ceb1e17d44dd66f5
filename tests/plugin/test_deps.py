"""Missing Python packages: the platform's install instructions (apt on Debian and Ubuntu,
QGIS's Python with pip and numpy pinned elsewhere), the message bar's "How to install"
button, the dialog's Copy button and its pip run into the plugin's own folder."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy
import pytest
from fake_iface import FakeIface
from plugin_test_helpers import wait_until
from qgis.PyQt.QtWidgets import QApplication, QPushButton

pytestmark = pytest.mark.qgis


@pytest.fixture
def deps(plugin_package):
    from graticule_georeferencer.plugin import deps

    return deps


@pytest.fixture
def dialogs(plugin_package):
    """Install dialogs made by a test, deleted after it."""
    from graticule_georeferencer.plugin.deps import InstallDialog

    made = []

    def make(*args, **kwargs):
        made.append(InstallDialog(*args, **kwargs))
        return made[-1]

    yield make
    for dialog in made:
        dialog.cleanup()
        dialog.close()
        dialog.deleteLater()


@pytest.mark.parametrize(("content", "family"), [
    ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n', "debian"),
    ("ID=ubuntu\nID_LIKE=debian\n", "debian"),
    ('ID=linuxmint\nID_LIKE="ubuntu debian"\n', "debian"),
    ('ID=fedora\nID_LIKE="rhel centos"\n', "other"),
    ("", "other"),
])
def test_linux_family_comes_from_os_release(deps, tmp_path, monkeypatch, content, family):
    monkeypatch.setattr(sys, "platform", "linux")
    release = tmp_path / "os-release"
    release.write_text(content)
    assert deps.platform_family(release) == family


@pytest.mark.parametrize(("platform", "family"), [("win32", "windows"), ("darwin", "macos")])
def test_windows_and_macos_are_known_by_sys_platform(deps, monkeypatch, platform, family):
    monkeypatch.setattr(sys, "platform", platform)
    assert deps.platform_family() == family


def test_debian_text_is_the_apt_line_of_the_missing_packages_only(deps, monkeypatch):
    monkeypatch.setattr(deps, "platform_family", lambda *a: "debian")
    text = deps.install_text(["cv2", "skimage", "scipy"])
    assert "sudo apt install python3-opencv python3-skimage python3-scipy\n" in text
    assert "pip install" not in text and "break-system-packages" not in text
    assert "python3-tqdm" not in text
    assert deps.missing_message(["tqdm"]).count("sudo apt install python3-tqdm") == 1


def test_numpy_pin_is_the_running_numpy(deps):
    assert deps.numpy_pin() == f"numpy=={numpy.__version__}"
    assert deps.pip_packages(["cv2", "tqdm"]) == [f"numpy=={numpy.__version__}",
                                                  "opencv-python-headless", "tqdm"]


def test_windows_text_runs_pip_in_the_osgeo4w_shell_with_numpy_pinned(deps, monkeypatch):
    monkeypatch.setattr(deps, "platform_family", lambda *a: "windows")
    text = deps.install_text(["cv2", "skimage"])
    assert "OSGeo4W Shell" in text
    assert (f'python -m pip install --user "numpy=={numpy.__version__}" '
            "opencv-python-headless scikit-image\n") in text
    assert "apt" not in text


@pytest.mark.parametrize("family", ["macos", "other"])
def test_other_systems_run_qgis_python_with_pip_and_numpy_pinned(deps, monkeypatch, family):
    monkeypatch.setattr(deps, "platform_family", lambda *a: family)
    python = deps.qgis_python()
    assert Path(python).is_file() and Path(python).name.startswith("python")
    text = deps.install_text(["tqdm"])
    assert f'"{python}" -m pip install --user "numpy=={numpy.__version__}" tqdm\n' in text


def test_a_module_that_cannot_be_imported_is_missing(deps, monkeypatch):
    assert deps.missing_packages() == []
    monkeypatch.setitem(sys.modules, "cv2", None)
    assert deps.missing_packages() == ["cv2"]


def test_copy_puts_the_full_text_on_the_clipboard(deps, dialogs):
    QApplication.clipboard().clear()
    dialog = dialogs(["cv2", "tqdm"], family="debian")
    assert dialog.instructions.toPlainText() == deps.install_text(["cv2", "tqdm"], "debian")
    assert dialog.install_button is None  # apt is the way on Debian
    dialog.copy_button.click()
    assert QApplication.clipboard().text() == deps.install_text(["cv2", "tqdm"], "debian")
    assert "sudo apt install python3-opencv python3-tqdm" in QApplication.clipboard().text()


def test_install_streams_the_output_and_adds_the_folder_to_sys_path(deps, dialogs, tmp_path,
                                                                      monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    target = tmp_path / "deps"
    assert deps.pip_install_arguments(["cv2"], target)[-4:] == [
        "--target", str(target), f"numpy=={numpy.__version__}", "opencv-python-headless"]
    dialog = dialogs(["cv2"], family="windows")
    assert dialog.install_button is not None
    dialog.install(sys.executable, ["-c", "print('Collecting numpy'); print('Successfully "
                                    "installed')"], target=target)
    wait_until(lambda: dialog.process is None, timeout=30)
    assert "Successfully installed" in dialog.log.toPlainText()
    assert str(target) in dialog.status.text()
    assert sys.path[-1] == str(target)


def test_a_failed_install_says_so(deps, dialogs, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    dialog = dialogs(["cv2"], family="macos")
    dialog.install(sys.executable, ["-c", "import sys; print('no matching distribution'); "
                                    "sys.exit(3)"], target=tmp_path / "deps")
    wait_until(lambda: dialog.process is None, timeout=30)
    assert "no matching distribution" in dialog.log.toPlainText()
    assert "exit code 3" in dialog.status.text()
    assert str(tmp_path / "deps") not in sys.path


def test_message_bar_has_a_short_text_and_a_button_opening_the_instructions(
        plugin_package, deps, monkeypatch):
    monkeypatch.setattr(deps, "missing_packages", lambda: ["cv2"])
    monkeypatch.setattr(deps, "platform_family", lambda *a: "debian")
    iface = FakeIface()
    plugin = plugin_package.classFactory(iface)
    plugin.initGui()
    try:
        assert iface.messages() == ["Missing Python packages: python3-opencv."]
        button = iface.bar.findChild(QPushButton, "GraticuleGeoreferencerHowToInstall")
        button.click()
        dialog = plugin.dialogs["install"]
        assert dialog.isVisible()
        assert "sudo apt install python3-opencv" in dialog.instructions.toPlainText()
        plugin.actions[0].trigger()  # an action repeats the message, opens no dialog
        assert len(iface.messages()) == 2 and "georeference" not in plugin.dialogs
    finally:
        plugin.unload()
        iface.dispose()
