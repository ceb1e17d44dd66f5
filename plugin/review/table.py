"""The GCP table of the review panel: one row per point of a :class:`ReviewSession`.

Columns: id, used (a check box), column and row of the detected crossing, easting and
northing (grid CRS, editable), pixel x and y (x right, y down, top-left corner of the image
at 0, 0; editable), residual in pixels and in map units (``core.georef.review.refit``'s,
for every point with grid values, used or not). Edits go to the session, which refits.
"""

from __future__ import annotations

import math

import numpy as np
from qgis.PyQt.QtCore import QAbstractTableModel, QModelIndex, Qt
from qgis.PyQt.QtGui import QColor

from ..i18n import number, parse_number, tr

ID, USED, COLUMN, ROW, EASTING, NORTHING, PIXEL_X, PIXEL_Y, RES_PX, RES_MAP = range(10)
EDITABLE = (EASTING, NORTHING, PIXEL_X, PIXEL_Y)


def _enum_value(value) -> int:
    """An enum's integer (Qt5 enums are ints, Qt6 ones Python enums)."""
    return int(getattr(value, "value", value))


def headers() -> list[str]:
    """The column titles."""
    return [tr("Id"), tr("Used"), tr("Column"), tr("Row"), tr("Easting"), tr("Northing"),
            tr("Pixel X"), tr("Pixel Y"), tr("Residual (px)"), tr("Residual (map)")]


class GcpTableModel(QAbstractTableModel):
    """A Qt table over ``session``'s points and fit; edits become session commands."""

    def __init__(self, session, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        self._rows = len(session.points)
        session.changed.connect(self._refresh)

    def _refresh(self) -> None:
        rows = len(self.session.points)
        if rows != self._rows:
            self.beginResetModel()
            self._rows = rows
            self.endResetModel()
        elif rows:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, RES_MAP))

    # ---- Qt model ----------------------------------------------------------------------

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: B008 (Qt's signature)
        return 0 if parent.isValid() else self._rows

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else RES_MAP + 1

    def headerData(self, section: int, orientation, role=Qt.ItemDataRole.DisplayRole):
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return headers()[section]
        return None

    def flags(self, index: QModelIndex):
        base = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if index.column() == USED:
            return base | Qt.ItemFlag.ItemIsUserCheckable
        if index.column() in EDITABLE:
            return base | Qt.ItemFlag.ItemIsEditable
        return base

    def values(self, k: int) -> list:
        """Row ``k``'s values by column (floats; NaN where unknown)."""
        p, fit = self.session.points, self.session.fit
        return [k + 1, bool(p.used[k]), *p.index[k], *p.grid_xy[k], *p.pixel_xy[k],
                float(np.hypot(*fit.residual_px[k])), float(np.hypot(*fit.residual_map[k]))]

    def data(self, index: QModelIndex, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        k, col = index.row(), index.column()
        value = self.values(k)[col]
        if role == Qt.ItemDataRole.CheckStateRole and col == USED:
            return Qt.CheckState.Checked if value else Qt.CheckState.Unchecked
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole) and col != USED:
            return self._text(col, value, role == Qt.ItemDataRole.EditRole)
        if role == Qt.ItemDataRole.ForegroundRole and not self.session.points.used[k]:
            return QColor("#8a8a8a")
        if role == Qt.ItemDataRole.TextAlignmentRole and col != USED:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole and col == USED:
            return tr("Used in the fit (Space toggles the selected point)")
        return None

    @staticmethod
    def _text(col: int, value, editing: bool) -> str:
        if col == ID:
            return str(value)
        if not math.isfinite(value):
            return "" if editing else "–"
        if col in (COLUMN, ROW):
            return str(int(value))
        if editing:
            return repr(float(value))
        return number(value, 2 if col in (PIXEL_X, PIXEL_Y, RES_PX, RES_MAP) else 3)

    def setData(self, index: QModelIndex, value, role=Qt.ItemDataRole.EditRole) -> bool:
        k, col = index.row(), index.column()
        session = self.session
        if col == USED and role == Qt.ItemDataRole.CheckStateRole:
            checked = _enum_value(value) == _enum_value(Qt.CheckState.Checked)
            if checked and not session.points.known[k]:
                return session.toggle_used(k)     # says why it cannot
            return session.set_used(k, checked)
        if role != Qt.ItemDataRole.EditRole or col not in EDITABLE:
            return False
        text = str(value).strip()
        try:
            number_ = math.nan if not text else parse_number(text)
        except ValueError:
            session.refused.emit(tr("“{0}” is not a number.").format(text))
            return False
        if col in (EASTING, NORTHING):
            e, n = session.points.grid_xy[k]
            return session.set_grid(k, *((number_, n) if col == EASTING else (e, number_)))
        if math.isnan(number_):
            return False
        x, y = session.points.pixel_xy[k]
        return session.move(k, *((number_, y) if col == PIXEL_X else (x, number_)))
