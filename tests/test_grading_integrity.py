"""The tripwire around autograding (:mod:`course.grading.autograde.integrity`): a file of the grader
that changes while a class is graded stops the run, however it was changed."""

from __future__ import annotations

import os
import time

import pytest

from course.grading.autograde import integrity
from course.grading.autograde.integrity import IntegrityError, IntegrityWatch


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    (root / "solutions" / "a1").mkdir(parents=True)
    (root / "nbgrader_config.py").write_text("c = get_config()\n")
    (root / "solutions" / "a1" / "a1.ipynb").write_text("{}\n")
    return root


def _age(path, seconds=60):
    """Make ``path`` look old (its change time cannot be set back; the watch is told the racy
    window is short instead)."""
    old = time.time_ns() - seconds * 10**9
    os.utime(path, ns=(old, old))


def test_an_unchanged_course_passes_every_check(course):
    watch = IntegrityWatch(course)
    for _ in range(3):
        watch.check("ada/a1")


@pytest.mark.parametrize("how", ["append", "same size, same time", "delete", "create"])
def test_a_changed_file_stops_grading(course, monkeypatch, how):
    monkeypatch.setattr(integrity, "RACY_NS", 10_000_000)          # 10 ms
    config = course / "nbgrader_config.py"
    _age(config)
    time.sleep(0.05)
    watch = IntegrityWatch(course)
    watch.check("ada/a1")                 # hashed, then trusted by its stat
    if how == "append":
        config.write_text(config.read_text() + "c.Exchange.root = '/tmp'\n")
    elif how == "same size, same time":
        # the attack on a stat cache: the same number of bytes, the old modification time
        st = config.stat()
        config.write_text("c = get_config()\n".replace("c = ", "d = "))
        assert config.stat().st_size == st.st_size
        os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))
    elif how == "delete":
        config.unlink()
    else:
        (course / "solutions" / "a1" / "planted.py").write_text("x = 1\n")
    with pytest.raises(IntegrityError, match="files of the grader changed"):
        watch.check("ada/a1")


def test_a_file_changed_just_before_it_was_hashed_is_hashed_again(course):
    """A write in the same clock tick as the hash could keep every field of stat: such a file is
    not trusted by its stat (git's "racy" files)."""
    config = course / "nbgrader_config.py"
    config.write_text("c = get_config()\n")
    watch = IntegrityWatch(course)
    assert str(config) not in watch._hashed        # too recent to trust its stat
    st = config.stat()
    config.write_text("d = get_config()\n")
    os.utime(config, ns=(st.st_atime_ns, st.st_mtime_ns))
    with pytest.raises(IntegrityError):
        watch.check("ada/a1")
