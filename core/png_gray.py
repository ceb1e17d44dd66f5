"""Fast decoding of plain 8-bit greyscale PNG files (map-area and other masks).

A 10000 x 10000 mask PNG holds 100 MB of pixels in a few hundred kB; libpng inflates them
with the system zlib at about 400 MB/s (0.25 s, as long as the sheet's JPEG decode), most of
it copying long runs of equal bytes. zlib-ng (the ``zlib-ng`` package, when installed)
inflates the same stream about six times faster, and the rows are then unfiltered with
numpy. Files this module does not handle (other bit depths or colour types, interlacing,
transparency or palette chunks, a damaged stream) and machines without ``zlib-ng`` give
None, and the caller decodes the file with OpenCV instead: the pixels are the same either
way.
"""

from __future__ import annotations

import os
import struct

import numpy as np

try:   # optional accelerator (requirements.txt); without it every file goes to OpenCV
    from zlib_ng import zlib_ng as _zlib
except ImportError:  # pragma: no cover - depends on the installation
    _zlib = None

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: chunks that do not change the pixels OpenCV decodes from an 8-bit grey PNG
_HARMLESS = {b"IHDR", b"IDAT", b"IEND", b"pHYs", b"tEXt", b"zTXt", b"iTXt", b"tIME",
             b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"bKGD"}
#: rows with the Average or Paeth filter are unfiltered pixel by pixel in Python; a file
#: with more of them than this goes to OpenCV
MAX_SLOW_ROWS = 64


def available() -> bool:
    """True when ``zlib-ng`` is installed (else :func:`read_gray_png` always gives None)."""
    return _zlib is not None


def read_gray_png(path: str | os.PathLike) -> np.ndarray | None:
    """The pixels ``(H, W) uint8`` of an 8-bit greyscale, non-interlaced PNG file, or None
    when the file is anything else or cannot be decoded here (then decode it with OpenCV).

    Examples
    --------
    >>> import cv2, tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "m.png"
    >>> m = np.zeros((40, 60), np.uint8); m[10:30, 5:50] = 255
    >>> _ = cv2.imwrite(str(p), m)
    >>> out = read_gray_png(p)
    >>> out is None or bool((out == m).all())
    True
    """
    if _zlib is None:
        return None
    with open(path, "rb") as f:
        data = f.read(len(SIGNATURE))
        if data != SIGNATURE:
            return None
        data += f.read()
    header = _parse(data)
    if header is None:
        return None
    width, height, stream = header
    size = height * (width + 1)   # a filter byte, then the row's pixels
    try:   # never more than the header's size (read_header has checked that size)
        raw = _zlib.decompressobj().decompress(stream, size)
    except Exception:   # zlib_ng.error: a damaged stream; OpenCV reports it its own way
        return None
    if len(raw) < size:
        return None
    return _unfilter(np.frombuffer(raw, np.uint8).reshape(height, width + 1))


def _parse(data: bytes) -> tuple[int, int, bytes] | None:
    """(width, height, concatenated IDAT data) of a PNG this module decodes, else None."""
    if not data.startswith(SIGNATURE):
        return None
    pos, width, height, parts = len(SIGNATURE), 0, 0, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) < length or kind not in _HARMLESS:
            return None
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour != 0 or interlace != 0 or not width or not height:
                return None
        elif kind == b"IDAT":
            parts.append(body)
        elif kind == b"IEND":
            return (width, height, b"".join(parts)) if parts and width else None
        pos += 12 + length
    return None


def _unfilter(raw: np.ndarray) -> np.ndarray | None:
    """Undo the PNG row filters of ``raw`` ``(H, 1 + W)`` (filter byte first; one byte per
    pixel). None when a filter type is invalid or too many rows need the slow path."""
    kinds = raw[:, 0]
    if kinds.max() > 4 or np.count_nonzero(kinds >= 3) > MAX_SLOW_ROWS:
        return None
    height, width = raw.shape[0], raw.shape[1] - 1
    out = np.empty((height, width), np.uint8)
    prior = np.zeros(width, np.uint8)
    for y, kind in enumerate(kinds.tolist()):
        row, line = raw[y, 1:], out[y]
        if kind == 0:      # None
            line[:] = row
        elif kind == 1:    # Sub: running sum along the row, modulo 256
            np.cumsum(row, dtype=np.uint8, out=line)
        elif kind == 2:    # Up
            np.add(prior, row, out=line)
        else:              # Average (3) or Paeth (4): each byte needs the one left of it
            line[:] = _slow_row(row.tolist(), prior.tolist(), kind)
        prior = line
    return out


def _slow_row(row: list[int], prior: list[int], kind: int) -> list[int]:
    """One Average- or Paeth-filtered row unfiltered (PNG specification, section 9)."""
    out, left, up_left = [], 0, 0
    for x, up in zip(row, prior, strict=True):
        if kind == 3:
            value = (x + ((left + up) >> 1)) & 255
        else:
            p = left + up - up_left
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
            pred = left if pa <= pb and pa <= pc else (up if pb <= pc else up_left)
            value = (x + pred) & 255
        out.append(value)
        left, up_left = value, up
    return out
