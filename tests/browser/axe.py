"""axe-core for the browser tests: one pinned copy, injected into a Playwright page.

Every accessibility test of the course (explorers, static figures, the formgrader pages the
course serves, the documentation site, drills) runs the same engine with the same rules, so a
result means the same thing everywhere:

* :func:`axe_source` returns the text of ``axe.min.js`` from the npm package ``axe-core`` at
  :data:`AXE_VERSION`, fetched once with ``npm pack`` into a cache folder
  (``$COURSE_TEST_CACHE``, default ``~/.cache/course-tests``) and checked against
  :data:`AXE_INTEGRITY`, the registry's own sha512.  Without npm (and no cached copy) the caller
  is told why, so a test can skip on a student's machine and fail in CI.
* :func:`run_axe` injects it into a page (or frame) and runs the WCAG 2.1 A and AA rules
  (:data:`WCAG_TAGS`) on the elements a CSS selector names, returning the violations as plain
  dicts; :func:`describe_violations` turns them into lines a failure message can show.

Examples
--------
A test takes the ``axe`` fixture (tests/browser/conftest.py: skips without axe-core, fails in
CI) and checks the course's outputs in a notebook::

    def test_outputs_are_accessible(lab, axe):
        violations = axe.run_axe(lab.page, include=[".jp-OutputArea-output"])
        assert not violations, axe.describe_violations(violations)
"""
from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any, Iterable, Sequence

#: The axe-core release every test uses (npm package ``axe-core``).
AXE_VERSION = "4.11.0"
#: ``npm view axe-core@AXE_VERSION dist.integrity``: the tarball's sha512, checked after download.
AXE_INTEGRITY = ("sha512-ilYanEU8vxxBexpJd8cWM4ElSQq4QctCLKih0TSfjIfCQTeyH/6zVrmIJfLPrKTKJRbiG+cfnZbQIjAlJmF1jQ==")
#: The rule sets run: WCAG 2.0 and 2.1, levels A and AA.
WCAG_TAGS: tuple[str, ...] = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")


class AxeUnavailable(RuntimeError):
    """axe-core could not be found or fetched (no npm, no network, no cached copy)."""


def _cache_dir() -> Path:
    root = os.environ.get("COURSE_TEST_CACHE") or os.path.join(Path.home(), ".cache", "course-tests")
    return Path(root) / f"axe-core-{AXE_VERSION}"


def _check_integrity(tarball: Path) -> None:
    if not AXE_INTEGRITY:
        return
    algorithm, _, expected = AXE_INTEGRITY.partition("-")
    digest = base64.b64encode(hashlib.new(algorithm, tarball.read_bytes()).digest()).decode()
    if digest != expected:
        raise AxeUnavailable(f"{tarball.name}: {algorithm} {digest} is not the registry's {expected}")


def axe_source() -> str:
    """Return the text of ``axe.min.js`` (axe-core :data:`AXE_VERSION`), fetching it once.

    Raises
    ------
    AxeUnavailable
        When there is no cached copy and ``npm pack`` cannot fetch one.
    """
    cached = _cache_dir() / "axe.min.js"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    npm = shutil.which("npm")
    if npm is None:
        raise AxeUnavailable("axe-core needs npm to be fetched once (no cached copy in "
                             f"{cached.parent}); install Node.js/npm or set COURSE_TEST_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run([npm, "pack", "--silent", f"axe-core@{AXE_VERSION}"], cwd=tmp,
                              capture_output=True, text=True, timeout=300)
        tarballs = list(Path(tmp).glob("axe-core-*.tgz"))
        if done.returncode != 0 or not tarballs:
            raise AxeUnavailable(f"npm pack axe-core@{AXE_VERSION} failed: "
                                 f"{(done.stderr or done.stdout).strip()[-400:]}")
        _check_integrity(tarballs[0])
        with tarfile.open(tarballs[0]) as archive:
            member = archive.extractfile("package/axe.min.js")
            if member is None:
                raise AxeUnavailable("the axe-core package has no axe.min.js")
            text = member.read().decode("utf-8")
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_suffix(".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(cached)
    return text


def run_axe(page: Any, *, include: Sequence[str] = ("body",), exclude: Iterable[str] = (),
            tags: Sequence[str] = WCAG_TAGS, rules: dict[str, Any] | None = None) -> list[dict]:
    """Run axe-core's WCAG rules on part of a Playwright page or frame; return the violations.

    Parameters
    ----------
    page : playwright Page or Frame
        Where to run; axe is injected if the page does not have it yet.
    include : sequence of str
        CSS selectors of the elements to check (their subtrees). Elements that do not exist are
        ignored by axe; check the count yourself if it matters.
    exclude : iterable of str
        CSS selectors left out.
    tags : sequence of str
        axe rule tags to run (default: WCAG 2.0/2.1 A and AA).
    rules : dict, optional
        Per-rule options, e.g. ``{"color-contrast": {"enabled": False}}``.

    Returns
    -------
    list of dict
        axe's ``violations``: each with ``id``, ``impact``, ``help``, ``helpUrl`` and ``nodes``
        (each node with ``target``, ``html`` and ``failureSummary``).
    """
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source())
    context = {"include": [[s] for s in include]}
    excluded = [[s] for s in exclude]
    if excluded:
        context["exclude"] = excluded
    options: dict[str, Any] = {"runOnly": {"type": "tag", "values": list(tags)},
                               "resultTypes": ["violations"]}
    if rules:
        options["rules"] = rules
    result = page.evaluate("([context, options]) => window.axe.run(context, options)",
                           [context, options])
    return list(result["violations"])


def describe_violations(violations: Sequence[dict], *, limit: int = 5) -> str:
    """One line per violated rule, then up to ``limit`` offending nodes with axe's summary."""
    lines = []
    for violation in violations:
        nodes = violation.get("nodes", [])
        lines.append(f"{violation['id']} ({violation.get('impact')}): {violation.get('help')} "
                     f"-- {len(nodes)} node(s)")
        for node in nodes[:limit]:
            summary = " ".join((node.get("failureSummary") or "").split())
            lines.append(f"    {node.get('target')}: {node.get('html', '')[:160]}")
            if summary:
                lines.append(f"      {summary[:300]}")
    return "\n".join(lines)


def _rgb(colour: str) -> tuple[float, float, float]:
    """``rgb(r, g, b)`` / ``rgba(r, g, b, a)`` (as getComputedStyle gives them) or ``#rrggbb``."""
    import re

    colour = colour.strip()
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore[return-value]
    numbers = [float(n) for n in re.findall(r"[\d.]+", colour)[:3]]
    return numbers[0], numbers[1], numbers[2]


def contrast(a: str, b: str) -> float:
    """The WCAG 2.1 contrast ratio of two CSS colours (opaque; alpha is ignored).

    >>> round(contrast("#0072B2", "#ffffff"), 1)
    5.2
    """
    def luminance(colour: str) -> float:
        channels = []
        for c in _rgb(colour):
            c = c / 255
            channels.append(c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4)
        r, g, b_ = channels
        return 0.2126 * r + 0.7152 * g + 0.0722 * b_

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
