"""The example commands of README.md and of the manual: the lines of their ```sh blocks.

Usage synopses and sample outputs are in ```text blocks and are not commands. A trailing
backslash continues a command on the next line; blank lines and ``#`` comments are skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHELL_LANGUAGES = {"sh", "bash", "console", "shell"}
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")


@dataclass(frozen=True)
class Block:
    """One ```sh block: the file (relative to the repository), its fence line, commands."""

    file: str
    line: int
    commands: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.file}:{self.line}"


def doc_files() -> list[Path]:
    """README.md and every page of the manual."""
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def shell_blocks(files: list[Path] | None = None) -> list[Block]:
    """Every ```sh block of ``files`` (default :func:`doc_files`), in order."""
    blocks = []
    for path in files or doc_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            indent, language, start = m.group(1), m.group(2), i
            i += 1
            body = []
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
                i += 1
            i += 1   # the closing fence
            if language in SHELL_LANGUAGES:
                blocks.append(Block(str(path.relative_to(REPO)), start + 1,
                                    tuple(join_continuations(body))))
    return blocks


def join_continuations(lines: list[str]) -> list[str]:
    """Commands from the lines of a block: ``\\`` continuations joined, comments dropped."""
    commands, current = [], ""
    for line in lines:
        text = line.strip()
        if not current and (not text or text.startswith("#")):
            continue
        if text.endswith("\\"):
            current += text[:-1].rstrip() + " "
            continue
        commands.append(" ".join((current + text).split()))
        current = ""
    if current:
        commands.append(" ".join(current.split()))
    return commands
