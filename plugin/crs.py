"""Coordinate reference systems between QGIS and core: the Paris atlas grid as a custom CRS.

core takes CRSs as text (EPSG code, WKT or PROJ string, see ``core.georef.crs.parse_crs``);
QGIS widgets give :class:`QgsCoordinateReferenceSystem` objects.
"""

from __future__ import annotations

from qgis.core import QgsApplication, QgsCoordinateReferenceSystem

#: Name of the Paris atlas grid in QGIS's list of custom CRSs (stored once, not translated).
PARIS_ATLAS_NAME = "Atlas municipal de Paris – grid (Paris Observatory)"
#: Output CRS proposed by default: RGF93 v1 / Lambert-93, France's official projection.
DEFAULT_TARGET = "EPSG:2154"
_AUTHORITIES = ("EPSG:", "IGNF:", "ESRI:", "OGC:")


def paris_atlas_crs() -> QgsCoordinateReferenceSystem:
    """The Paris atlas grid, registered as a custom ("USER") CRS on first use.

    QGIS keeps custom CRSs in the user's profile database, so the grid stays available in
    every projection selector (under "User-defined") after the plugin is unloaded.
    """
    from ..core.georef.crs import PRESETS

    wanted = QgsCoordinateReferenceSystem.fromProj(PRESETS["paris-atlas"])
    registry = QgsApplication.coordinateReferenceSystemRegistry()
    for details in registry.userCrsList():
        if details.name == PARIS_ATLAS_NAME or details.crs == wanted:
            return details.crs
    srsid = registry.addUserCrs(wanted, PARIS_ATLAS_NAME,
                                QgsCoordinateReferenceSystem.Format.FormatWkt)
    if srsid < 0:  # read-only profile: use the definition without registering it
        return wanted
    return QgsCoordinateReferenceSystem.fromSrsId(srsid)


def core_crs_text(crs: QgsCoordinateReferenceSystem) -> str:
    """The text core's ``parse_crs`` reads for ``crs``: its authority code, else WKT2."""
    authid = crs.authid()
    if authid.upper().startswith(_AUTHORITIES):
        return authid
    return crs.toWkt(QgsCoordinateReferenceSystem.WktVariant.WKT_PREFERRED)


def result_crs(result) -> QgsCoordinateReferenceSystem:
    """The output CRS of a ``core.georef.GeorefResult``, from the WKT of its report."""
    return QgsCoordinateReferenceSystem.fromWkt(result.report["crs"]["output_wkt"])


def crs_name(text: str) -> str:
    """A short name for a CRS given as core writes it (WKT or code): its authority code and
    name, the Paris atlas grid's name, or QGIS's description of a custom CRS."""
    crs = QgsCoordinateReferenceSystem.fromWkt(text)
    if not crs.isValid():
        crs = QgsCoordinateReferenceSystem(text)
    if not crs.isValid():
        return text[:40]
    try:
        if crs == paris_atlas_crs() or crs.toProj() == paris_atlas_crs().toProj():
            return PARIS_ATLAS_NAME
    except ImportError:
        pass
    if crs.authid().upper().startswith(_AUTHORITIES):
        return f"{crs.authid()} {crs.description()}".strip()
    description = crs.description()
    return description if description and description != "unknown" else crs.toProj()[:60]


def crs_from_text(text: str) -> QgsCoordinateReferenceSystem | None:
    """The CRS a PROJ string, WKT or authority code describes (as a ``.points`` file's
    ``#CRS`` line or a user types it), or None when QGIS does not know it."""
    text = " ".join((text or "").split())
    if not text:
        return None
    if text.startswith("+") or "+proj=" in text:
        crs = QgsCoordinateReferenceSystem.fromProj(text)
    elif text[:1].isalpha() and "[" in text:
        crs = QgsCoordinateReferenceSystem.fromWkt(text)
    else:
        crs = QgsCoordinateReferenceSystem(text)
    return crs if crs.isValid() else None
