"""tools/make_zip.py: what goes into the plugins.qgis.org zip, and the upload checks."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from plugin_test_helpers import REPO, load_tool, run_plugin_in_fresh_qgis


@pytest.fixture(scope="module")
def make_zip():
    return load_tool("make_zip")


def test_real_tree_ships_plugin_and_core_without_tests_or_caches(make_zip):
    files = {p.as_posix() for p in make_zip.plugin_files(REPO)}
    for needed in ("__init__.py", "metadata.txt", "plugin/main.py", "plugin/icons/icon.svg",
                   "plugin/processing_provider/provider.py", "core/georef/pipeline.py",
                   "core/graticule/detect.py"):
        assert needed in files, needed
    for path in files:
        parts = path.split("/")
        assert parts[0] not in ("tests", "benchmarks", "tools", "docs", ".git", ".venv",
                                "bench-output", "dist", "build"), path
        assert "__pycache__" not in parts and not path.endswith((".pyc", ".ts")), path
        assert not any(p.startswith(".") for p in parts), path


def _fake_plugin(root: Path, *, license_file: bool = True) -> None:
    (root / "plugin" / "__pycache__").mkdir(parents=True)
    (root / "core").mkdir()
    (root / "tests").mkdir()
    (root / "i18n").mkdir()
    (root / ".git").mkdir()
    (root / "__init__.py").write_text("def classFactory(iface):\n    pass\n")
    (root / "metadata.txt").write_text(
        "[general]\nname=X\nqgisMinimumVersion=3.22\ndescription=d\nabout=a\nversion=1.2.3\n"
        "author=me\nemail=me@example.org\ntracker=https://example.org/t\n"
        "repository=https://example.org/r\n")
    if license_file:
        (root / "LICENSE").write_text("GPL\n")
    (root / "plugin" / "main.py").write_text("")
    (root / "plugin" / "__pycache__" / "main.cpython-311.pyc").write_bytes(b"\0")
    (root / "plugin" / ".main.py.swp").write_bytes(b"\0")
    (root / "core" / "x.py").write_text("")
    (root / "tests" / "test_x.py").write_text("")
    (root / ".git" / "HEAD").write_text("ref\n")
    (root / "i18n" / "graticule_georeferencer_fr.ts").write_text("<TS/>")
    (root / "i18n" / "graticule_georeferencer_fr.qm").write_bytes(b"qm")


def test_zip_has_one_top_folder_with_init_and_metadata(make_zip, tmp_path):
    root = tmp_path / "src"
    _fake_plugin(root)
    target = make_zip.build_zip(root, tmp_path / "dist")
    assert target.name == "graticule_georeferencer-1.2.3.zip"
    with zipfile.ZipFile(target) as archive:
        names = sorted(archive.namelist())
    assert {n.split("/")[0] for n in names} == {"graticule_georeferencer"}
    assert names == ["graticule_georeferencer/" + n for n in (
        "LICENSE", "__init__.py", "core/x.py", "i18n/graticule_georeferencer_fr.qm",
        "metadata.txt", "plugin/main.py")]


def test_upload_checks_refuse_and_write_nothing(make_zip, tmp_path):
    root = tmp_path / "src"
    _fake_plugin(root, license_file=False)
    (root / "metadata.txt").write_text("[general]\nname=X\nversion=one\n")
    with pytest.raises(make_zip.PackagingError) as err:
        make_zip.build_zip(root, tmp_path / "dist")
    message = str(err.value)
    assert "LICENSE is missing" in message
    assert "lacks qgisMinimumVersion, description, about, author, email, tracker" in message
    assert "version must look like" in message
    assert not (tmp_path / "dist").exists() or not any((tmp_path / "dist").iterdir())


def test_stale_translation_is_reported(make_zip, tmp_path):
    import os

    root = tmp_path / "src"
    _fake_plugin(root)
    qm = root / "i18n" / "graticule_georeferencer_fr.qm"
    os.utime(qm, (1, 1))
    assert make_zip.check(root) == ["i18n/graticule_georeferencer_fr.qm is missing or older "
                                    "than its .ts; run make transcompile"]


_LOAD_FROM_ZIP = r"""
from graticule_georeferencer.plugin import i18n
print(json.dumps({"file": graticule_georeferencer.__file__, "actions": len(plugin.actions),
                  "algorithms": sorted(a.name() for a in plugin.provider.algorithms()),
                  "icon": not plugin.actions[0].icon().isNull(),
                  "french": i18n.install_translator("fr") is not None,
                  "messages": iface.messages()}))
"""


@pytest.mark.qgis
def test_zip_of_this_tree_installs_and_loads(make_zip, tmp_path):
    """The zip of the real tree (plus a stand-in LICENSE) loads in QGIS from its folder."""
    import shutil
    import subprocess

    src = tmp_path / "src"
    for rel in make_zip.plugin_files(REPO):
        if rel.suffix == ".qm":
            continue
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / rel, src / rel)
    (src / "i18n").mkdir(exist_ok=True)
    for ts in (REPO / "i18n").glob("*.ts"):
        shutil.copy2(ts, src / "i18n" / ts.name)
        subprocess.run(["lrelease", "-silent", str(src / "i18n" / ts.name)], check=True)
    if not (src / "LICENSE").exists():
        (src / "LICENSE").write_text("stand-in licence for the test\n")
    target = make_zip.build_zip(src, tmp_path / "dist")
    plugins = tmp_path / "plugins"
    with zipfile.ZipFile(target) as archive:
        archive.extractall(plugins)
    loaded = run_plugin_in_fresh_qgis(_LOAD_FROM_ZIP, plugins, tmp_path)
    assert loaded["file"].startswith(str(plugins))
    assert loaded["actions"] == 4 and loaded["icon"] and loaded["french"]
    assert {"detectgraticule", "georeference", "refitgcps", "evaluatet3"} <= set(
        loaded["algorithms"])
    assert loaded["messages"] == []
