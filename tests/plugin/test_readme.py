"""README.md is the assembly of its sources in docs/ (``make readme``), never edited apart."""

import re

from plugin_test_helpers import REPO as ROOT
from plugin_test_helpers import load_tool


def test_readme_is_built_from_docs():
    built = load_tool("build_readme").build_readme()
    assert (ROOT / "README.md").read_text(encoding="utf-8") == built, \
        "README.md differs from its sources in docs/: run `make readme`"


def test_readme_links_to_existing_images_and_has_no_placeholder():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "@@" not in text
    images = re.findall(r"\]\((docs/images/[^)]+)\)", text)
    assert images, "the README shows pictures"
    missing = [p for p in images if not (ROOT / p).is_file()]
    assert not missing
