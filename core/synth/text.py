"""Map lettering: street names along streets, building names, district labels, titles.

Labels are rendered with Pillow TrueType fonts into small grey patches (255 = ink), turned to
their angle and merged into an ink layer. Fonts come from the Debian packages
fonts-dejavu-core, fonts-liberation2, fonts-ebgaramond (old-style figures of grid labels,
the ``garamond`` family of the held-out style), fonts-paratype and fonts-crosextra-caladea
(the held-out grid-label styles); when none is found Pillow's built-in bitmap
font is scaled instead, and the fonts actually used are reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from . import draw

FONT_DIRS = (Path("/usr/share/fonts/truetype/liberation2"),
             Path("/usr/share/fonts/truetype/liberation"),
             Path("/usr/share/fonts/truetype/dejavu"),
             Path("/usr/share/fonts/opentype/ebgaramond"),
             Path("/usr/share/fonts/truetype/paratype"),
             Path("/usr/share/fonts/truetype/crosextra"))
FONT_FILES = {
    "serif-italic": ("LiberationSerif-Italic.ttf", "DejaVuSerif-Italic.ttf"),
    "serif": ("LiberationSerif-Regular.ttf", "DejaVuSerif.ttf"),
    "serif-bold": ("LiberationSerif-Bold.ttf", "DejaVuSerif-Bold.ttf"),
    "serif-bold-italic": ("LiberationSerif-BoldItalic.ttf", "DejaVuSerif-BoldItalic.ttf"),
    "serif-condensed": ("DejaVuSerifCondensed.ttf", "LiberationSerif-Regular.ttf"),
    "serif-condensed-italic": ("DejaVuSerifCondensed-Italic.ttf", "LiberationSerif-Italic.ttf"),
    "sans": ("LiberationSans-Regular.ttf", "DejaVuSans.ttf"),
    # old-style figures by default (engraved grid values of the 1830s)
    "oldstyle": ("EBGaramond12-Bold.otf", "EBGaramond12-Regular.otf", "DejaVuSerif-Bold.ttf"),
}
#: The fonts of the held-out label styles ``plain`` and ``plain-km`` (Debian fonts-paratype
#: and fonts-crosextra-caladea): the numeral reader is never trained on them
#: (tools/numeral_samples.py leaves them out), so a benchmark on them measures reading in
#: typefaces nothing was tuned to.
HELDOUT_LABEL_FONTS = {"pt-serif": ("PTF55F.ttf",), "pt-sans": ("PTS55F.ttf",),
                       "caladea": ("Caladea-Regular.ttf",)}
FONT_FILES.update(HELDOUT_LABEL_FONTS)
_SANS = {"serif-italic": ("LiberationSans-Italic.ttf", "DejaVuSans-Oblique.ttf"),
         "serif": ("LiberationSans-Regular.ttf", "DejaVuSans.ttf"),
         "serif-bold": ("LiberationSans-Bold.ttf", "DejaVuSans-Bold.ttf"),
         "serif-bold-italic": ("LiberationSans-BoldItalic.ttf", "DejaVuSans-BoldOblique.ttf"),
         "serif-condensed": ("DejaVuSansCondensed.ttf", "LiberationSans-Regular.ttf"),
         "serif-condensed-italic": ("DejaVuSansCondensed-Oblique.ttf",
                                    "LiberationSans-Italic.ttf"),
         "sans": ("DejaVuSans.ttf", "LiberationSans-Regular.ttf")}
_GARAMOND_ITALIC = ("EBGaramond12-Italic.otf", "EBGaramond08-Italic.otf")
_GARAMOND = ("EBGaramond12-Regular.otf", "EBGaramond08-Regular.otf")
#: font family (``SheetParams.lettering_font``) -> style -> candidate files, first found
#: wins; the family's fonts come first, then the ``liberation`` family's as a fallback
FAMILIES: dict[str, dict[str, tuple[str, ...]]] = {
    "liberation": FONT_FILES,
    "dejavu": {k: v[::-1] for k, v in FONT_FILES.items()},
    "sans": _SANS,
    "condensed": {k: ("DejaVuSerifCondensed-Italic.ttf" if "italic" in k else
                      "DejaVuSerifCondensed-Bold.ttf" if "bold" in k else
                      "DejaVuSerifCondensed.ttf",) for k in FONT_FILES},
    "garamond": {k: (_GARAMOND_ITALIC if "italic" in k else
                     ("EBGaramond12-Bold.otf",) if "bold" in k else _GARAMOND)
                 for k in FONT_FILES},
}

STREET_TYPES = ["Rue", "Rue", "Rue", "Rue", "R.", "Boulevard", "Avenue", "Passage", "Impasse",
                "Quai", "Cité", "Place", "Cour", "Bd", "Av."]
LINKS = ["de", "du", "des", "de la", "de l'", "St", "Ste", ""]
NAMES = ["Varenne", "Grenelle", "Jacob", "Mazarine", "Buci", "Bac", "Lille", "Verneuil",
         "Université", "Vaugirard", "Sèvres", "Rennes", "Bonaparte", "Seine", "Dauphine",
         "Bourbon", "Babylone", "Oudinot", "Vaneau", "Bellechasse", "Solférino", "Poitiers",
         "Beaune", "Saints Pères", "Sulpice", "Tournon", "Condé", "Odéon", "Monsieur",
         "Harlay", "Lutèce", "Arcole", "Colombe", "Chanoinesse", "Cloître", "Pont Neuf",
         "Rivoli", "Temple", "Archives", "Francs Bourgeois", "Turenne", "Béarn", "Birague",
         "Jouy", "Fourcy", "Nonnains", "Hôtel de Ville", "Barres", "Lobau", "Louvre",
         "Richelieu", "Montpensier", "Valois", "Bons Enfants", "Croix des Petits Champs",
         "Jean Jacques Rousseau", "Coquillière", "Halles", "Montorgueil", "Tiquetonne",
         "Étienne Marcel", "Réaumur", "Turbigo", "Saint Martin", "Saint Denis", "Cygne",
         "Grenéta", "Palestro", "Caire", "Abbaye", "Furstemberg", "Échaudé", "Seine",
         "Visconti", "Beaux Arts", "Guénégaud", "Nevers", "Christine", "Savoie", "Séguier",
         "Gît le Cœur", "Hirondelle", "Éperon", "Danton", "Serpente", "Hautefeuille",
         "Ecole de Médecine", "Racine", "Cujas", "Soufflot", "Médicis", "Garancière",
         "Férou", "Canettes", "Princesse", "Guisarde", "Mabillon", "Lobineau", "Clément",
         "Montfaucon", "Cherche Midi", "Regard", "Dragon", "Taranne", "Gozlin", "Talleyrand",
         "Constantine", "Martignac", "Las Cases", "Casimir Périer", "Saint Dominique",
         "Bourgogne", "Fabert", "Invalides", "Grenelle", "Ministère", "Champ de Mars"]
BUILDINGS = ["Ecole", "École", "Eglise", "Église St Sulpice", "Hôtel", "Ministère",
             "Ambassade", "Caserne", "Marché", "Mairie", "Lycée", "Hospice", "Hôpital",
             "Palais", "Collège", "Couvent", "Chapelle", "Théâtre", "Bibliothèque",
             "Préfecture", "Tribunal", "Institut", "Musée", "Poste", "Gendarmerie",
             "Fontaine", "Temple", "Bains", "Lavoir", "Presbytère", "Dépôt", "Magasins",
             "Pensionnat", "Séminaire", "Manufacture", "Entrepôt", "Square", "Jardin",
             "Cour", "Cour du Mai", "Cour St Martin", "Direction", "Imprimerie"]
QUALIFIERS = ["de la Guerre", "d'Italie", "de Russie", "des Finances", "de Police",
              "de Commerce", "du Génie", "de la Marine", "des Travaux Publics", "Communale",
              "Municipale", "St Louis", "de la Cité", "Notre Dame", "des Arts", "Militaire",
              "de Filles", "de Garçons", "Nationale", "d'Artillerie", "du Quartier"]
RIVERS = ["FLEUVE", "LA SEINE", "SEINE", "CANAL", "BRAS DE LA SEINE"]
TITLES = ["ATLAS MUNICIPAL DES VINGT ARRONDISSEMENTS DE PARIS",
          "PLAN DE PARIS", "ATLAS MUNICIPAL", "VILLE DE PARIS"]
DISTRICT_ORDINALS = ["1er", "2e", "3e", "4e", "5e", "6e", "7e", "8e", "9e", "10e", "11e", "12e",
                     "13e", "14e", "15e", "16e", "17e", "18e", "19e", "20e"]


@lru_cache(maxsize=64)
def find_font(style: str, family: str = "liberation") -> Path | None:
    """The first installed font file for ``style`` in ``family`` (see FAMILIES), or None.
    The ``oldstyle`` figures of grid labels are one font whatever the sheet's family."""
    if style == "oldstyle" or style in HELDOUT_LABEL_FONTS:
        names = FONT_FILES[style]
    else:
        names = FAMILIES[family][style] + (FONT_FILES[style] if family != "liberation" else ())
    for name in names:
        for d in FONT_DIRS:
            p = d / name
            if p.is_file():
                return p
    return None


