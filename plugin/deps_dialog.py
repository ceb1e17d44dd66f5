"""The "How to install" dialog of missing Python packages: the full instructions for this
platform, a Copy button, and (outside Debian and Ubuntu, where apt is the way) an
"Install dependencies" button that runs pip into the plugin's own folder, numpy pinned,
with pip's output shown as it comes."""

from __future__ import annotations

from pathlib import Path

from qgis.PyQt.QtCore import QProcess
from qgis.PyQt.QtGui import QFontDatabase
from qgis.PyQt.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
)

from . import deps
from .i18n import tr


class InstallDialog(QDialog):
    """Instructions to install ``missing`` (import names, see :data:`deps.REQUIRED`).

    Parameters
    ----------
    missing : list of str
        The packages to install.
    family : str, optional
        The platform family (:func:`deps.platform_family` by default).
    parent : QWidget, optional
    """

    def __init__(self, missing: list[str], family: str | None = None, parent=None) -> None:
        super().__init__(parent)
        self.missing = list(missing)
        self.family = family or deps.platform_family()
        self.text = deps.install_text(self.missing, self.family)
        self.process: QProcess | None = None
        self.setWindowTitle(tr("Graticule Georeferencer: missing Python packages"))
        self.setObjectName("GraticuleGeoreferencerInstallDialog")
        layout = QVBoxLayout(self)
        self.instructions = QPlainTextEdit(self.text)
        self.instructions.setReadOnly(True)
        self.instructions.setMinimumSize(640, 220)
        layout.addWidget(self.instructions)
        self.log = QPlainTextEdit()
        self.log.setReadOnly(True)
        self.log.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.log.setVisible(False)
        layout.addWidget(self.log)
        self.status = QLabel()
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        self.copy_button = QPushButton(tr("Copy"))
        self.copy_button.setToolTip(tr("Copy these instructions to the clipboard"))
        self.copy_button.clicked.connect(self.copy)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        self.install_button = None
        if self.family != deps.DEBIAN_FAMILY:
            self.install_button = QPushButton(tr("Install dependencies"))
            self.install_button.setToolTip(
                tr("Run pip with QGIS's Python into the plugin's own folder (numpy pinned)"))
            self.install_button.clicked.connect(lambda: self.install())
            buttons.addButton(self.install_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout.addWidget(buttons)

    def copy(self) -> None:
        """Put the full instructions on the clipboard."""
        QApplication.clipboard().setText(self.text)
        self.status.setText(tr("Copied to the clipboard."))

    def install(self, program: str | None = None, arguments: list[str] | None = None,
                target: Path | None = None) -> None:
        """Run pip (``program arguments``; default QGIS's Python installing the missing
        packages into :func:`deps.deps_folder`), its output streamed into the dialog; when it
        succeeds, the folder joins ``sys.path``."""
        if self.process is not None:
            return
        target = target or deps.deps_folder()
        program = program or deps.qgis_python()
        if arguments is None:
            arguments = deps.pip_install_arguments(self.missing, target)
        self.log.clear()
        self.log.setVisible(True)
        self.log.appendPlainText(" ".join([program, *arguments]))
        self.status.setText(tr("Installing…"))
        if self.install_button is not None:
            self.install_button.setEnabled(False)
        process = self.process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.readyReadStandardOutput.connect(self._read_output)
        process.finished.connect(lambda code, status: self._finished(code, status, target))
        process.errorOccurred.connect(self._failed_to_start)
        process.start(program, arguments)

    def _read_output(self) -> None:
        if self.process is not None:
            data = bytes(self.process.readAllStandardOutput()).decode("utf-8", "replace")
            self.log.appendPlainText(data.rstrip("\n"))

    def _finished(self, code: int, status, target: Path) -> None:
        self._read_output()
        self.process = None
        if self.install_button is not None:
            self.install_button.setEnabled(True)
        if code == 0 and status == QProcess.ExitStatus.NormalExit:
            deps.activate(target)
            self.status.setText(tr("Installed in {0}. If the plugin still reports a missing "
                                   "package, restart QGIS.").format(target))
        else:
            self.status.setText(tr("pip failed (exit code {0}); see its output above, or "
                                   "copy the instructions and run them yourself.").format(code))

    def _failed_to_start(self, error) -> None:
        if error == QProcess.ProcessError.FailedToStart and self.process is not None:
            self.process = None
            if self.install_button is not None:
                self.install_button.setEnabled(True)
            self.status.setText(tr("QGIS's Python could not be started; copy the "
                                   "instructions and run them yourself."))

    def cleanup(self) -> None:
        """Stop a running pip (the plugin is unloading)."""
        process, self.process = self.process, None
        if process is not None:
            process.finished.disconnect()
            process.kill()
            process.waitForFinished(3000)
