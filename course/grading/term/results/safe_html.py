"""Notebooks rendered as HTML for the instructor and the students, with nothing of theirs that runs.

A graded notebook is the student's: its markdown, its outputs, its metadata,
even the student's name in the gradebook.  nbgrader renders it as HTML in two
places -- the formgrader's manual-grading page, served by the instructor's
Jupyter server (where a script would act with the instructor's rights: read
the solutions, set grades, run code), and the feedback pages -- and nbconvert's
templates put much of it into the page as it is.  Two layers make it inert:

1. **What the page is built from is cleaned** (:class:`SafeHTMLExporter`):

   * HTML in markdown cells, raw cells and ``text/html`` / ``text/markdown``
     outputs goes through `nh3 <https://nh3.readthedocs.io>`_ (the Python
     binding of the Rust sanitiser Ammonia) with an allow-list
     (:func:`clean_html`): no ``<script>``, ``<iframe>``, ``<svg>``,
     ``<object>``, ``<form>``, ``<style>``, no event attributes, no
     ``javascript:`` or ``data:`` links, images only from ``http(s)`` and
     ``data:image/``;
   * outputs keep only the kinds that cannot run code (:data:`SAFE_OUTPUTS`);
     JavaScript, widgets, Mermaid and anything unknown become a one-line note;
   * the fields the templates put into the page are made plain
     (:func:`sanitise_notebook`): cell tags, ids, execution counts, stream
     names, output metadata (image sizes), nbgrader's ``grade_id``, the
     notebook's metadata; the student's id and names are HTML-escaped.

2. **What still slipped through cannot run**: every ``<script`` tag of the
   *templates* (nbgrader's and nbconvert's, which are the instructor's) gets a
   nonce, and the page's Content-Security-Policy (:func:`content_security_policy`)
   allows only scripts with that nonce -- not inline event handlers, not
   ``javascript:`` URLs, not scripts from the server's own files (a student's
   ``.js`` among their files).  The feedback pages carry it in a ``<meta>``
   tag with a random nonce per page; the formgrader's pages get it as a
   header from :mod:`course.formgrader_guard`, a fresh nonce per response.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import re
import secrets
from collections.abc import Iterable
from typing import Any

import nh3
from jinja2 import BaseLoader, pass_context
from nbconvert.exporters import HTMLExporter
from traitlets import Bool, Unicode

__all__ = ["clean_html", "clean_style", "leave_link", "sanitise_notebook", "SafeHTMLExporter",
           "content_security_policy", "SAFE_OUTPUTS", "BOUNDED_PICTURES", "ScriptNonceLoader",
           "inline_handler_hashes"]

#: Output kinds kept (all others are replaced by a note): text, pictures, LaTeX, cleaned HTML/Markdown.
SAFE_OUTPUTS = ("text/plain", "text/html", "text/markdown", "text/latex", "image/png", "image/jpeg",
                "image/gif", "image/svg+xml")
_NOT_SHOWN = "(an output of type {kind} is not shown here: it could run code in this page)"

_TAGS = (set(nh3.ALLOWED_TAGS) | {"caption", "col", "colgroup", "details", "figcaption", "figure",
                                   "mark", "summary", "tfoot"}) - {"iframe", "svg", "math", "style"}
_ATTRIBUTES = {tag: set(attrs) for tag, attrs in nh3.ALLOWED_ATTRIBUTES.items()}
_ATTRIBUTES.setdefault("*", set()).update({"class", "style", "title", "lang", "dir", "align"})
_ATTRIBUTES.setdefault("img", set()).update({"src", "alt", "width", "height"})
_ATTRIBUTES.setdefault("a", set()).update({"href", "title"})
for _cell in ("td", "th"):
    _ATTRIBUTES.setdefault(_cell, set()).update({"colspan", "rowspan"})
#: CSS properties kept in ``style`` attributes, each with what its value may be (:func:`clean_style`).
#: No positioning, no negative or large margins, bounded sizes: what a student writes is drawn
#: inside the answer's own area and never over the formgrader's score boxes or other cells.
_STYLES = {"color", "background-color", "text-align", "vertical-align", "font-weight", "font-style",
           "font-family", "font-size", "text-decoration", "white-space", "border", "border-collapse",
           "border-color", "border-style", "border-width", "border-top", "border-bottom", "border-left",
           "border-right", "padding", "padding-left", "padding-right", "padding-top", "padding-bottom",
           "margin", "margin-left", "margin-right", "margin-top", "margin-bottom", "width", "height",
           "max-width", "min-width", "line-height", "list-style-type"}
#: Largest value per unit, by kind of length (``None``: the unit is not allowed for that kind).
_LENGTH_LIMITS = {
    "spacing": {"px": 48, "em": 3, "rem": 3, "pt": 36, "%": 10},          # margins and paddings
    "border": {"px": 10, "em": 0.6, "rem": 0.6, "pt": 8},
    "width": {"px": 1200, "em": 75, "rem": 75, "pt": 900, "%": 100},
    "height": {"px": 1200, "em": 75, "rem": 75, "pt": 900},
    "font": {"px": 48, "em": 3, "rem": 3, "pt": 36, "%": 300},
    "line": {"": 3, "em": 3, "rem": 3, "%": 300},
}
#: Smallest value per unit (text too small to read is as good as hidden).
_LENGTH_FLOORS = {"font": {"px": 8, "em": 0.5, "rem": 0.5, "pt": 6, "%": 50}, "line": {"": 1, "em": 1, "rem": 1, "%": 100}}
_NUMBER = re.compile(r"(\d{1,5}(?:\.\d{1,4})?|\.\d{1,4})(px|em|rem|pt|%)?")
_COLOR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}|(?:rgba?|hsla?)\(\s*[\d.%\s,/]{1,60}\)")
_KEYWORDS = {
    "text-align": {"left", "right", "center", "justify", "start", "end"},
    "vertical-align": {"baseline", "top", "middle", "bottom", "text-top", "text-bottom", "sub", "super"},
    "font-weight": {"normal", "bold", "bolder", "lighter", *(str(w) for w in range(100, 1000, 100))},
    "font-style": {"normal", "italic", "oblique"},
    "text-decoration": {"none", "underline", "overline", "line-through", "solid", "double", "dotted",
                        "dashed", "wavy"},
    "white-space": {"normal", "nowrap", "pre", "pre-wrap", "pre-line", "break-spaces"},
    "border-collapse": {"collapse", "separate"},
    "list-style-type": {"disc", "circle", "square", "decimal", "lower-alpha", "upper-alpha", "lower-roman",
                        "upper-roman", "none"},
    "font-size": {"xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "smaller", "larger"},
}
_BORDER_STYLES = {"none", "hidden", "solid", "dotted", "dashed", "double", "groove", "ridge", "inset", "outset"}
_SIZE = re.compile(r"\d{1,4}(?:\.\d+)?(?:%|px)?")
_TOKEN = re.compile(r"[^A-Za-z0-9_-]")
#: Largest width and height attribute of a picture (in pixels); the page's stylesheet also bounds
#: a picture's drawn size to the answer's width (:data:`BOUNDED_PICTURES`).
_MAX_PICTURE = 1200
#: The stylesheet put into every page: pictures never wider than their cell nor taller than the window.
BOUNDED_PICTURES = ("<style>/* course.grading.term.results.safe_html: a student's picture stays within "
                    "its cell */ .rendered_html img, .output_area img, .jp-RenderedHTMLCommon img, "
                    ".text_cell_render img {max-width: 100% !important; max-height: 80vh !important; "
                    "object-fit: contain;}</style>")


def _length(token: str, kind: str, *, allow_auto: bool = False) -> bool:
    if token == "0":
        return kind not in _LENGTH_FLOORS
    if allow_auto and token == "auto":
        return True
    found = _NUMBER.fullmatch(token)
    if not found:
        return False
    unit = found.group(2) or ""
    limit = _LENGTH_LIMITS[kind].get(unit)
    if limit is None:
        return False
    value = float(found.group(1))
    floor = _LENGTH_FLOORS.get(kind, {}).get(unit, 0)
    return floor <= value <= limit


def _declaration_ok(tag: str, name: str, value: str) -> bool:
    words = value.split()
    if not words:
        return False
    if name in ("color", "background-color", "border-color"):
        return all(_COLOR.fullmatch(w) for w in re.findall(r"(?:rgba?|hsla?)\([^)]*\)|\S+", value))
    if name == "font-family":
        return bool(re.fullmatch(r"[A-Za-z0-9 ,'\"-]{1,120}", value))
    if name.startswith("margin") or name.startswith("padding"):
        return len(words) <= 4 and all(_length(w, "spacing", allow_auto=name.startswith("margin")) for w in words)
    if name in ("width", "max-width", "min-width"):
        return len(words) == 1 and _length(words[0], "width", allow_auto=True)
    if name == "height":                     # only a picture's: a box lower than its content overflows
        return tag == "img" and len(words) == 1 and _length(words[0], "height", allow_auto=True)
    if name == "font-size":
        return len(words) == 1 and (words[0] in _KEYWORDS["font-size"] or _length(words[0], "font"))
    if name == "line-height":
        return len(words) == 1 and (words[0] == "normal" or _length(words[0], "line"))
    if name in ("border", "border-top", "border-bottom", "border-left", "border-right", "border-width",
                "border-style"):
        for word in re.findall(r"(?:rgba?|hsla?)\([^)]*\)|\S+", value):
            if not (word in _BORDER_STYLES or word in ("thin", "medium", "thick") or _length(word, "border")
                    or (name != "border-style" and _COLOR.fullmatch(word))):
                return False
        return True
    if name in _KEYWORDS:
        return all(w in _KEYWORDS[name] or (name == "text-decoration" and _COLOR.fullmatch(w)) for w in words)
    return False


def clean_style(tag: str, style: str) -> str | None:
    """A ``style`` attribute with only the declarations :data:`_STYLES` allows, each value checked.

    Refused: positioning and layout tricks (not in the list), negative margins and paddings, any
    function but a colour's (``calc()``, ``var()``, ``url()``), ``!important``, escapes and
    comments, margins above 3em, widths above the page, heights except a picture's, text under half
    or above three times the normal size, lines closer than the text's size.

    >>> clean_style("p", "color: red; margin-top: -400px; position: fixed; width: 50%")
    'color: red; width: 50%'
    >>> clean_style("div", "margin: 1em 0 -2em; height: 1px; line-height: 0") is None
    True
    >>> clean_style("img", "width: 300px; height: 200px; margin-top: calc(-1 * 400px)")
    'width: 300px; height: 200px'
    """
    if re.search(r"[\\<>{}@!]|/\*", style):
        return None
    kept = []
    for declaration in style.split(";"):
        if ":" not in declaration:
            continue
        name, value = (part.strip() for part in declaration.split(":", 1))
        name = name.lower()
        if name in _STYLES and _declaration_ok(tag, name, value.strip().lower() if name != "font-family"
                                               else value.strip()):
            kept.append(f"{name}: {value.strip()}")
    return "; ".join(kept) or None


def _attribute_filter(tag: str, attribute: str, value: str, links: Any = None) -> str | None:
    if attribute == "style":
        return clean_style(tag, value)
    if attribute in ("href", "src"):
        lowered = value.strip().lower()
        if lowered.startswith("data:"):
            ok = tag == "img" and attribute == "src" and lowered.startswith("data:image/")
            return value if ok else None
        if attribute == "href" and tag == "a" and links is not None:
            return links(value)
    if attribute in ("width", "height"):
        found = _SIZE.fullmatch(value.strip())
        if not found:
            return None
        number = float(value.strip().rstrip("%px") or 0)
        return value if number <= (100 if value.strip().endswith("%") else _MAX_PICTURE) else None
    return value


def clean_html(text: Any, links: Any = None) -> str:
    """HTML with everything that can run, load a frame or leave the page removed (nh3).

    ``links``, if given, maps each link's ``href`` to the one written instead (the formgrader
    sends links through its warning page, :func:`leave_link`).

    >>> clean_html('<img src=x onerror="alert(1)"><script>alert(2)</script><b>ok</b>')
    '<img src="x"><b>ok</b>'
    >>> clean_html('<a href="javascript:alert(1)">x</a><iframe srcdoc="<script>1</script>"></iframe>')
    '<a rel="noopener noreferrer nofollow">x</a>'
    >>> clean_html('<svg onload="alert(1)"><circle/></svg><p style="position:fixed;color:red">p</p>')
    '<p style="color:red">p</p>'
    >>> clean_html('<img src="p.png" width="9000" style="margin-top:-300px">')
    '<img src="p.png">'
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return nh3.clean(str(text), tags=_TAGS, clean_content_tags={"script", "style", "iframe", "svg", "math",
                                                                  "object", "embed", "template",
                                                                  "noscript"},
                     attributes=_ATTRIBUTES, url_schemes={"http", "https", "mailto", "data"},
                     attribute_filter=lambda tag, name, value: _attribute_filter(tag, name, value, links),
                     filter_style_properties=_STYLES,
                     link_rel="noopener noreferrer nofollow", strip_comments=True)


