"""Translations: load the .qm of QGIS's locale and translate plugin strings.

Every user-visible string goes through :func:`tr`. ``make transup`` runs ``pylupdate5``,
which files a bare ``tr("...")`` call under the ``@default`` context whatever class it is in;
:func:`tr` therefore looks strings up in that context, so the extracted .ts and the running
plugin agree. ``tr`` needs a string literal as its argument (no f-string): format after
translating, ``tr("{0} points").format(n)``.
"""

from __future__ import annotations

import math
from pathlib import Path

from qgis.core import QgsApplication, QgsSettings
from qgis.PyQt.QtCore import QCoreApplication, QLocale, QTranslator

CONTEXT = "@default"
I18N_DIR = Path(__file__).resolve().parent.parent / "i18n"
PREFIX = "graticule_georeferencer_"


def tr(text: str) -> str:
    """Translate ``text`` (a literal) into the language of the installed translator."""
    return QCoreApplication.translate(CONTEXT, text)


def number(value: float, decimals: int = 2) -> str:
    """``value`` written the user's way (``0,25`` in French), ``decimals`` decimals, no
    thousands separator."""
    locale = QLocale()
    locale.setNumberOptions(QLocale.NumberOption.OmitGroupSeparator)
    return locale.toString(float(value), "f", decimals)


def parse_number(text: str) -> float:
    """A number typed with a point or a comma as decimal separator (``-1000``, ``1509.6``,
    ``1 509,6``); ValueError otherwise."""
    cleaned = "".join(text.split())
    if cleaned.count(",") == 1 and "." not in cleaned:
        cleaned = cleaned.replace(",", ".")
    try:
        value = float(cleaned)
    except ValueError:  # grouping separators: "1,509.6" in English, "1.509,6" in German
        value, ok = QLocale().toDouble(cleaned)
        if not ok:
            raise ValueError(text) from None
    if not math.isfinite(value):
        raise ValueError(text)
    return value


def qgis_locale() -> str:
    """QGIS's user interface language, e.g. ``fr``: the translation QGIS runs in (``qgis
    --lang fr`` included), else the language chosen in QGIS's settings, else the system's."""
    app = QgsApplication.instance()
    running = app.translation() if isinstance(app, QgsApplication) else ""
    if running:
        return running[:2]
    settings = QgsSettings()
    if settings.value("locale/overrideFlag", False, type=bool):
        name = settings.value("locale/userLocale", "") or ""
    else:
        name = QLocale.system().name()
    return (name or "en")[:2]


def install_translator(locale: str | None = None) -> QTranslator | None:
    """Install the translator of ``locale`` (default: QGIS's) if its .qm, built by ``make
    transcompile``, exists."""
    qm = I18N_DIR / f"{PREFIX}{locale or qgis_locale()}.qm"
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
