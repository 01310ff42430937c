"""The course's own font, shipped with the package so pictures read the same on every machine.

Pictures are laid out with Helvetica's widths (Graphviz, and :func:`course.draw.style.text_width`
for the node sizes), but a viewer draws them with whatever fonts it has: where neither
Helvetica nor Arial is installed (many Linux machines have only DejaVu Sans, about 10 % wider)
titles, legends and labels overflowed their boxes.  So the course ships *CourseSans*: Liberation
Sans 2 (SIL Open Font License 1.1), whose advance widths are Arial's and so Helvetica's, cut down
to Latin, Greek, Cyrillic, punctuation and mathematical symbols, unhinted and renamed (the
licence's Reserved Font Names may not name a modified font).  ``OFL.txt`` beside this file is
its licence, ``make_fonts.py`` how it is made.

* :func:`embed_font` puts, into an SVG picture, a subset of CourseSans holding just the
  characters the picture writes (a few kB), and makes its text use it: the text is drawn with
  the metrics that laid it out, in a notebook, on the documentation site and in a browser alike.
* :func:`browser_css` is the same font for pictures laid out in the browser (the explorers of
  :mod:`course.widgets`): ``@font-face`` rules with a shipped WOFF of the characters they write.
* :func:`use_in_matplotlib` registers the font with matplotlib (:mod:`course.plots` uses it).

>>> sorted(p.name for p in (font_file(), font_file(bold=True)))
['CourseSans-Bold.ttf', 'CourseSans-Regular.ttf']
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from functools import lru_cache
from html import unescape
from pathlib import Path

__all__ = ["FAMILY", "FALLBACK", "BROWSER_CHARS", "font_file", "covers", "subset_font",
           "font_face_css", "embed_font", "browser_css", "use_in_matplotlib"]

FAMILY = "CourseSans"
"""The font's family name (in CSS and in matplotlib)."""

FALLBACK = "Helvetica,Arial,sans-serif"
"""Fonts a viewer falls back on for a character CourseSans lacks (same widths: Helvetica, Arial)."""

_HERE = Path(__file__).resolve().parent

BROWSER_CHARS = "".join(map(chr, [
    *range(0x20, 0x7F), *range(0xA0, 0x100),                  # ASCII, Latin-1 (accented names)
    *range(0x391, 0x3A2), *range(0x3A3, 0x3AA), *range(0x3B1, 0x3CA),     # Greek
    0x2013, 0x2014, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2026, 0x2032,
    0x2190, 0x2191, 0x2192, 0x2193, 0x2202, 0x2211, 0x2212, 0x221E, 0x2248, 0x2260, 0x2264, 0x2265,
]))
"""Characters of the explorers' web font (``CourseSans-*.woff``); others fall back."""

#: SVG ``font-family`` values replaced by :func:`embed_font`: the families Graphviz writes for
#: Helvetica or Arial (the course's pictures set Helvetica, :data:`course.draw.style.FONT`).
_REPLACED = re.compile(r'font-family="(?:Helvetica|Arial)')
_TEXT = re.compile(r"<text\b([^>]*)>(.*?)</text>", re.S)


def font_file(*, bold: bool = False) -> Path:
    """Path of the shipped TrueType file of CourseSans, regular or bold.

    >>> font_file(bold=True).stat().st_size > 50_000
    True
    """
    return _HERE / f"CourseSans-{'Bold' if bold else 'Regular'}.ttf"


@lru_cache(maxsize=2)
def _font_data(bold: bool) -> bytes:
    return font_file(bold=bold).read_bytes()


@lru_cache(maxsize=2)
def _cmap(bold: bool) -> frozenset[int]:
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(io.BytesIO(_font_data(bold)), lazy=True).getBestCmap())


def covers(text: str, *, bold: bool = False) -> bool:
    """Whether CourseSans has a glyph for every character of ``text``.

    >>> covers("α=-∞ β=+∞ [3, 7] … 64 leaves"), covers("♞")
    (True, False)
    """
    cmap = _cmap(bold)
    return all(ord(ch) in cmap for ch in text)


@lru_cache(maxsize=256)
def subset_font(chars: str, *, bold: bool = False) -> bytes:
    """CourseSans cut down to ``chars`` (those it has), as a WOFF file.

    Hinting and OpenType layout (kerning) are left out: each character then takes exactly its
    advance width, the widths Graphviz and :func:`course.draw.style.text_width` lay out with.
    The copyright and licence notices stay in the font's name table.

    Parameters
    ----------
    chars : str
        The characters to keep (order and repeats do not matter).
    bold : bool
        The bold weight instead of the regular one.

    Returns
    -------
    bytes
        A WOFF font (zlib-compressed TrueType, which every current browser reads).

    Examples
    --------
    >>> woff = subset_font("alphabeta 0123456789")
    >>> woff[:4], len(woff) < 6000
    (b'wOFF', True)
    """
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(io.BytesIO(_font_data(bold)), recalcTimestamp=False)   # same bytes every time
    for tag in ("GSUB", "GPOS", "GDEF", "kern"):     # unread, so no time spent decoding them
        if tag in font:
            del font[tag]
    options = subset.Options()
    options.flavor = "woff"
    options.hinting = False
    options.layout_features = []
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.name_legacy = False
    options.notdef_outline = True
    options.glyph_names = False
    subsetter = subset.Subsetter(options)
    cmap = _cmap(bold)
    subsetter.populate(unicodes=sorted({ord(ch) for ch in chars} & cmap))
    subsetter.subset(font)
    out = io.BytesIO()
    font.flavor = "woff"
    font.save(out)
    return out.getvalue()


