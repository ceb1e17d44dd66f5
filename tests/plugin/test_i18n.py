"""French translation: complete, up to date with the code, and used by the dialog."""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from fake_iface import FakeIface

pytestmark = pytest.mark.qgis

REPO = Path(__file__).resolve().parents[2]
TS = REPO / "i18n" / "graticule_georeferencer_fr.ts"
PLACEHOLDER = re.compile(r"\{\d[^}]*\}")


def _messages(ts: Path) -> dict[str, ET.Element]:
    root = ET.parse(ts).getroot()
    return {m.findtext("source"): m.find("translation") for m in root.iter("message")}


@pytest.fixture
def french(plugin_package, tmp_path, monkeypatch):
    """The French .qm compiled from the .ts into a temporary folder, installed."""
    from graticule_georeferencer.plugin import i18n

    subprocess.run(["lrelease", "-silent", str(TS), "-qm",
                    str(tmp_path / "graticule_georeferencer_fr.qm")], check=True)
    monkeypatch.setattr(i18n, "I18N_DIR", tmp_path)
    translator = i18n.install_translator("fr")
    assert translator is not None
    yield i18n
    i18n.remove_translator(translator)


def test_every_string_is_translated_with_the_same_placeholders():
    messages = _messages(TS)
    assert len(messages) > 100
    for source, translation in messages.items():
        assert translation.get("type") is None, f"unfinished: {source!r}"
        assert (translation.text or "").strip(), f"empty: {source!r}"
        assert sorted(PLACEHOLDER.findall(source)) == sorted(
            PLACEHOLDER.findall(translation.text)), source


def test_ts_lists_every_string_of_the_code(tmp_path):
    if shutil.which("pylupdate5") is None:
        pytest.fail("pylupdate5 is missing: make install brings pyqt5-dev-tools")
    fresh = tmp_path / "fresh.ts"
    sources = sorted(str(p) for p in [*(REPO / "plugin").rglob("*.py"), REPO / "__init__.py"])
    subprocess.run(["pylupdate5", "-noobsolete", *sources, "-ts", str(fresh)], check=True,
                   capture_output=True)
    assert set(_messages(fresh)) == set(_messages(TS)), "run make transup and translate"


def test_dialog_texts_are_french(french):
    from graticule_georeferencer.plugin.dialogs.blocks_dialog import BlocksDialog
    from graticule_georeferencer.plugin.dialogs.georeference_dialog import GeoreferenceDialog

    iface = FakeIface()
    dialog = GeoreferenceDialog(iface)
    try:
        assert dialog.windowTitle() == "Détecter le carroyage et géoréférencer"
        assert dialog.sheet_label.text() == "Planche"
        assert dialog.grid_crs_label.text() == "SCR du carroyage"
        assert dialog.spacing_label.text() == "Pas du carroyage"
        assert dialog.target_crs_label.text() == "SCR cible"
        assert dialog.run_button.text() == "Géoréférencer"
        assert dialog.detect_button.text() == "Détecter les intersections"
        assert dialog.transform.itemText(1) == "Affine (garde les pixels du scan)"
        assert dialog.anchor_rows[0].pick.text() == "Choisir sur la carte"
    finally:
        iface.dispose(dialog)
    iface = FakeIface()
    blocks = BlocksDialog(iface)
    try:
        assert blocks.windowTitle() == "Vectoriser les îlots"
        assert blocks.level.itemText(0) == "Îlots"
        assert blocks.run_button.text() == "Vectoriser"
        assert blocks.mask_label.text() == "Masque de l'emprise"
    finally:
        iface.dispose(blocks)


def test_numbers_are_written_the_french_way(plugin_package):
    from graticule_georeferencer.plugin.i18n import number
    from qgis.PyQt.QtCore import QLocale

    before = QLocale()
    try:
        QLocale.setDefault(QLocale(QLocale.French, QLocale.France))
        assert (number(1234.567), number(0.4, 1)) == ("1234,57", "0,4")
        QLocale.setDefault(QLocale(QLocale.English, QLocale.UnitedKingdom))
        assert (number(1234.567), number(0.4, 1)) == ("1234.57", "0.4")
    finally:
        QLocale.setDefault(before)


