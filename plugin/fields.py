"""Attribute fields that work on QGIS 3.22 (Qt5, QVariant types) and Qt6 builds (QMetaType)."""

from __future__ import annotations

from qgis.core import QgsField, QgsFields

KINDS = ("int", "double", "bool", "string")


def _qmetatype(kind: str):
    from qgis.PyQt.QtCore import QMetaType

    return {"int": QMetaType.Type.Int, "double": QMetaType.Type.Double,
            "bool": QMetaType.Type.Bool, "string": QMetaType.Type.QString}[kind]


def _qvariant(kind: str):
    from qgis.PyQt.QtCore import QVariant

    return {"int": QVariant.Type.Int, "double": QVariant.Type.Double,
            "bool": QVariant.Type.Bool, "string": QVariant.Type.String}[kind]


def field(name: str, kind: str) -> QgsField:
    """A field of ``kind`` (int, double, bool or string)."""
    try:  # QGIS >= 3.38 and every Qt6 build take a QMetaType
        return QgsField(name, _qmetatype(kind))
    except TypeError:  # QGIS 3.22 to 3.36 on Qt5 take a QVariant type
        return QgsField(name, _qvariant(kind))


def make_fields(spec: tuple[tuple[str, str], ...]) -> QgsFields:
    """QgsFields from ``(name, kind)`` pairs."""
    fields = QgsFields()
    for name, kind in spec:
        fields.append(field(name, kind))
    return fields
