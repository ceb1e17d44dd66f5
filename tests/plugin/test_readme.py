"""README.md is the assembly of its sources in docs/ (``make readme``), never edited apart."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _build_readme():
    path = ROOT / "tools" / "build_readme.py"
    spec = importlib.util.spec_from_file_location("build_readme", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.build_readme


def test_readme_is_built_from_docs():
    built = _build_readme()()
    assert (ROOT / "README.md").read_text(encoding="utf-8") == built, \
        "README.md differs from its sources in docs/: run `make readme`"


def test_readme_links_to_existing_images_and_has_no_placeholder():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "@@" not in text
    images = re.findall(r"\]\((docs/images/[^)]+)\)", text)
    assert images, "the README shows pictures"
    missing = [p for p in images if not (ROOT / p).is_file()]
    assert not missing