def test_plugin_loads_the_translation_of_qgis_locale(plugin_package, tmp_path, monkeypatch):
    from graticule_georeferencer.plugin import i18n
    from qgis.core import QgsSettings

    subprocess.run(["lrelease", "-silent", str(TS), "-qm",
                    str(tmp_path / "graticule_georeferencer_fr.qm")], check=True)
    monkeypatch.setattr(i18n, "I18N_DIR", tmp_path)
    settings = QgsSettings()
    settings.setValue("locale/overrideFlag", True)
    settings.setValue("locale/userLocale", "fr_FR")
    iface = FakeIface()
    plugin = plugin_package.classFactory(iface)
    try:
        plugin.initGui()
        assert plugin.translator is not None
        texts = [a.text() for a in plugin.actions]
        assert texts == ["Détecter le carroyage et géoréférencer…", "Vectoriser les îlots…",
                         "Vérifier les points de contrôle…", "Ouvrir un traitement d'atlas…"]
        alg = plugin.provider.algorithm("georeference")
        assert alg.displayName() == "Géoréférencer une planche d'après son carroyage"
    finally:
        plugin.unload()
        settings.remove("locale/overrideFlag")
        settings.remove("locale/userLocale")
    assert plugin.translator is None


def test_the_language_qgis_runs_in_wins_over_the_settings(plugin_package):
    """``qgis --lang fr`` sets QGIS's translation; the plugin follows it, whatever the
    locale settings say (they are read only when QGIS runs without a translation)."""
    from graticule_georeferencer.plugin.i18n import qgis_locale
    from qgis.core import QgsApplication, QgsSettings

    app = QgsApplication.instance()
    before = app.translation()
    settings = QgsSettings()
    settings.setValue("locale/overrideFlag", True)
    settings.setValue("locale/userLocale", "de_DE")
    try:
        QgsApplication.setTranslation("fr")
        assert qgis_locale() == "fr"
        QgsApplication.setTranslation("")
        assert qgis_locale() == "de"
    finally:
        QgsApplication.setTranslation(before)
        settings.remove("locale/overrideFlag")
        settings.remove("locale/userLocale")


def _longest_translation() -> str:
    return max(((t.text or "") for t in _messages(TS).values()), key=len)


def test_nothing_overlaps_with_the_longest_french_text(french):
    """The longest French string of the plugin in every message place of the dialogs and
    the review panel, at their smallest size and wider: no widget overlaps another, and
    messages stay one line with the whole text behind their Details button."""
    from graticule_georeferencer.plugin.dialogs.blocks_dialog import BlocksDialog
    from graticule_georeferencer.plugin.dialogs.georeference_dialog import GeoreferenceDialog
    from graticule_georeferencer.plugin.review.panel import ReviewPanel
    from plugin_test_helpers import overlapping_widgets, wait_until
    from qgis.PyQt.QtCore import QCoreApplication

    longest = _longest_translation()
    assert len(longest) > 900 and "\n" in longest
    error = longest.replace("\n", " ")
    iface = FakeIface()
    dialog, blocks, panel = GeoreferenceDialog(iface), BlocksDialog(iface), ReviewPanel(iface)
    panel.setFloating(True)
    try:
        dialog.pick_status.setText(error)
        for window in (dialog, blocks, panel):
            line = window.fit_line if window is panel else window.status
            line.setText(error, longest)
            if window is not panel:
                window.warn(error)
            window.show()
            wait_until(window.isVisible)
            for width in (window.minimumSizeHint().width(), 900):
                window.resize(width, window.minimumSizeHint().height())
                for _ in range(5):
                    QCoreApplication.processEvents()
                assert overlapping_widgets(window) == [], (type(window).__name__, width)
                assert line.height() < 2.5 * line.fontMetrics().lineSpacing()
                assert line.is_elided() and line.button.isVisible()
                assert line.text() == error and longest in line.details()
    finally:
        iface.dispose(dialog, blocks, panel)
