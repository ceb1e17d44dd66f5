"""LaTeX-ish chart text to Unicode (``\\mu g`` -> ``μg``, ``km^{2}`` -> ``km²``).

The task 2 scripts pass every text containing ``\\``, ``_{`` or ``^{`` through a modified
``unicodeit`` 0.6 (``replace``), after lower-casing it. This module reproduces its steps on
the commands charts use (Greek letters, common math symbols, sub- and superscripts):

1. a backslash that starts a combining-mark name (``\\hat``, ``\\dot``...) gets a space after
   it (so ``\\dotplus`` is left alone, as unicodeit leaves it);
2. ``\\name`` becomes its symbol, longest name first, eating one following space; there is
   no word boundary, so ``\\log`` gives ``łog`` (``\\l`` is ł), as in unicodeit;
3. ``_{...}`` and ``^{...}`` groups whose characters all have a sub/superscript form are
   expanded to one ``_c`` / ``^c`` per character, then every ``_c`` / ``^c`` with a
   Unicode sub/superscript is replaced;
4. ``\\ mark{abc}`` (from step 1) puts the combining mark after each character.

Commands outside the table are left as they are.
"""

from __future__ import annotations

import re

# Command name -> replacement. Upper-case names are never reached by the scripts (the text is
# lower-cased first), so they are not listed: \Delta arrives as \delta and becomes δ.
SYMBOLS: dict[str, str] = {
    # Greek
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ",
    "iota": "ι", "kappa": "κ", "varkappa": "ϰ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ",
    "varsigma": "ς", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "ϕ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "digamma": "Ϝ",
    # operators and relations
    "times": "×", "cdot": "⋅", "pm": "±", "mp": "∓", "div": "÷", "ast": "*", "star": "*",
    "circ": "∘", "bullet": "•", "oplus": "⊕", "otimes": "⊗", "leq": "≤", "geq": "≥",
    "leqq": "≦", "geqq": "≧", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "∼",
    "simeq": "≃", "cong": "≅", "equiv": "≡", "propto": "∝", "varpropto": "∝", "ll": "≪",
    "gg": "≫", "lesssim": "≲", "gtrsim": "≳", "in": "∈", "ni": "∋", "subset": "⊂",
    "supset": "⊃", "subseteq": "⊆", "supseteq": "⊇", "cup": "∪", "cap": "∩",
    "setminus": "∖", "forall": "∀", "exists": "∃", "nexists": "∄", "emptyset": "∅",
    "lnot": "¬", "wedge": "∧", "vee": "∨", "perp": "⊥", "parallel": "∥",
    "mid": "∣", "angle": "∠", "measuredangle": "∡",
    # big operators and calculus
    "sum": "∑", "prod": "∏", "coprod": "∐", "int": "∫", "oint": "∮", "partial": "∂",
    "nabla": "∇", "infty": "∞", "sqrt": "√", "surd": "√",
    # arrows
    "to": "→", "rightarrow": "→", "leftarrow": "←", "leftrightarrow": "↔",
    "uparrow": "↑", "downarrow": "↓", "mapsto": "↦", "hookrightarrow": "↪",
    "iff": "⇔",
    # delimiters
    "langle": "〈", "rangle": "〉", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
    "lbrace": "{", "odot": "⊙", "ominus": "⊖", "oslash": "⊘", "sqrt[3]": "∛", "sqrt[4]": "∜",
    # letters, units, currency, punctuation
    "hbar": "ℏ", "ell": "ℓ", "wp": "℘", "aleph": "ℵ",
    "degree": "°", "textperthousand": "‰", "texteuro": "€", "mathsterling": "£",
    "yen": "¥", "textcent": "¢", "copyright": "©", "dagger": "†", "ddagger": "‡",
    "ldots": "…", "vdots": "⋮", "ss": "ß", "ae": "æ", "oe": "œ", "aa": "å",
    "th": "þ", "o": "ø", "l": "ł", "h": "ℎ", "i": "ℹ", "quad": "\u2003",
    "%": "%", "$": "$", "&": "&", "#": "#", "}": "}", ",": "\u2009", ";": "\u2002",
    ":": "\u2004", "-": "\u00ad",
}