def font_face_css(regular: str, bold: str = "") -> tuple[str, str]:
    """A font family holding ``regular`` and ``bold`` characters, and its ``@font-face`` rules.

    The family's name is ``CourseSans-`` and a digest of the characters, so pictures with
    different subsets can share a page (an inline SVG's style applies to the whole page).

    Returns
    -------
    (family, css) : tuple of str
        ``css`` has one ``@font-face`` rule per weight used, the font as a ``data:`` URI.

    Examples
    --------
    >>> family, css = font_face_css("value 3", "A")
    >>> family.startswith("CourseSans-"), css.count("@font-face"), "font-weight:bold" in css
    (True, 2, True)
    """
    weights = [(False, "".join(sorted(set(regular))))]
    if bold:
        weights.append((True, "".join(sorted(set(bold)))))
    digest = hashlib.sha256(repr(weights).encode("utf-8")).hexdigest()[:10]
    family = f"{FAMILY}-{digest}"
    rules = []
    for is_bold, chars in weights:
        data = base64.b64encode(subset_font(chars, bold=is_bold)).decode("ascii")
        rules.append(f'@font-face{{font-family:"{family}";font-style:normal;'
                     f'font-weight:{"bold" if is_bold else "normal"};'
                     f'src:url(data:font/woff;base64,{data}) format("woff")}}')
    return family, "\n".join(rules)


def embed_font(svg: str) -> str:
    """An SVG picture whose Helvetica text is drawn in CourseSans, embedded in the picture.

    A ``<style>`` right inside the ``<svg>`` element defines a family holding the subsets of
    CourseSans (:func:`subset_font`) with the characters the picture writes in Helvetica or
    Arial (as Graphviz names them), regular and bold (text with ``font-weight="bold"``), and
    gives that text the font ``CourseSans-<digest>, CourseSans, Helvetica, Arial, sans-serif``.
    The rule is scoped by a class of the ``<svg>`` element, so it touches no other picture of a
    page.  Characters CourseSans lacks fall back on the fonts after it.  A picture without such
    text is returned unchanged, as is one that already carries the font.

    Parameters
    ----------
    svg : str
        SVG text, e.g. Graphviz's output.

    Returns
    -------
    str

    Examples
    --------
    >>> svg = ('<svg xmlns="http://www.w3.org/2000/svg"><text font-family="Helvetica,sans-Serif">'
    ...        '&#45;1 &lt; 2</text><text font-weight="bold" font-family="Helvetica,sans-Serif">A</text></svg>')
    >>> out = embed_font(svg)
    >>> out.count("@font-face"), out.count('<svg class="CourseSans-')
    (2, 1)
    >>> embed_font(out) == out
    True
    """
    start = svg.find("<svg")
    end = svg.find(">", start) + 1 if start >= 0 else 0
    if end <= 0 or f'class="{FAMILY}-' in svg[start:end]:
        return svg
    regular: set[str] = set()
    bold: set[str] = set()
    for attrs, body in _TEXT.findall(svg):
        if not _REPLACED.search(attrs):
            continue
        chars = set(unescape(re.sub(r"<[^>]*>", "", body)))
        (bold if re.search(r'font-weight="(?:bold|[6-9]00)"', attrs) else regular).update(chars)
    regular.discard("\n")
    bold.discard("\n")
    if not regular and not bold:
        return svg
    family, css = font_face_css("".join(regular) or " ", "".join(bold))
    scope = f"svg.{family} text"
    rule = (f'{scope}[font-family^="Helvetica"],{scope}[font-family^="Arial"]'
            f'{{font-family:"{family}",{FAMILY},{FALLBACK}}}')
    head = svg[start:end]
    if re.search(r"\sclass=", head):
        head = re.sub(r'(\sclass=")', rf"\1{family} ", head, count=1)
    else:
        head = head.replace("<svg", f'<svg class="{family}"', 1)
    return svg[:start] + head + f"\n<style>\n{css}\n{rule}\n</style>" + svg[end:]


def browser_css(scope: str) -> str:
    """CSS giving the SVG text under ``scope`` the course's font, shipped as WOFF data URIs.

    For pictures laid out in the browser (Viz.js writes Helvetica, as Graphviz does): the
    ``@font-face`` rules define ``CourseSans`` with the characters of :data:`BROWSER_CHARS`
    (about 15 kB per weight), and ``scope`` ``svg text`` is set in it, before Helvetica.

    >>> css = browser_css(".course-tree-view .ctv-port")
    >>> css.count("@font-face"), ".course-tree-view .ctv-port svg text[font-family]" in css
    (2, True)
    """
    rules = []
    for weight in ("Regular", "Bold"):
        data = base64.b64encode((_HERE / f"{FAMILY}-{weight}.woff").read_bytes()).decode("ascii")
        rules.append(f'@font-face{{font-family:"{FAMILY}";font-style:normal;'
                     f'font-weight:{"bold" if weight == "Bold" else "normal"};'
                     f'src:url(data:font/woff;base64,{data}) format("woff")}}')
    rules.append(f'{scope} svg text[font-family]{{font-family:"{FAMILY}",{FALLBACK}}}')
    return "\n".join(rules)


_REGISTERED: list[str] = []


def use_in_matplotlib() -> str:
    """Register CourseSans (both weights) with matplotlib's font manager, once; its family name.

    >>> from matplotlib.font_manager import FontProperties, findfont
    >>> Path(findfont(FontProperties(family=use_in_matplotlib()))).name
    'CourseSans-Regular.ttf'
    """
    if not _REGISTERED:
        from matplotlib import font_manager

        for bold in (False, True):
            font_manager.fontManager.addfont(str(font_file(bold=bold)))
        _REGISTERED.append(FAMILY)
    return FAMILY
