"""File naming of the ICDAR 2021 MapSeg dataset and the pairing of directories by it.

A sheet ``NNN`` has ``NNN-INPUT.jpg`` (the scan), ``NNN-INPUT-MASK.png`` (map area),
``NNN-OUTPUT-GT.<ext>`` (ground truth) and a method writes ``NNN-OUTPUT-PRED.<ext>``.
Outside that convention a sheet's mask is ``<stem>-MASK.png`` beside it (``INPUT-MASK.png``
beside ``INPUT.jpg``, ``plate-MASK.png`` beside ``plate.tif``): :func:`mask_for_input`
looks for both names, for every command and the plugin.
"""

from __future__ import annotations

import os
from pathlib import Path

from .errors import InputError

INPUT = "-INPUT.jpg"
INPUT_MASK = "-INPUT-MASK.png"
MASK = "-MASK.png"   # <stem>-MASK.png: a sheet's mask outside the MapSeg names
OUTPUT_GT = "-OUTPUT-GT"
OUTPUT_PRED = "-OUTPUT-PRED"


def sheet_id(path: str | os.PathLike) -> str:
    """The ``NNN`` part of a MapSeg file name (everything before the first ``-INPUT``
    or ``-OUTPUT``), or the file stem when the name does not follow the convention."""
    name = Path(path).name
    for marker in ("-INPUT", "-OUTPUT"):
        if marker in name:
            return name.split(marker)[0]
    return Path(path).stem


def list_inputs(directory: str | os.PathLike) -> list[Path]:
    """Every ``NNN-INPUT.jpg`` in ``directory``, sorted; InputError when there is none."""
    d = Path(directory)
    found = sorted(d.glob(f"*{INPUT}"))
    if not found:
        raise InputError(f"{d} holds no NNN{INPUT} file; name the sheets as in MapSeg")
    return found


def mask_names(input_path: str | os.PathLike,
               folder: str | os.PathLike | None = None) -> list[Path]:
    """The names a sheet's mask may have, in the order they are looked for: the MapSeg
    ``NNN-INPUT-MASK.png``, then ``<stem>-MASK.png``; beside the sheet, or in ``folder``.

    >>> [p.name for p in mask_names("maps/INPUT.jpg")]
    ['INPUT-INPUT-MASK.png', 'INPUT-MASK.png']
    >>> [p.name for p in mask_names("maps/001-INPUT.jpg")]
    ['001-INPUT-MASK.png']
    """
    p = Path(input_path)
    where = Path(folder) if folder is not None else p.parent
    names = (sheet_id(p) + INPUT_MASK, p.stem + MASK)
    return [where / name for name in dict.fromkeys(names)]


def mask_for_input(input_path: str | os.PathLike,
                   folder: str | os.PathLike | None = None) -> Path | None:
    """The sheet's mask file if there is one: ``NNN-INPUT-MASK.png`` or ``<stem>-MASK.png``
    (:func:`mask_names`) beside the sheet, or in ``folder``; else None."""
    return next((p for p in mask_names(input_path, folder) if p.is_file()), None)


def sheet_mask(input_path: str | os.PathLike,
               mask: str | os.PathLike | None = None) -> Path | None:
    """The map-area mask of one sheet: ``mask`` when given (InputError unless it is a
    non-empty file), else the ``NNN-INPUT-MASK.png`` or ``<stem>-MASK.png`` beside the
    sheet, else None (the map area is then computed, or the whole sheet searched, as the
    caller decides)."""
    if mask:
        from .imageio import check_readable_file

        return check_readable_file(mask)
    return mask_for_input(input_path)


def check_same_sheets(refs: dict[str, Path], preds: dict[str, Path]) -> None:
    """InputError listing the sheets that have a reference but no prediction, or the reverse
    (the official MapSeg tool refuses such directories too)."""
    only_ref = sorted(set(refs) - set(preds))
    only_pred = sorted(set(preds) - set(refs))
    if only_ref or only_pred:
        parts = []
        if only_ref:
            parts.append(f"no prediction for {', '.join(only_ref)}")
        if only_pred:
            parts.append(f"no reference for {', '.join(only_pred)}")
        raise InputError("; ".join(parts) + "; give matching NNN names in both directories")