COMBINING_MARKS: dict[str, str] = {
    "tilde": "\u0303", "grave": "\u0300", "dot": "\u0307", "acute": "\u0301",
    "doubleunderline": "\u0333", "ddot": "\u0308", "slash": "\u0338", "overline": "\u0305",
    "vec": "\u20d7", "hat": "\u0302", "breve": "\u0306", "underline": "\u0332",
    "strikethrough": "\u0335", "bar": "\u0305",
}

SUBSCRIPTS: dict[str, str] = dict(zip(
    "0123456789+-=()<>aehijklmnoprstuvxβγρφχ",
    "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎˱˲ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓᵦᵧᵨᵩᵪ", strict=True))
SUPERSCRIPTS: dict[str, str] = dict(zip(
    "0123456789+-=()<>*abcdefghijklmnoprstuvwxyzABDEGHIJKLMNOPRTUVWβγδφχ∫",
    "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾˂˃*ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻᴬᴮᴰᴱᴳᴴᴵᴶᴷᴸᴹᴺᴼᴾᴿᵀᵁᄑᵂᵝᵞᵟᵠᵡᶴ",
    strict=True))

# Characters a _{...} / ^{...} group may hold to be expanded (unicodeit's classes, whose
# "\+-=" is the range + to =, so , . / : ; are allowed too).
_RANGE = "+,-./0123456789:;<="
_SUB_CHARS = re.escape(_RANGE + "()<>-aeoxjhklmnpstiruvβγρφχ")
_SUP_CHARS = re.escape(_RANGE + "()<>ABDEGHIJKLMNOPRTUWabcdefghijklmnoprstuvwxyzβγδφχ∫")
_SUB_GROUP = re.compile(r"_\{([" + _SUB_CHARS + r"]+)\}")
_SUP_GROUP = re.compile(r"\^\{([" + _SUP_CHARS + r"]+)\}")
_COMBINING = re.compile(r"\\ (" + "|".join(sorted(COMBINING_MARKS, key=len, reverse=True))
                        + r")\{([^}]+)\}")
_NAMES_BY_LENGTH = sorted(SYMBOLS, key=len, reverse=True)
_MARKS = tuple(COMBINING_MARKS)


def needs_latex(text: str) -> bool:
    """The scripts' trigger: the text contains ``\\``, ``_{`` or ``^{``."""
    return "\\" in text or "_{" in text or "^{" in text


def _replace_commands(text: str) -> str:
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        rest = text[i + 1:]
        if rest.startswith(_MARKS):
            out.append("\\ ")
            i += 1
            continue
        name = next((k for k in _NAMES_BY_LENGTH if rest.startswith(k)), None)
        if name is None:
            out.append(ch)
            i += 1
            continue
        out.append(SYMBOLS[name])
        i += 1 + len(name)
        if i < n and text[i] == " ":
            i += 1
    return "".join(out)


def _replace_subsup(text: str) -> str:
    """``_c`` / ``^c`` to the Unicode sub/superscript of c, where there is one."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        table = SUBSCRIPTS if ch == "_" else SUPERSCRIPTS if ch == "^" else None
        if table is not None and i + 1 < n and text[i + 1] in table:
            out.append(table[text[i + 1]])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def latex_to_unicode(text: str) -> str:
    """Convert the LaTeX commands, sub- and superscripts of a chart text to Unicode."""
    text = _replace_commands(text)
    text = _SUB_GROUP.sub(lambda m: "".join("_" + c for c in m.group(1)), text)
    text = _SUP_GROUP.sub(lambda m: "".join("^" + c for c in m.group(1)), text)
    text = _replace_subsup(text)
    return _COMBINING.sub(
        lambda m: "".join(c + COMBINING_MARKS[m.group(1)] for c in m.group(2)), text)


def normalize_text(text: str) -> str:
    """The task 2 text normalisation: newlines to spaces, lower case, strip, LaTeX."""
    text = text.replace("\n", " ").replace("\r", " ").lower().strip()
    return latex_to_unicode(text) if needs_latex(text) else text