def leave_link(leave_url: str, page_url: str = "") -> Any:
    """The ``links`` of :func:`clean_html` that sends every link through the warning page ``leave_url``.

    A link to a place in the same page (``#...``) stays; a relative link is made absolute against
    ``page_url`` first (the warning page is elsewhere), so that it still means what it meant.

    >>> to = leave_link("/user/alice/formgrader/course-leave", "/user/alice/formgrader/submissions/7/")
    >>> to("/user/mallory/pwn"), to("notes.html"), to("#part-2")
    ('/user/alice/formgrader/course-leave?to=/user/mallory/pwn', '/user/alice/formgrader/course-leave?to=/user/alice/formgrader/submissions/7/notes.html', '#part-2')
    """
    import urllib.parse

    def to(href: str) -> str:
        href = href.strip()
        if href.startswith("#"):
            return href
        if page_url and not urllib.parse.urlsplit(href).scheme:
            href = urllib.parse.urljoin(page_url, href)
        return f"{leave_url}?to={urllib.parse.quote(href, safe='/:')}"

    return to


def _plain(value: Any, limit: int = 200) -> str:
    return html.escape(str(value)[:limit], quote=True)


def _safe_output(output: dict, links: Any = None) -> dict:
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        text = output.get("text", "")
        return {"output_type": "stream", "name": name,
                "text": "".join(map(str, text)) if isinstance(text, list) else str(text)}
    if kind == "error":
        trace = output.get("traceback") or []
        return {"output_type": "error", "ename": str(output.get("ename", "Error")),
                "evalue": str(output.get("evalue", "")),
                "traceback": [str(line) for line in (trace if isinstance(trace, list) else [trace])]}
    if kind not in ("display_data", "execute_result"):
        return {"output_type": "stream", "name": "stdout", "text": _NOT_SHOWN.format(kind=_plain(kind, 60))}
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    kept: dict[str, Any] = {}
    dropped = []
    for mime, value in data.items():
        if mime not in SAFE_OUTPUTS:
            dropped.append(mime)
            continue
        value = "".join(map(str, value)) if isinstance(value, list) else value
        if not isinstance(value, str):
            dropped.append(mime)
            continue
        if mime == "text/html":
            value = clean_html(value, links)
        elif mime in ("image/png", "image/jpeg", "image/gif"):
            try:
                base64.b64decode(value.replace("\n", ""), validate=True)
            except ValueError:
                dropped.append(mime)
                continue
        kept[mime] = value
    if not kept:
        kept["text/plain"] = _NOT_SHOWN.format(kind=", ".join(_plain(m, 60) for m in dropped) or "none")
    new = {"output_type": kind, "data": kept, "metadata": {}}
    meta = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
    for mime in ("image/png", "image/jpeg", "image/gif"):
        sizes = meta.get(mime) if isinstance(meta.get(mime), dict) else {}
        clean = {k: int(v) for k, v in sizes.items() if k in ("width", "height")
                 and isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 100_000}
        if clean and mime in kept:
            new["metadata"][mime] = clean
    if kind == "execute_result":
        new["execution_count"] = None
    return new


