"""ICDAR Robust Reading Competition (RRC) text files: parsing and pairing GT with detections.

One line per word: ``x1,y1,x2,y2,x3,y3,x4,y4,transcription``. Coordinates are integer pixels
(x right, y down); the points go clockwise on screen from the word's top-left corner. The
transcription is everything after the 8th comma, untrimmed; one wrapped in double quotes is
unquoted (``\\\\`` -> ``\\``, ``\\"`` -> ``"``) and exactly ``###`` marks a don't-care word.
Files are UTF-8 with an optional BOM; lines split on ``\\n``, every ``\\r`` is dropped and empty
lines are skipped, as the RRC scripts do. Word indices are 0-based among the non-empty lines.

GT files are ``gt_<id>.txt`` and detection files ``res_<id>.txt`` (or ``<id>.txt``), in a
directory or a .zip. A missing or empty detection file means no detections.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import InputError
from ...limits import MAX_PIXEL_COORD, coordinate_problem

if TYPE_CHECKING:
    from .geometry import ImageGeometry

DONT_CARE = "###"

_NUM = r"\s*(-?[0-9]+)\s*"
_QUAD = ",".join([_NUM] * 8)
_WITH_TEXT = re.compile(rf"^{_QUAD},(.*)$")
_WITHOUT_TEXT = re.compile(rf"^{_QUAD}$")
_QUOTED = re.compile(r'^\s*"(.*)"\s*$')


@dataclass(frozen=True)
class Word:
    """One word: a quadrilateral in integer pixels and its transcription.

    ``text`` is None for a detection line without a 9th field. ``line`` is the 1-based line
    number in its file, for messages.
    """

    points: tuple[int, ...]
    text: str | None
    line: int = 0

    @property
    def dont_care(self) -> bool:
        return self.text == DONT_CARE

    def is_counter_clockwise(self) -> bool:
        """The RRC orientation test: sum of (x2-x1)(y2+y1) over the edges > 0 (y down)."""
        p = self.points
        xs, ys = p[0::2], p[1::2]
        total = sum((xs[(i + 1) % 4] - xs[i]) * (ys[(i + 1) % 4] + ys[i]) for i in range(4))
        return total > 0


@dataclass(frozen=True)
class TextImage:
    """The GT words and detections of one image.

    ``det_file`` is None when the image has no detection file.
    """

    name: str
    gt: tuple[Word, ...]
    det: tuple[Word, ...]
    gt_file: str = ""
    det_file: str | None = None

    @cached_property
    def geometry(self) -> ImageGeometry:
        """Polygons, areas and pairwise intersection areas, computed once for all metrics."""
        from .geometry import ImageGeometry

        return ImageGeometry(self.gt, self.det)


class ReferenceRefusalError(InputError):
    """A reference program refuses the whole submission (official mode reproduces it)."""


def counter_clockwise_words(images: Sequence[TextImage]) -> Iterator[tuple[str, Word]]:
    """(file name, word) of every counter-clockwise quad: GT files first, then detection
    files, in the order the RRC scripts validate them."""
    for image in images:
        yield from ((image.gt_file, w) for w in image.gt if w.is_counter_clockwise())
    for image in images:
        yield from ((image.det_file or "", w) for w in image.det if w.is_counter_clockwise())


def rrc_refusal(images: Sequence[TextImage]) -> str | None:
    """Why the RRC scripts (IoU, TIoU) refuse these files, or None: they stop at the first
    counter-clockwise quad."""
    for name, word in counter_clockwise_words(images):
        coords = ",".join(map(str, word.points))
        return (f"the RRC script refuses the submission: {name} line {word.line} ({coords}):"
                " Points are not clockwise")
    return None


def unquote(text: str) -> str:
    """The RRC rule: a transcription wrapped in double quotes loses them and its escapes."""
    m = _QUOTED.match(text)
    if m is None:
        return text
    return m.group(1).replace("\\\\", "\\").replace('\\"', '"')


def parse_line(line: str, *, need_text: bool) -> tuple[tuple[int, ...], str | None]:
    """Points and transcription of one line; ValueError if it is not an RRC quad line."""
    m = _WITH_TEXT.match(line)
    if m is not None:
        return _points(m.groups()[:8]), unquote(m.group(9))
    if not need_text:
        m = _WITHOUT_TEXT.match(line)
        if m is not None:
            return _points(m.groups()), None
    expected = "x1,y1,x2,y2,x3,y3,x4,y4" + (",transcription" if need_text else "[,transcription]")
    raise ValueError(f"expected integer {expected}")


def _points(groups: Sequence[str]) -> tuple[int, ...]:
    """The 8 integer coordinates; ValueError past :data:`core.limits.MAX_PIXEL_COORD`."""
    if any(len(g.strip().lstrip("-").lstrip("0")) > 12 for g in groups):  # huge digit runs
        raise ValueError(f"coordinates must be within +-{MAX_PIXEL_COORD:g} px")
    values = tuple(int(v) for v in groups)
    problem = coordinate_problem(values, MAX_PIXEL_COORD, "px")
    if problem:
        raise ValueError(problem)
    return values


def decode(raw: bytes, name: str, *, strict_utf8: bool = True) -> str:
    """UTF-8 text without a leading BOM. Invalid UTF-8 is an InputError unless
    ``strict_utf8`` is False, which replaces bad bytes with U+FFFD as the RRC scripts do."""
    try:
        text = raw.decode("utf-8", "strict" if strict_utf8 else "replace")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name} is not UTF-8 (byte {exc.start}); save it as UTF-8") from None
    return text[1:] if text.startswith("\ufeff") else text


def parse_text(text: str, name: str, *, need_text: bool) -> tuple[Word, ...]:
    """All words of one file's text; InputError naming the file and line on a bad line."""
    words = []
    for number, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.replace("\r", "")
        if not line:
            continue
        try:
            points, transcription = parse_line(line, need_text=need_text)
        except ValueError as exc:
            shown = line if len(line) <= 80 else line[:77] + "..."
            raise InputError(f"{name} line {number} ({shown!r}): {exc}") from None
        words.append(Word(points, transcription, number))
    return tuple(words)


