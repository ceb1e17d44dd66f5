"""The state of one GCP review: core's review, the current points, their fit, undo/redo.

Every edit (toggle used, type grid values, move, add, remove a point, choose the
transform) pushes a command holding the points and transform before and after it; doing or
undoing one puts a snapshot back and refits with core (``core.georef.review.refit``, the
fit of ``--gcps-only``): the plugin computes nothing itself. On a refused sheet, typed grid
values of a crossing name every crossing (``core.georef.review.name_crossings``).
"""

from __future__ import annotations

from qgis.PyQt.QtCore import QObject, pyqtSignal
from qgis.PyQt.QtWidgets import QUndoCommand, QUndoStack

from ..i18n import tr


class SnapshotCommand(QUndoCommand):
    """One edit: the (points, transform) before and after it."""

    def __init__(self, session: ReviewSession, text: str, before: tuple, after: tuple) -> None:
        super().__init__(text)
        self.session, self.before, self.after = session, before, after

    def redo(self) -> None:
        self.session.restore(*self.after)

    def undo(self) -> None:
        self.session.restore(*self.before)


class ReviewSession(QObject):
    """A review being edited.

    Attributes
    ----------
    review : core.georef.review.Review
        What was opened.
    points : core.georef.review.ReviewPoints
        The current snapshot.
    kind : str
        The current transform kind.
    fit : core.georef.review.ReviewFit
        The fit of ``points`` with ``kind``.
    naming_warnings : list of str
        What naming the crossings of a refused sheet assumed (one anchor: north-up).
    undo_stack : QUndoStack
        The edits; ``undo_stack.isClean()`` after a save.

    Signals: ``changed`` after each refit; ``refused(str)`` when an edit cannot be made
    (core's one line, e.g. an anchor that names no crossing).
    """

    changed = pyqtSignal()
    refused = pyqtSignal(str)

    def __init__(self, review, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.review = review
        self.points = review.points
        self.kind = review.transform
        self.naming_warnings: list[str] = []
        self.undo_stack = QUndoStack(self)
        self.fit = self._refit(self.points, self.kind)

    # ---- core calls --------------------------------------------------------------------

    def _refit(self, points, kind):
        from ...core.georef.review import refit

        return refit(points, self.review.crs, self.review.grid_crs, kind,
                     spacing=self.review.spacing)

    def restore(self, points, kind: str) -> None:
        """Make ``points`` and ``kind`` current and refit (undo/redo call this)."""
        self.points, self.kind = points, kind
        self.fit = self._refit(points, kind)
        self.changed.emit()

    def _push(self, text: str, points, kind: str | None = None) -> bool:
        kind = kind or self.kind
        if points.same_as(self.points) and kind == self.kind:
            return False
        self.undo_stack.push(SnapshotCommand(self, text, (self.points, self.kind),
                                             (points, kind)))
        return True

    # ---- edits -------------------------------------------------------------------------

    def set_used(self, k: int, used: bool) -> bool:
        """Use point ``k`` in the fit or leave it out."""
        text = tr("Use point {0}") if used else tr("Leave point {0} out")
        return self._push(text.format(k + 1), self.points.with_used(k, used))

    def toggle_used(self, k: int) -> bool:
        """Flip point ``k``'s *used* (a point without grid values cannot be used)."""
        if not self.points.known[k]:
            self.refused.emit(tr("Point {0} has no grid coordinates yet: type its easting "
                                 "and northing first.").format(k + 1))
            return False
        return self.set_used(k, not bool(self.points.used[k]))

    def set_grid(self, k: int, easting: float, northing: float) -> bool:
        """Give point ``k`` other grid coordinates (NaN: unknown); on a refused sheet the
        crossings are named from it once both are known."""
        from ...core.errors import InputError
        from ...core.georef.review import name_crossings
        from ..tasks import field_label

        points = self.points.with_grid(k, easting, northing)
        try:
            named, warnings = name_crossings(self.review, points)
        except InputError as exc:
            self.refused.emit(exc.render(field_label))
            return False
        if not named.same_as(points):
            self.naming_warnings = warnings
        return self._push(tr("Grid values of point {0}").format(k + 1), named)

    def move(self, k: int, x: float, y: float, snap: bool = False) -> bool:
        """Move point ``k`` to pixel (x, y) (GCP convention), onto the nearest detected
        crossing when ``snap`` and one is near."""
        x, y = self.snapped(x, y) if snap else (x, y)
        return self._push(tr("Move point {0}").format(k + 1), self.points.with_pixel(k, x, y))

    def add(self, x: float, y: float, snap: bool = False) -> int:
        """Add a point at pixel (x, y) (its grid values to be typed); returns its row."""
        x, y = self.snapped(x, y) if snap else (x, y)
        self._push(tr("Add point {0}").format(len(self.points) + 1),
                   self.points.with_point(x, y))
        return len(self.points) - 1

    def remove(self, k: int) -> bool:
        """Remove point ``k``."""
        return self._push(tr("Remove point {0}").format(k + 1), self.points.without(k))

    def set_kind(self, kind: str) -> bool:
        """Fit another transform kind."""
        return self._push(tr("Transform: {0}").format(kind), self.points, kind)

    def snapped(self, x: float, y: float) -> tuple[float, float]:
        """(x, y) on the nearest detected crossing when one is within a quarter cell."""
        from ...core.georef.review import nearest_crossing

        return nearest_crossing(self.review, (x, y)) or (x, y)

    def mark_saved(self) -> None:
        """The current state is on disk."""
        self.undo_stack.setClean()
