"""Reading sheets and masks, with clear errors and reduced-size decoding.

Colour arrays are RGB ``(H, W, 3) uint8``; grey arrays ``(H, W) uint8``; masks ``(H, W) bool``.
EXIF orientation is ignored on purpose, so pixel coordinates match what GDAL and QGIS read.

Every file is opened header first (:func:`read_header`, Pillow reads the size without
decoding a pixel): an image larger than :func:`max_pixels` (default 25000 x 25000 =
625 Mpx, raised with the environment variable ``GRATICULE_MAX_PIXELS``) or a sheet smaller
than :data:`MIN_SIDE` px a side is refused before any decoder allocates memory, so a
1 KB file whose header claims 65000 x 65000 px (an "image bomb") is one error line. A JPEG
whose data is corrupt (libjpeg warns while decoding it) is refused too, unless accepted
(:mod:`core.corrupt_jpeg`).
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from .corrupt_jpeg import check_decoded, libjpeg_warnings
from .errors import InputError
from .png_gray import read_gray_png

ImageLike = str | os.PathLike | np.ndarray
MASK_THRESHOLD = 128   # mask pixels at least this are in

_REDUCED_GRAY = {1: cv2.IMREAD_GRAYSCALE, 2: cv2.IMREAD_REDUCED_GRAYSCALE_2,
                 4: cv2.IMREAD_REDUCED_GRAYSCALE_4, 8: cv2.IMREAD_REDUCED_GRAYSCALE_8}
_REDUCED_COLOR = {1: cv2.IMREAD_COLOR, 2: cv2.IMREAD_REDUCED_COLOR_2,
                  4: cv2.IMREAD_REDUCED_COLOR_4, 8: cv2.IMREAD_REDUCED_COLOR_8}
_JPEG_SUFFIXES = {".jpg", ".jpeg", ".jpe", ".jfif"}

#: Environment variable raising (or lowering) the pixel limit: a pixel count
#: (``1000000000``, ``1e9``) or a size (``40000x40000``).
MAX_PIXELS_ENV = "GRATICULE_MAX_PIXELS"
#: Default limit: 25000 x 25000 px (625 Mpx; 1.9 GB per RGB copy), well above a
#: 10000 x 10000 atlas sheet.
DEFAULT_MAX_PIXELS = 25000 * 25000
#: Smallest sheet side, pixels: below this no graticule, map area or block can be found.
MIN_SIDE = 64


def max_pixels() -> int:
    """The largest image, in pixels, any command decodes (see :data:`MAX_PIXELS_ENV`)."""
    text = os.environ.get(MAX_PIXELS_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_PIXELS
    try:
        if "x" in text.lower():
            w, h = (int(v) for v in text.lower().split("x"))
            value = w * h
        else:
            value = float(text)
            if not math.isfinite(value):
                raise ValueError
            value = int(value)
    except ValueError:
        raise InputError(f"{MAX_PIXELS_ENV}={text!r} is not a pixel count; give e.g. "
                         "1000000000 or 40000x40000") from None
    if value < MIN_SIDE * MIN_SIDE:
        raise InputError(f"{MAX_PIXELS_ENV}={text!r} is too small; give at least "
                         f"{MIN_SIDE}x{MIN_SIDE}")
    return value


def read_header(path: str | os.PathLike, *, min_side: int = MIN_SIDE) -> tuple[int, int]:
    """``(width, height)`` from the file header, refusing what must not be decoded.

    Raises InputError for a missing, empty or unreadable file, an image over
    :func:`max_pixels`, or one under ``min_side`` pixels on a side. No pixel is decoded.
    """
    from PIL import Image

    p = check_readable_file(path)
    Image.MAX_IMAGE_PIXELS = None   # Pillow's own bomb check: replaced by ours, below
    try:
        with Image.open(p) as im:
            width, height = (int(v) for v in im.size)
    except Exception as exc:
        raise InputError(f"{p} is not a readable image; give a JPEG, PNG or TIFF file") \
            from exc
    limit = max_pixels()
    if width * height > limit:
        side = math.isqrt(limit)
        raise InputError(
            f"{p} is {width} x {height} px ({width * height / 1e6:.0f} Mpx), over the "
            f"limit of {limit / 1e6:.0f} Mpx (about {side} x {side}); if the file is a "
            f"real scan and the machine has the memory (3 bytes a pixel per copy), raise "
            f"the limit with {MAX_PIXELS_ENV}={width}x{height}", value=(width, height))
    if min(width, height) < min_side:
        raise InputError(f"{p} is only {width} x {height} px; give an image at least "
                         f"{min_side} px on each side", value=(width, height))
    return width, height


def check_readable_file(path: str | os.PathLike) -> Path:
    """Return ``path`` as a Path, or raise InputError if it is not a non-empty file."""
    p = Path(path)
    if not p.exists():
        raise InputError(f"{p}: no such file; check the path")
    if p.is_dir():
        raise InputError(f"{p} is a directory; give an image file")
    if p.stat().st_size == 0:
        raise InputError(f"{p} is empty (0 bytes); give a complete image file")
    return p


def _check_jpeg_complete(p: Path) -> None:
    """Raise InputError when a JPEG file lacks its end-of-image marker (truncated download)."""
    if p.suffix.lower() not in _JPEG_SUFFIXES:
        return
    size = p.stat().st_size
    with p.open("rb") as f:
        head = f.read(3)
        f.seek(max(0, size - 4096))
        tail = f.read()
    if head != b"\xff\xd8\xff":
        raise InputError(f"{p} is not a JPEG image despite its name; give a JPEG, PNG or TIFF file")
    if b"\xff\xd9" not in tail:
        raise InputError(f"{p} is a truncated JPEG (no end marker); copy or download it again")


def _imread(p: Path, flags: int) -> np.ndarray | None:
    """``cv2.imread``; a JPEG whose data libjpeg finds corrupt is refused (InputError)
    unless accepted (:mod:`core.corrupt_jpeg`)."""
    if p.suffix.lower() not in _JPEG_SUFFIXES:
        return cv2.imread(str(p), flags)
    with libjpeg_warnings() as warnings:
        img = cv2.imread(str(p), flags)
    check_decoded(p, warnings)
    return img


def check_jpeg_data(path: str | os.PathLike) -> None:
    """Decode a JPEG at 1/8 of its size (fast: no inverse DCT beyond the DC terms) only to
    refuse it when its data is corrupt (:mod:`core.corrupt_jpeg`), for commands that do not
    decode the sheet themselves. Other formats are not read."""
    p = Path(path)
    if p.suffix.lower() in _JPEG_SUFFIXES:
        read_image(p, reduce=8, gray=True)


def read_image(source: ImageLike, *, reduce: int = 1, gray: bool = False) -> np.ndarray:
    """Read an image file (or validate an array) as RGB or grey uint8.

    Args:
        source: a file path (JPEG, PNG, TIFF...) or an array already in memory.
        reduce: 1, 2, 4 or 8: decode at 1/reduce of the size in each direction (JPEG DCT
            scaling, much faster than decoding then resizing). The result has
            ``ceil(W / reduce)`` columns. Arrays are resized with area averaging.
        gray: return ``(H, W)`` luminance instead of ``(H, W, 3)`` RGB.
    """
    if reduce not in _REDUCED_GRAY:
        raise ValueError(f"reduce must be 1, 2, 4 or 8, not {reduce}")
    if isinstance(source, np.ndarray):
        img = as_image_array(source)
        if gray and img.ndim == 3:
            img = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
        elif not gray and img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2RGB)
        if reduce > 1:
            h, w = img.shape[:2]
            img = cv2.resize(img, (-(-w // reduce), -(-h // reduce)), interpolation=cv2.INTER_AREA)
        return img
    p = check_readable_file(source)
    _check_jpeg_complete(p)
    read_header(p)
    flags = (_REDUCED_GRAY if gray else _REDUCED_COLOR)[reduce] | cv2.IMREAD_IGNORE_ORIENTATION
    img = _imread(p, flags)
    if img is None or img.size == 0:
        raise InputError(f"{p} is not a readable image; give a JPEG, PNG or TIFF file")
    if not gray:
        cv2.cvtColor(img, cv2.COLOR_BGR2RGB, dst=img)
    return img


def read_red_channel(source: ImageLike) -> np.ndarray:
    """The red channel as ``(H, W) uint8``: black and grey ink stay dark, red ink turns pale.

    Used where red printing (labels, boundaries) must not be mistaken for black line work.
    A grey image is returned as it is.
    """
    if isinstance(source, np.ndarray):
        img = as_image_array(source)
        return img if img.ndim == 2 else np.ascontiguousarray(img[:, :, 0])
    img = _decode_bgr(source)
    red = cv2.extractChannel(img, 2)   # OpenCV decodes to BGR; 5x faster than numpy
    del img
    return red


def read_red_channel_and_half(source: ImageLike) -> tuple[np.ndarray, np.ndarray]:
    """The red channel (as :func:`read_red_channel`) and its half-size reduction
    ``(H // 2, W // 2) uint8`` (``cv2.INTER_AREA``: means of 2 x 2 pixel blocks).

    A decoded sheet of even size gives both in two bands of rows at once (OpenCV releases
    the GIL), about twice as fast as one after the other; the pixels are the same.

    Examples
    --------
    >>> red, half = read_red_channel_and_half(np.full((4, 6, 3), (200, 10, 10), np.uint8))
    >>> red.shape, half.shape, int(half[0, 0])
    ((4, 6), (2, 3), 200)
    """
    if isinstance(source, np.ndarray):
        red = read_red_channel(source)
        return red, half_size(red)
    img = _decode_bgr(source)
    height, width = img.shape[:2]
    if height % 2 or width % 2 or height < 4:
        red = cv2.extractChannel(img, 2)
        return red, half_size(red)
    red = np.empty((height, width), np.uint8)
    half = np.empty((height // 2, width // 2), np.uint8)

    def band(top: int, bottom: int) -> None:   # even rows: its 2 x 2 blocks are its own
        cv2.extractChannel(img[top:bottom], 2, dst=red[top:bottom])
        cv2.resize(red[top:bottom], (width // 2, (bottom - top) // 2),
                   dst=half[top // 2:bottom // 2], interpolation=cv2.INTER_AREA)

    split = height // 4 * 2
    with ThreadPoolExecutor(1) as pool:
        lower = pool.submit(band, split, height)
        band(0, split)
        lower.result()
    return red, half


def half_size(img: np.ndarray) -> np.ndarray:
    """``img`` reduced to ``(H // 2, W // 2)`` (at least 1 x 1) by area averaging."""
    height, width = img.shape[:2]
    return cv2.resize(img, (max(1, width // 2), max(1, height // 2)),
                      interpolation=cv2.INTER_AREA)


def _decode_bgr(source: str | os.PathLike) -> np.ndarray:
    """A sheet file decoded as OpenCV's BGR ``(H, W, 3) uint8``, with clear errors."""
    p = check_readable_file(source)
    _check_jpeg_complete(p)
    read_header(p)
    img = _imread(p, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
    if img is None or img.size == 0:
        raise InputError(f"{p} is not a readable image; give a JPEG, PNG or TIFF file")
    return img


def as_image_array(img: np.ndarray) -> np.ndarray:
    """Validate an in-memory image: uint8, 2-D grey or 3-D with 3 (RGB) or 4 (RGBA) channels."""
    if img.dtype != np.uint8:
        raise InputError(f"image array must be uint8, not {img.dtype}")
    if img.size == 0:
        raise InputError("image array is empty")
    if img.ndim == 3 and img.shape[2] == 4:
        img = img[:, :, :3]
    if not (img.ndim == 2 or (img.ndim == 3 and img.shape[2] == 3)):
        raise InputError(f"image array must be (H, W) or (H, W, 3), not {img.shape}")
    return img


def image_size(path: str | os.PathLike, *, min_side: int = MIN_SIDE) -> tuple[int, int]:
    """(width, height) in pixels, read from the file header without decoding the pixels;
    the limits of :func:`read_header` apply."""
    return read_header(path, min_side=min_side)


def read_mask(source: ImageLike, shape: tuple[int, int] | None = None, *,
              what: str = "mask") -> np.ndarray:
    """Read a binary mask (0 = out, 255 = in; thresholded at 128) as a bool array.

    Args:
        source: single-channel 8-bit image file, or an array (bool or uint8).
        shape: expected ``(H, W)``; a mask of another size is an InputError.
        what: what the mask is, for error messages ("map-area mask", ...).
    """
    if isinstance(source, np.ndarray):
        m = source
        name = what
    else:
        p = check_readable_file(source)
        read_header(p, min_side=1)
        # the same mask as below, several times faster (None: a file it leaves to OpenCV)
        m = read_gray_png(p, threshold=MASK_THRESHOLD)
        if m is None:
            m = _imread(p, cv2.IMREAD_UNCHANGED | cv2.IMREAD_IGNORE_ORIENTATION)
        if m is None:
            raise InputError(f"{p} is not a readable image; give a 0/255 PNG {what}")
        name = f"{what} {p}"
    if m.ndim == 3:
        if m.shape[2] >= 3 and not (np.array_equal(m[..., 0], m[..., 1])
                                    and np.array_equal(m[..., 0], m[..., 2])):
            raise InputError(f"{name} is a colour image; give a single-channel 0/255 PNG")
        m = m[..., 0]
    if m.dtype == bool:
        mask = m
    elif m.dtype == np.uint8:
        mask = m >= MASK_THRESHOLD
    else:
        raise InputError(f"{name} has {m.dtype} pixels; give an 8-bit 0/255 PNG")
    if shape is not None and mask.shape != tuple(shape):
        raise InputError(f"{name} is {mask.shape[1]} x {mask.shape[0]} px but the image is "
                         f"{shape[1]} x {shape[0]} px; give the mask made for this image")
    return mask
