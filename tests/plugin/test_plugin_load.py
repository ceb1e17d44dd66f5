"""The plugin loads through classFactory like QGIS does, and unloads leaving nothing behind."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from fake_iface import FakeIface

pytestmark = pytest.mark.qgis


def test_class_factory_loads_and_unloads_cleanly(plugin_package):
    iface = FakeIface()
    plugin = plugin_package.classFactory(iface)
    plugin.initGui()
    assert plugin.toolbar is not None, "no toolbar: a required package is reported missing"
    plugin.unload()
    assert iface.toolbar_icons == []
    assert iface.raster_menu == []
    assert plugin.toolbar is None
    assert plugin.translator is None


def test_metadata_has_the_fields_plugins_qgis_org_requires():
    import configparser

    meta = configparser.ConfigParser()
    meta.read(Path(__file__).resolve().parents[2] / "metadata.txt", encoding="utf-8")
    general = meta["general"]
    for key in ("name", "qgisMinimumVersion", "description", "about", "version", "author",
                "email", "tracker", "repository"):
        assert general.get(key, "").strip(), key
    assert general["qgisMinimumVersion"] == "3.22"
    assert (Path(__file__).resolve().parents[2] / general["icon"]).is_file()
