"""Translations: load the .qm of QGIS's locale and translate plugin strings."""

from __future__ import annotations

from pathlib import Path

from qgis.core import QgsSettings
from qgis.PyQt.QtCore import QCoreApplication, QLocale, QTranslator

CONTEXT = "GraticuleGeoreferencer"
I18N_DIR = Path(__file__).resolve().parent.parent / "i18n"


def tr(text: str) -> str:
    """Translate ``text`` in the plugin's single translation context."""
    return QCoreApplication.translate(CONTEXT, text)


def qgis_locale() -> str:
    """QGIS's user interface locale, e.g. ``fr`` (what the user chose in QGIS settings)."""
    settings = QgsSettings()
    if settings.value("locale/overrideFlag", False, type=bool):
        name = settings.value("locale/userLocale", "") or ""
    else:
        name = QLocale.system().name()
    return (name or "en")[:2]


def install_translator(locale: str | None = None) -> QTranslator | None:
    """Install the translator of ``locale`` (default: QGIS's) if its .qm exists."""
    loc = locale or qgis_locale()
    qm = I18N_DIR / f"graticule_georeferencer_{loc}.qm"
    if not qm.is_file():
        return None
    translator = QTranslator()
    if not translator.load(str(qm)):
        return None
    QCoreApplication.installTranslator(translator)
    return translator


def remove_translator(translator: QTranslator | None) -> None:
    """Undo :func:`install_translator`."""
    if translator is not None:
        QCoreApplication.removeTranslator(translator)