@lru_cache(maxsize=512)
def _truetype(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


@dataclass
class Lettering:
    """Renders labels into ink layers and remembers the fonts used."""

    fonts_used: set[str] = field(default_factory=set)
    family: str = "liberation"   #: font family (FAMILIES)
    scale: float = 1.0           #: every label's size is multiplied by this

    def render(self, runs: list[tuple[str, float, float]], style: str, size_px: float,
               tracking: float = 0.0) -> np.ndarray:
        """A horizontal label patch (uint8, 255 = ink; read-only, shared by equal labels).

        ``runs``: (text, size factor, raise as a fraction of the size) pieces written one
        after the other, e.g. ``[("6", 1, 0), ("e", 0.55, 0.45)]`` for a superscript.
        ``tracking``: extra space between letters, as a fraction of the size.
        """
        path = find_font(style, self.family)
        self.fonts_used.add(path.name if path is not None
                            else "Pillow default bitmap font (scaled)")
        return _render_label(tuple(runs), style, max(6, round(size_px * self.scale)),
                             float(tracking), self.family)

    def measure(self, text_: str, style: str, size_px: float) -> tuple[float, float]:
        """Approximate (width, height) in pixels of ``text_`` rendered by :meth:`render`."""
        size = max(6, round(size_px * self.scale))
        path = find_font(style, self.family)
        if path is None:
            return 0.6 * size * len(text_), 1.1 * size
        font = _truetype(str(path), size)
        return float(font.getlength(text_)) + 2.0, 1.1 * size

    def place(self, layer: np.ndarray, patch: np.ndarray, centre: tuple[float, float],
              angle_deg: float, strength: int = 255) -> tuple[int, int, int, int]:
        """Turn ``patch`` by ``angle_deg`` (clockwise on screen, from +x towards +y) and merge
        it into ``layer`` centred on ``centre``; returns the covered box (x0, y0, x1, y1)."""
        h, w = patch.shape
        t = np.radians(angle_deg)
        c, s = abs(np.cos(t)), abs(np.sin(t))
        bw, bh = int(np.ceil(w * c + h * s)) + 2, int(np.ceil(w * s + h * c)) + 2
        m = cv2.getRotationMatrix2D((w / 2, h / 2), -angle_deg, 1.0)
        m[0, 2] += bw / 2 - w / 2
        m[1, 2] += bh / 2 - h / 2
        rot = cv2.warpAffine(patch, m, (bw, bh), flags=cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        if strength < 255:
            rot = (rot.astype(np.uint16) * strength // 255).astype(np.uint8)
        x0 = round(centre[0] - bw / 2)
        y0 = round(centre[1] - bh / 2)
        draw.paste_max(layer, rot, x0, y0)
        return x0, y0, x0 + bw, y0 + bh


@lru_cache(maxsize=4096)
def _render_label(runs: tuple[tuple[str, float, float], ...], style: str, size: int,
                  tracking: float, family: str = "liberation") -> np.ndarray:
    """Render a label (see :meth:`Lettering.render`); cached, the result is read-only."""
    path = find_font(style, family)
    pieces = []
    for text, factor, rise in runs:
        s = max(5, round(size * factor))
        font = _truetype(str(path), s) if path is not None else ImageFont.load_default()
        ascent = font.getmetrics()[0]
        k = s / 11.0 if path is None else 1.0  # the bitmap font is scaled to the size
        chars = list(text) if tracking > 0 else [text]
        for ch in chars:
            left, top, right, bottom = font.getbbox(ch)
            im = Image.new("L", (max(1, right - left) + 2, max(1, bottom - top) + 2), 0)
            ImageDraw.Draw(im).text((1 - left, 1 - top), ch, fill=255, font=font)
            arr = np.asarray(im)
            if k != 1.0:
                arr = cv2.resize(arr, (max(1, round(arr.shape[1] * k)),
                                       max(1, round(arr.shape[0] * k))),
                                 interpolation=cv2.INTER_LINEAR)
            adv = arr.shape[1] + tracking * size
            if ch.strip() == "":
                adv = 0.3 * s + tracking * size
            # top of the glyph box relative to the baseline, raised for superscripts
            pieces.append((arr, (top - ascent) * k - rise * size, adv))
    if not pieces:
        return np.zeros((1, 1), np.uint8)
    tops = [top for _, top, _ in pieces]
    bottoms = [top + a.shape[0] for a, top, _ in pieces]
    y_min, y_max = min(tops), max(bottoms)
    width = int(np.ceil(sum(adv for _, _, adv in pieces[:-1]) + pieces[-1][0].shape[1])) + 2
    out = np.zeros((int(np.ceil(y_max - y_min)) + 2, max(width, 1)), np.uint8)
    x = 0.0
    for arr, top, adv in pieces:
        y0 = round(top - y_min)
        draw.paste_max(out, arr, round(x), y0)
        x += adv
    out.flags.writeable = False
    return out


def street_name(rng: np.random.Generator, kind: str | None = None) -> list[str]:
    """Words of a street name, e.g. ['Rue', 'de', 'Varenne'] (links may be empty)."""
    t = kind or str(rng.choice(STREET_TYPES))
    link = str(rng.choice(LINKS))
    name = str(rng.choice(NAMES))
    if link.endswith("'"):
        return [t, link + name]
    return [w for w in (t, link, name) if w]


def building_name(rng: np.random.Generator) -> list[str]:
    """One or two lines naming a building."""
    first = str(rng.choice(BUILDINGS))
    if rng.random() < 0.55:
        return [first, str(rng.choice(QUALIFIERS))]
    return [first]
