"""Core's errors in the words of the plugin's forms.

Core raises :class:`core.errors.InputError` with references to the options at fault; the
command line words them as flags (``--spacing``), the plugin as the labels of its fields
("Grid spacing"). The message itself is core's, never reworded here.
"""

from __future__ import annotations

from .i18n import tr


def field_labels() -> dict[str, str]:
    """Core option name -> the label of the plugin field that sets it."""
    return {
        "input": tr("Sheet"), "mask": tr("Map-area mask"), "anchor": tr("Anchor"),
        "gcps": tr("Known points (.points)"), "gcps-only": tr("(known points only)"),
        "spacing": tr("Grid spacing"), "grid-crs": tr("Grid CRS"), "crs": tr("Target CRS"),
        "transform": tr("Transform"), "outdir": tr("Output folder"),
        "output": tr("Output"), "threshold": tr("Outlier threshold"),
        "outliers": tr("Outlier rejection"), "resampling": tr("Resampling"),
        "tolerance": tr("Simplification tolerance"), "level": tr("Level"),
        "georef": tr("Georeferencing"), "gpkg": tr("GeoPackage"),
    }


def field_label(name: str) -> str:
    """How a message names option ``name``: its field label in quotes."""
    return f"“{field_labels().get(name, name)}”"


def user_message(exc: Exception) -> str:
    """The one line to show for ``exc``: an InputError with its options named as fields."""
    from ..core.errors import InputError

    if isinstance(exc, InputError):
        return exc.render(field_label)
    return str(exc)
