"""Core's errors in the words of the plugin's forms.

Core raises :class:`core.errors.InputError` with references to the options at fault; the
command line words them as flags (``--spacing``), the plugin as the labels of its fields
("Grid spacing"). The message itself is core's, never reworded here.
"""

from __future__ import annotations

import traceback

from .i18n import tr


def field_label(name: str) -> str:
    """How a message names core option ``name``: the label of the plugin field that sets
    it, in quotes."""
    labels = {
        "input": tr("Sheet"), "mask": tr("Map-area mask"), "anchor": tr("Anchor"),
        "gcps": tr("Known points (.points)"), "gcps-only": tr("(known points only)"),
        "spacing": tr("Grid spacing"), "grid-crs": tr("Grid CRS"), "crs": tr("Target CRS"),
        "transform": tr("Transform"), "outdir": tr("Output folder"),
        "output": tr("Output"), "threshold": tr("Outlier threshold"),
        "outliers": tr("Outlier rejection"), "resampling": tr("Resampling"),
        "tolerance": tr("Simplification tolerance"), "level": tr("Level"),
        "georef": tr("Georeferencing"), "gpkg": tr("GeoPackage"),
    }
    return f"“{labels.get(name, name)}”"


def describe_error(exc: BaseException) -> tuple[str, str | None]:
    """(one line for the user, the traceback for the log or None) of a failed job: core's
    InputError with its options named as fields, an unusable sheet, or an unexpected
    error."""
    from ..core.errors import InputError
    from .sheets import SheetError

    if isinstance(exc, InputError):
        return exc.render(field_label), None
    if isinstance(exc, SheetError):
        return str(exc), None
    if isinstance(exc, MemoryError):
        return tr("Not enough memory for this sheet: close other programs and try again."), None
    details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return tr("Unexpected error: {0}. The details are in the log (Log Messages panel, "
              "Graticule Georeferencer tab, or the algorithm's log).").format(text), details