def image_key(file_name: str) -> str:
    """Pairing key: the base name without ``.txt`` and without a ``gt_`` or ``res_`` prefix
    (``gt_img_3.txt`` and ``res_img_3.txt`` -> ``img_3``, as CLEval pairs them)."""
    stem = Path(file_name).name[:-4]
    for prefix in ("gt_", "res_"):
        if stem.startswith(prefix):
            return stem[len(prefix):]
    return stem


def natural_key(name: str) -> list:
    """Sort key putting ``img_2`` before ``img_10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def read_text_files(path: str | os.PathLike) -> dict[str, bytes]:
    """The ``.txt`` files of a directory (not recursive) or a .zip, by base name."""
    p = Path(path)
    if p.is_dir():
        try:
            return {f.name: f.read_bytes() for f in p.iterdir()
                    if f.is_file() and f.name.lower().endswith(".txt")}
        except OSError as exc:
            raise InputError(f"cannot read {exc.filename}: {exc.strerror}") from None
    if not p.exists():
        raise InputError(f"{p} does not exist; give a directory or a .zip of RRC .txt files")
    try:
        with zipfile.ZipFile(p) as archive:
            out: dict[str, bytes] = {}
            for info in archive.infolist():
                name = Path(info.filename).name
                if info.is_dir() or not name.lower().endswith(".txt"):
                    continue
                if name in out:
                    raise InputError(f"{p} holds {name} twice; keep one per image")
                out[name] = archive.read(info)
            return out
    except (zipfile.BadZipFile, OSError, EOFError) as exc:
        raise InputError(f"{p} is neither a directory nor a readable .zip ({exc})") from None


def _by_key(files: dict[str, bytes], where: str | os.PathLike) -> dict[str, tuple[str, bytes]]:
    keyed: dict[str, tuple[str, bytes]] = {}
    for name in sorted(files):
        key = image_key(name)
        if key in keyed:
            raise InputError(f"{where}: {keyed[key][0]} and {name} are the same image {key!r};"
                             " keep one")
        keyed[key] = (name, files[name])
    return keyed


def load_dataset(gt_path: str | os.PathLike, pred_path: str | os.PathLike, *,
                 strict_utf8: bool = True) -> list[TextImage]:
    """Read and pair GT and detection files, sorted by image name (natural order).

    Every GT file is an image; a detection file without a GT file is an InputError.
    """
    gts = _by_key(read_text_files(gt_path), gt_path)
    if not gts:
        raise InputError(f"{gt_path} holds no .txt file; give gt_<id>.txt files")
    dets = _by_key(read_text_files(pred_path), pred_path)
    orphans = sorted(set(dets) - set(gts), key=natural_key)
    if orphans:
        names = ", ".join(dets[k][0] for k in orphans[:5]) + (" ..." if len(orphans) > 5 else "")
        raise InputError(f"no GT file for {names} in {pred_path}; name detections res_<id>.txt"
                         " after gt_<id>.txt")
    images = []
    for key in sorted(gts, key=natural_key):
        gt_name, gt_raw = gts[key]
        gt = parse_text(decode(gt_raw, gt_name, strict_utf8=strict_utf8), gt_name,
                        need_text=True)
        det_name, det = None, ()
        if key in dets:
            det_name, det_raw = dets[key]
            det = parse_text(decode(det_raw, det_name, strict_utf8=strict_utf8), det_name,
                             need_text=False)
        images.append(TextImage(key, gt, det, gt_name, det_name))
    return images
