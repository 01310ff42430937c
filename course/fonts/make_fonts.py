"""Rebuild the shipped CourseSans fonts from Liberation Sans 2 (maintainers only; not imported).

Usage (Debian, no install needed)::

    apt-get download fonts-liberation2 && dpkg-deb -x fonts-liberation2_*.deb liberation
    python course/fonts/make_fonts.py liberation/usr/share/fonts/truetype/liberation2

Then the explorers' web fonts (``CourseSans-*.woff``) are cut from those.  Each weight is cut down to the scripts and symbols pictures use (Latin, Greek, Cyrillic,
punctuation, arrows, mathematical operators, geometric shapes), its TrueType hinting dropped,
and renamed *CourseSans*: the SIL Open Font License forbids a modified version to carry the
Reserved Font Names (Liberation, Arimo).  Glyph outlines and advance widths are untouched, so
the metrics stay those of Liberation Sans (= Arial = Helvetica's widths).
"""

from __future__ import annotations

import sys
from pathlib import Path

UNICODES = ("U+0000-024F,U+0300-036F,U+0370-03FF,U+0400-04FF,U+1E00-1EFF,U+2000-206F,"
            "U+2070-209F,U+20A0-20CF,U+2100-214F,U+2190-21FF,U+2200-22FF,U+2300-23FF,"
            "U+2500-25FF,U+FB00-FB06")
HERE = Path(__file__).resolve().parent


def make(source: Path, weight: str) -> Path:
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source / f"LiberationSans-{weight}.ttf", recalcTimestamp=False)
    options = subset.Options()
    options.hinting = False
    options.layout_features = ["*"]
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    options.glyph_names = False
    options.drop_tables += ["FFTM"]
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=subset.parse_unicodes(UNICODES))
    subsetter.subset(font)
    version = font["name"].getDebugName(5) or ""
    names = {1: "CourseSans", 2: weight, 3: f"CourseSans-{weight} (from Liberation Sans {version})",
             4: f"CourseSans {weight}", 6: f"CourseSans-{weight}",
             10: "Liberation Sans 2, subset, unhinted and renamed for the game-tree search course "
                 "(Reserved Font Names Liberation and Arimo not used)"}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in (7, 16, 17, 18, 21, 22)]
    for name_id, text in names.items():
        table.removeNames(nameID=name_id)
        table.setName(text, name_id, 3, 1, 0x409)
        table.setName(text, name_id, 1, 0, 0)
    font["OS/2"].achVendID = "NONE"
    target = HERE / f"CourseSans-{weight}.ttf"
    font.save(target)
    return target


def make_woff(weight: str) -> Path:
    """The explorers' web font: CourseSans cut down to :data:`course.fonts.BROWSER_CHARS`."""
    from course.fonts import BROWSER_CHARS, subset_font

    target = HERE / f"CourseSans-{weight}.woff"
    target.write_bytes(subset_font(BROWSER_CHARS, bold=weight == "Bold"))
    return target


if __name__ == "__main__":   # pragma: no cover - a maintainer's tool
    folder = Path(sys.argv[1])
    for weight in ("Regular", "Bold"):
        for path in (make(folder, weight), make_woff(weight)):
            print(path, path.stat().st_size, "bytes")
