"""Fast decoding of plain 8-bit greyscale PNG files (map-area and other masks).

A 10000 x 10000 mask PNG holds 100 MB of pixels in a few hundred kB; libpng inflates them
with the system zlib at about 400 MB/s (0.25 s, as long as the sheet's JPEG decode), most of
it copying long runs of equal bytes. zlib-ng (the ``zlib-ng`` package, when installed)
inflates the same stream about six times faster, and the rows are then unfiltered with
numpy, a few rows at a time. Files this module does not handle (other bit depths or colour
types, interlacing, transparency or palette chunks, a damaged stream) and machines without
``zlib-ng`` give None, and the caller decodes the file with OpenCV instead: the pixels are
the same either way.

The result lives in its own memory mapping, outside malloc's heap: core.graticule decodes a
mask on a second thread while the sheet's JPEG is decoded, and a mask taking the freed
memory that decode would reuse (``core.memory``) made the decode fault in 100 MB of new
pages now and then (0.2 s of a 0.45 s detection). In a process that keeps freed memory
(:func:`core.memory.reuse_freed_memory`), the mapping of a mask that is gone is kept for
the next mask of the same size, as malloc would keep its memory.
"""

from __future__ import annotations

import mmap
import os
import struct
import weakref

import numpy as np

from .memory import keeps_freed_memory

try:   # optional accelerator (requirements.txt); without it every file goes to OpenCV
    from zlib_ng import zlib_ng as _zlib
except ImportError:  # pragma: no cover - depends on the installation
    _zlib = None

SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: chunks that do not change the pixels OpenCV decodes from an 8-bit grey PNG
_HARMLESS = {b"IHDR", b"IDAT", b"IEND", b"pHYs", b"tEXt", b"zTXt", b"iTXt", b"tIME",
             b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT", b"bKGD"}
#: mappings of masks that are gone, by size in bytes, kept for the next mask of that size
_SPARE: dict[int, list[mmap.mmap]] = {}
MAX_SPARES = 2   # per size
#: bytes inflated at a time (a few hundred rows of a 10000 px mask)
CHUNK_BYTES = 4 << 20
#: rows with the Average or Paeth filter are unfiltered pixel by pixel in Python; a file
#: with more of them than this goes to OpenCV
MAX_SLOW_ROWS = 64


def available() -> bool:
    """True when ``zlib-ng`` is installed (else :func:`read_gray_png` always gives None)."""
    return _zlib is not None


def read_gray_png(path: str | os.PathLike, *, threshold: int | None = None
                  ) -> np.ndarray | None:
    """The pixels ``(H, W) uint8`` of an 8-bit greyscale, non-interlaced PNG file, or None
    when the file is anything else or cannot be decoded here (then decode it with OpenCV).

    With ``threshold``, ``pixels >= threshold`` as ``(H, W) bool`` instead (a mask), made
    row by row: no uint8 copy of the image is held.

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
    out = _mapped_array((height, width), np.uint8 if threshold is None else np.bool_)
    try:
        done = _inflate_rows(stream, width, height, out, threshold)
    except Exception:   # zlib_ng.error: a damaged stream; OpenCV reports it its own way
        return None
    return out if done else None


def _mapped_array(shape: tuple[int, int], dtype: type) -> np.ndarray:
    """A writable array (contents undefined) in an anonymous memory mapping of its own,
    not in malloc's heap: a spare one of that size when there is one (:data:`_SPARE`)."""
    count = shape[0] * shape[1]
    size = max(1, count * np.dtype(dtype).itemsize)
    spares = _SPARE.get(size)
    buffer = spares.pop() if spares else mmap.mmap(-1, size)
    array = np.frombuffer(buffer, dtype, count)
    if keeps_freed_memory():   # back to the spares once no view of the array is left
        weakref.finalize(array, _keep_spare, size, buffer)
    return array.reshape(shape)


def _keep_spare(size: int, buffer: mmap.mmap) -> None:
    spares = _SPARE.setdefault(size, [])
    if len(spares) < MAX_SPARES:
        spares.append(buffer)


def _inflate_rows(stream: bytes, width: int, height: int, out: np.ndarray,
                  threshold: int | None) -> bool:
    """Inflate ``stream`` a few rows at a time (never more than the header's rows), undo
    each row's PNG filter and write it (or ``row >= threshold``) into ``out``. False when the
    stream is short, a filter type is invalid or too many rows need the slow path."""
    stride = width + 1   # a filter byte, then the row's pixels
    chunk_rows = max(1, CHUNK_BYTES // stride)
    inflater = _zlib.decompressobj()
    prior = np.zeros(width, np.uint8)
    line = np.empty(width, np.uint8)
    slow_rows = y = 0
    while y < height:
        want = min(chunk_rows, height - y) * stride
        raw = inflater.decompress(stream, want)
        stream = inflater.unconsumed_tail
        if len(raw) < want:
            return False
        rows = np.frombuffer(raw, np.uint8).reshape(-1, stride)
        for kind, row in zip(rows[:, 0].tolist(), rows[:, 1:], strict=True):
            if kind == 0:      # None
                line[:] = row
            elif kind == 1:    # Sub: running sum along the row, modulo 256
                np.cumsum(row, dtype=np.uint8, out=line)
            elif kind == 2:    # Up
                np.add(prior, row, out=line)
            elif kind <= 4:    # Average or Paeth: each byte needs the one left of it
                slow_rows += 1
                if slow_rows > MAX_SLOW_ROWS:
                    return False
                line[:] = _slow_row(row.tolist(), prior.tolist(), kind)
            else:
                return False
            if threshold is None:
                out[y] = line
            else:
                np.greater_equal(line, threshold, out=out[y])
            prior, line = line, prior
            y += 1
    return True


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