def sanitise_notebook(nb: Any, links: Any = None) -> Any:
    """A copy of a notebook whose every field a template prints is plain (see the module notes).

    Cell sources stay as they are (code is highlighted, escaped, by the
    templates; markdown is cleaned after rendering); outputs keep only
    :data:`SAFE_OUTPUTS`, with ``text/html`` cleaned (its links mapped by
    ``links``, as in :func:`clean_html`); metadata keeps only nbgrader's (with
    a plain ``grade_id``).

    >>> import nbformat
    >>> from nbformat.v4 import new_notebook, new_code_cell, new_output
    >>> cell = new_code_cell("1", metadata={"tags": ['"><script>x</script>']})
    >>> cell.outputs = [new_output("display_data", data={"application/javascript": "alert(1)",
    ...                                                   "text/html": "<b onclick=x()>b</b>"})]
    >>> safe = sanitise_notebook(new_notebook(cells=[cell]))
    >>> safe.cells[0].metadata, safe.cells[0].outputs[0]["data"]
    ({}, {'text/html': '<b>b</b>'})
    """
    import nbformat

    safe = copy.deepcopy(nb)
    safe.metadata = nbformat.from_dict({
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"}})
    for cell in safe.cells:
        meta = cell.get("metadata") if isinstance(cell.get("metadata"), dict) else {}
        nbg = meta.get("nbgrader") if isinstance(meta.get("nbgrader"), dict) else None
        cell.metadata = nbformat.NotebookNode()
        if nbg is not None:
            clean = {k: nbg[k] for k in ("solution", "grade", "locked", "task", "schema_version")
                     if isinstance(nbg.get(k), (bool, int)) and not isinstance(nbg.get(k), str)}
            if "grade_id" in nbg:
                clean["grade_id"] = _TOKEN.sub("_", str(nbg["grade_id"]))[:100]
            for key in ("points", "score"):            # score: set by nbgrader's GetGrades
                value = nbg.get(key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    clean[key] = value
            if isinstance(nbg.get("comment"), str):     # the instructor's, rendered as markdown
                clean["comment"] = nbg["comment"]
            cell.metadata["nbgrader"] = nbformat.from_dict(clean)
        cid = cell.get("id")
        if cid is not None:
            cell["id"] = _TOKEN.sub("_", str(cid))[:64] or "cell"
        if cell.get("cell_type") == "code":
            count = cell.get("execution_count")
            cell["execution_count"] = count if isinstance(count, int) and not isinstance(count, bool) else None
            outputs = cell.get("outputs") if isinstance(cell.get("outputs"), list) else []
            cell["outputs"] = [nbformat.from_dict(_safe_output(o, links)) for o in outputs if isinstance(o, dict)]
        elif cell.get("cell_type") == "raw":
            cell["source"] = clean_html(cell.get("source", ""), links)
        if "attachments" in cell:
            attachments = cell["attachments"] if isinstance(cell["attachments"], dict) else {}
            cell["attachments"] = nbformat.from_dict({
                str(name): {m: v for m, v in bundle.items() if m in ("image/png", "image/jpeg", "image/gif")}
                for name, bundle in attachments.items() if isinstance(bundle, dict)})
    return safe


# ---------------------------------------------------------------------------------------------
# nonces for the templates' own scripts
# ---------------------------------------------------------------------------------------------
_SCRIPT_TAG = re.compile(r"<script\b", re.IGNORECASE)
_HANDLER = re.compile(r"""\son[a-z]+\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)


class ScriptNonceLoader(BaseLoader):
    """A Jinja loader that gives every ``<script`` tag of the templates ``nonce="PLACEHOLDER"``.

    Only template *sources* are changed -- the instructor's files -- so a
    script tag that arrives in the data a template prints never has it.
    """

    def __init__(self, inner: BaseLoader, placeholder: str) -> None:
        self.inner = inner
        self.placeholder = placeholder

    def get_source(self, environment, template):
        source, filename, uptodate = self.inner.get_source(environment, template)
        return _SCRIPT_TAG.sub(f'<script nonce="{self.placeholder}"', source), filename, uptodate

    def list_templates(self):
        return self.inner.list_templates()


def inline_handler_hashes(sources: Iterable[str]) -> list[str]:
    """CSP hashes (``'sha256-...'``) of the inline event handlers in template sources.

    >>> inline_handler_hashes(['<span onclick="toggle_name(true);">'])
    ["'sha256-oGUA7LtyEKDvlMppna1zdKjVAxPLpRV7YpX8dvx6PJo='"]
    """
    found = set()
    for source in sources:
        for m in _HANDLER.finditer(source):
            code = m.group(1) if m.group(1) is not None else m.group(2)
            found.add("'sha256-" + base64.b64encode(hashlib.sha256(code.encode()).digest()).decode() + "'")
    return sorted(found)


def content_security_policy(nonce: str, *, handler_hashes: Iterable[str] = (),
                            frame_ancestors: str = "'self'", files: bool = False) -> str:
    """The Content-Security-Policy of a page built from a student's work.

    Scripts run only with the page's ``nonce`` (the templates' own); inline
    event handlers only if their hash is listed (the templates' own, with
    ``'unsafe-hashes'``); no plug-ins, no ``<base>``, forms only to the same
    server, pictures only from the server and ``data:``.  ``files=True`` adds
    ``sandbox`` (a file a student submitted, served as it is: no script, no
    same-origin access at all).

    >>> content_security_policy("abc").split("; ")[:2]
    ["default-src 'self'", "script-src 'nonce-abc'"]
    """
    hashes = list(handler_hashes)
    script = f"script-src 'nonce-{nonce}'" + (" 'unsafe-hashes' " + " ".join(hashes) if hashes else "")
    parts = ["default-src 'self'", script, "style-src 'self' 'unsafe-inline'", "img-src 'self' data:",
             "font-src 'self' data:", "connect-src 'self'", "object-src 'none'", "base-uri 'none'",
             "form-action 'self'", f"frame-ancestors {frame_ancestors}"]
    if files:
        parts.append("sandbox")
    return "; ".join(parts)


class SafeHTMLExporter(HTMLExporter):
    """nbconvert's HTML exporter for notebooks a student wrote (see the module notes).

    Configure it as ``c.GenerateFeedback.exporter_class`` (feedback pages,
    with a ``<meta>`` Content-Security-Policy and a fresh nonce per page); the
    formgrader's copy (:mod:`course.formgrader_guard`) leaves the nonce
    placeholder for its response header.
    """

    meta_csp = Bool(True, help="Put the Content-Security-Policy in the page (static pages); False "
                               "when the server sends it as a header.").tag(config=True)
    leave_url = Unicode("", help="The warning page every link of the student's goes through (the "
                                 "formgrader's; empty: links stay as they are).").tag(config=True)
    nonce_placeholder = Unicode("", help="The text standing for the nonce in the rendered page "
                                         "(default: a new random one).").tag(config=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if not self.nonce_placeholder:
            self.nonce_placeholder = secrets.token_urlsafe(16)
        self.sanitize_html = True          # nbconvert's own switch: no JS or widget outputs
        self._links = None

    def _create_environment(self):
        env = super()._create_environment()
        env.loader = ScriptNonceLoader(env.loader, self.nonce_placeholder)
        env.filters["clean_html"] = clean_html
        return env

    def default_filters(self):
        for name, value in super().default_filters():
            yield name, (clean_html if name == "clean_html" else value)
        yield ("markdown2html", self.markdown2html)

    @pass_context
    def markdown2html(self, context, source):
        """Markdown to HTML, then cleaned (nbgrader's formgrade template does not clean it)."""
        return clean_html(HTMLExporter.markdown2html(self, context, source), self._links)

    def _preprocess(self, nb, resources):
        nb, resources = super()._preprocess(nb, resources)
        self._links = None
        if self.leave_url:
            page = ""
            if resources.get("submission_id") is not None:       # the formgrader's manual-grading page
                page = f"{resources.get('base_url', '')}/formgrader/submissions/{resources['submission_id']}/"
            self._links = leave_link(self.leave_url, page)
        nb = sanitise_notebook(nb, self._links)
        for key in ("student", "first_name", "last_name", "notebook_path"):
            if isinstance(resources.get(key), str):
                resources[key] = _plain(resources[key], 300)
        nbg = resources.get("nbgrader")
        if isinstance(nbg, dict) and isinstance(nbg.get("student"), str):
            nbg["student"] = _plain(nbg["student"], 300)
        return nb, resources

    def handler_hashes(self) -> list[str]:
        """Hashes of the inline event handlers in this exporter's templates."""
        env = self.environment
        sources = []
        for name in env.list_templates(filter_func=lambda n: n.endswith((".j2", ".tpl", ".html"))):
            try:
                sources.append(env.loader.get_source(env, name)[0])
            except Exception:  # noqa: BLE001 - a template that cannot be read has no handlers
                continue
        return inline_handler_hashes(sources)

    def from_notebook_node(self, nb, resources=None, **kw):
        output, resources = super().from_notebook_node(nb, resources, **kw)
        output = re.sub(r"<head([^>]*)>", lambda m: f"<head{m.group(1)}>\n{BOUNDED_PICTURES}", output, count=1,
                        flags=re.IGNORECASE)
        if self.meta_csp:
            nonce = secrets.token_urlsafe(16)
            output = output.replace(self.nonce_placeholder, nonce)
            policy = content_security_policy(nonce, frame_ancestors="'self'").replace(
                "; frame-ancestors 'self'", "")              # not allowed in <meta>
            meta = f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
            output = re.sub(r"<head([^>]*)>", lambda m: f"<head{m.group(1)}>\n{meta}", output, count=1,
                            flags=re.IGNORECASE)
        return output, resources
