"""Build the zip to upload to plugins.qgis.org: ``make zip`` -> dist/<name>-<version>.zip.

The zip holds one top folder, ``graticule_georeferencer/``, with ``__init__.py``,
``metadata.txt``, ``LICENSE``, the ``plugin`` and ``core`` packages and the compiled
translations (``i18n/*.qm``); never tests, benchmarks, tools, documentation sources, caches,
virtual environments or VCS files. The checks plugins.qgis.org makes on upload are made
first (required metadata fields, LICENSE, one .qm per .ts): a failed check prints one line
and exits with status 2, writing nothing.

Usage: python tools/make_zip.py [--output DIR]
"""

from __future__ import annotations

import argparse
import configparser
import os
import re
import sys
import zipfile
from pathlib import Path

PACKAGE = "graticule_georeferencer"
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from core.atomic import atomic_output  # noqa: E402  (the repository's own helper)

TOP_FILES = ("__init__.py", "metadata.txt", "LICENSE", "README.md")
TOP_DIRS = ("plugin", "core")
REQUIRED_METADATA = ("name", "qgisMinimumVersion", "description", "about", "version",
                     "author", "email", "tracker", "repository")
SKIP_DIRS = {"__pycache__", ".pytest_cache", ".ruff_cache", ".mypy_cache", ".git", ".venv"}
SKIP_SUFFIXES = {".pyc", ".pyo", ".orig", ".rej", ".swp"}


class PackagingError(Exception):
    """The tree cannot be uploaded as it is; the message says what to fix."""


def _wanted(path: Path) -> bool:
    return not (path.name.startswith(".") or path.suffix in SKIP_SUFFIXES
                or path.name.endswith("~"))


def plugin_files(root: Path = ROOT) -> list[Path]:
    """The files that go into the zip, relative to ``root``, sorted."""
    files = [Path(name) for name in TOP_FILES if (root / name).is_file()]
    for top in TOP_DIRS:
        for dirpath, dirnames, filenames in os.walk(root / top):
            dirnames[:] = sorted(d for d in dirnames
                                 if d not in SKIP_DIRS and not d.startswith("."))
            for name in filenames:
                path = Path(dirpath) / name
                if _wanted(path):
                    files.append(path.relative_to(root))
    files += [p.relative_to(root) for p in (root / "i18n").glob("*.qm")]
    return sorted(files)


def read_metadata(root: Path = ROOT) -> configparser.SectionProxy:
    meta = configparser.ConfigParser(interpolation=None)
    if not meta.read(root / "metadata.txt", encoding="utf-8") or "general" not in meta:
        raise PackagingError("metadata.txt is missing or has no [general] section")
    return meta["general"]


def check(root: Path = ROOT) -> list[str]:
    """Problems plugins.qgis.org would reject the upload for (empty when none)."""
    problems = []
    try:
        general = read_metadata(root)
    except PackagingError as exc:
        return [str(exc)]
    missing = [k for k in REQUIRED_METADATA if not general.get(k, "").strip()]
    if missing:
        problems.append(f"metadata.txt lacks {', '.join(missing)}")
    if not re.fullmatch(r"\d+(\.\d+){1,2}", general.get("version", "").strip()):
        problems.append("metadata.txt: version must look like 1.2.3")
    for key in ("tracker", "repository"):
        if not general.get(key, "").startswith(("http://", "https://")):
            problems.append(f"metadata.txt: {key} must be a web address")
    icon = general.get("icon", "").strip()
    if icon and not (root / icon).is_file():
        problems.append(f"metadata.txt: icon {icon} does not exist")
    if not (root / "LICENSE").is_file():
        problems.append("LICENSE is missing: add the licence text at the top of the plugin")
    for ts in sorted((root / "i18n").glob("*.ts")):
        qm = ts.with_suffix(".qm")
        if not qm.is_file() or qm.stat().st_mtime < ts.stat().st_mtime:
            problems.append(f"{qm.relative_to(root)} is missing or older than its .ts; run "
                            "make transcompile")
    return problems


def build_zip(root: Path = ROOT, output_dir: Path | None = None) -> Path:
    """Check the tree and write ``<output_dir>/graticule_georeferencer-<version>.zip``."""
    problems = check(root)
    if problems:
        raise PackagingError("; ".join(problems))
    version = read_metadata(root)["version"].strip()
    out_dir = output_dir or root / "dist"
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / f"{PACKAGE}-{version}.zip"
    with atomic_output(target) as tmp, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel in plugin_files(root):
            archive.write(root / rel, f"{PACKAGE}/{rel.as_posix()}")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=None,
                        help="directory for the zip (default: dist/)")
    args = parser.parse_args(argv)
    try:
        target = build_zip(ROOT, args.output)
    except PackagingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with zipfile.ZipFile(target) as archive:
        count = len(archive.namelist())
    print(f"{target}: {count} files, {target.stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
