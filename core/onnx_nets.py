"""ONNX networks shipped with the project, read with OpenCV DNN once per process.

Both small networks (the blocks and edge networks of :mod:`core.blocks.net`, the figure
reader of :mod:`core.gridlabels.numerals`) are files in the installed plugin; a missing or
damaged file is an installation problem, so the error asks to reinstall (or retrain).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cv2

from .errors import InputError

T = TypeVar("T")

_lock = threading.Lock()
_cache: dict[tuple[str, int], object] = {}


def cached_network(path: Path, what: str, card: str,
                   extra: Callable[[Path], T] | None = None) -> tuple[cv2.dnn.Net, T | None]:
    """The OpenCV DNN network of the ONNX file ``path`` and ``extra(path)`` (e.g. its
    geometry file read), read once per process and again when the file changes.

    Parameters
    ----------
    path : Path
        The ``.onnx`` file.
    what : str
        What the network is, for the error message ("the network", "the figure reader").
    card : str
        Where its model card says how to retrain it (e.g. ``models/MODEL.md``).
    extra : callable, optional
        Reads what goes with the model (may raise OSError, ValueError or TypeError).

    Raises
    ------
    InputError
        The file is missing or cannot be read: reinstall the plugin or retrain it.
    """
    try:
        key = (str(path), Path(path).stat().st_mtime_ns)
    except OSError as exc:
        raise InputError(f"cannot load {what} {path}: {exc}; reinstall the plugin") from None
    with _lock:
        if key not in _cache:
            try:
                side = extra(Path(path)) if extra is not None else None
                _cache[key] = (cv2.dnn.readNetFromONNX(key[0]), side)
            except (OSError, ValueError, TypeError, cv2.error) as exc:
                raise InputError(f"cannot load {what} {path}: {exc}; reinstall the plugin "
                                 f"or retrain it ({card})") from None
        return _cache[key]  # type: ignore[return-value]
