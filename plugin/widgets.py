"""Small widgets the dialogs and panels share.

:class:`MessageLine` keeps a message to one line whatever its length (a core error can run
to several hundred characters, French translations are longer than English): the text is
elided to the width available, the whole of it (and any details, such as a traceback or
the labels read) is behind a *Details…* button and in the tooltip, so a message never
pushes the form around or overlaps the widgets beside it.
"""

from __future__ import annotations

from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from .i18n import tr

#: Longest message shown whole in a message bar; longer ones are cut, all of it behind
#: the bar's "Show more" button.
BAR_CHARS = 140


def short(text: str, limit: int = BAR_CHARS) -> str:
    """The first line of ``text``, cut to ``limit`` characters with an ellipsis."""
    first = (text or "").split("\n", 1)[0]
    return first if len(first) <= limit else first[:limit - 1].rstrip() + "…"


def push_message(bar, text: str, level, duration: int = 0, details: str = ""):
    """``text`` in a QgsMessageBar as one short line; when it was cut or has ``details``,
    the whole of it behind the bar's "Show more" button."""
    title = tr("Graticule Georeferencer")
    line = short(text)
    more = "\n\n".join(part for part in (text if line != text else "", details) if part)
    if more:
        return bar.pushMessage(title, line, more, level=level, duration=duration)
    return bar.pushMessage(title, line, level=level, duration=duration)


class MessageLine(QWidget):
    """One line of text, elided, with a *Details…* button when there is more to read."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._text = ""
        self._details = ""
        self.label = QLabel(self)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.label.setMinimumWidth(0)
        self.button = QToolButton(self)
        self.button.setText(tr("Details…"))
        self.button.setToolTip(tr("Show the whole message"))
        self.button.clicked.connect(self.show_details)
        self.button.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.button)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)

    def text(self) -> str:
        """The whole message (not elided)."""
        return self._text

    def details(self) -> str:
        return self._details

    def setText(self, text: str, details: str = "") -> None:
        """Show ``text`` (its first line; the rest goes to the details) and keep
        ``details`` behind the button."""
        text = text or ""
        first, _, rest = text.partition("\n")
        self._text = text
        self._details = "\n\n".join(part for part in (rest.strip(), details.strip()) if part)
        self._shown = first
        self.label.setToolTip(text if len(text) < 2000 else text[:2000] + "…")
        self._elide()

    def _elide(self) -> None:
        shown = getattr(self, "_shown", "")
        metrics = self.label.fontMetrics()
        room = max(10, self.label.width())
        elided = metrics.elidedText(shown, Qt.TextElideMode.ElideRight, room)
        self.label.setText(elided)
        self.button.setVisible(bool(self._details) or (bool(shown) and elided != shown))

    def is_elided(self) -> bool:
        """True when the line shows less than the message."""
        return self.label.text() != getattr(self, "_shown", "")

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._elide()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        self._elide()

    def show_details(self) -> QMessageBox:
        """The whole message and its details in a message box (not modal)."""
        box = QMessageBox(QMessageBox.Icon.Information, tr("Graticule Georeferencer"),
                          self._text, QMessageBox.StandardButton.Close, self)
        if self._details:
            box.setDetailedText(self._details)
        box.setModal(False)
        box.show()
        self._box = box
        return box


class CrsInput(QWidget):
    """QGIS's CRS selector with two shortcuts: the Paris atlas grid (one click) and a CRS
    typed or pasted as a PROJ string, WKT or authority code (a grid such as Jacoubet's
    toise needs no custom projection saved in QGIS first). ``crsChanged`` is the
    selector's."""

    def __init__(self, parent=None, *, preset: bool = True) -> None:
        from qgis.gui import QgsProjectionSelectionWidget

        super().__init__(parent)
        self.selector = QgsProjectionSelectionWidget(self)
        self.crsChanged = self.selector.crsChanged
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.selector, 1)
        self.preset_button = QToolButton(self)
        self.preset_button.setText(tr("Paris atlas"))
        self.preset_button.setToolTip(tr("The grid of the Atlas municipal de Paris (Paris "
                                         "Observatory)"))
        self.preset_button.clicked.connect(self.use_paris_atlas)
        self.preset_button.setVisible(preset)
        layout.addWidget(self.preset_button)
        self.text_button = QToolButton(self)
        self.text_button.setText(tr("PROJ/WKT…"))
        self.text_button.setToolTip(tr("Type or paste the CRS as a PROJ string, WKT or code "
                                       "(EPSG:27561)"))
        self.text_button.clicked.connect(self.ask_text)
        layout.addWidget(self.text_button)

    def crs(self):
        return self.selector.crs()

    def setCrs(self, crs) -> None:
        self.selector.setCrs(crs)

    def use_paris_atlas(self) -> None:
        from .crs import paris_atlas_crs

        self.selector.setCrs(paris_atlas_crs())

    def set_text(self, text: str) -> bool:
        """Select the CRS ``text`` describes (PROJ string, WKT, authority code); False when
        QGIS does not know it as a CRS."""
        from .crs import crs_from_text

        crs = crs_from_text(text)
        if crs is None:
            return False
        self.selector.setCrs(crs)
        return True

    def ask_text(self) -> None:
        from qgis.PyQt.QtWidgets import QInputDialog

        text, ok = QInputDialog.getMultiLineText(
            self, tr("CRS as text"), tr("PROJ string, WKT or authority code:"),
            self.crs().toProj() if self.crs().isValid() else "")
        if ok and text.strip() and not self.set_text(text):
            QMessageBox.warning(self, tr("Graticule Georeferencer"), tr(
                "“{0}” is not a CRS QGIS knows; give a PROJ string (+proj=…), WKT or an "
                "authority code (EPSG:2154).").format(short(text, 60)))
