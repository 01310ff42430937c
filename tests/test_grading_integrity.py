"""The tripwire around autograding (:mod:`course.grading.job.integrity`): a file of the grader
that changes while a class is graded stops the run, however it was changed."""

from __future__ import annotations

import os
import time

import pytest

from course.grading.job import integrity
from course.grading.job.integrity import IntegrityError, IntegrityWatch


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


def _pathlib_files(watch):
    """The watched files as the watch listed them before it walked with os.scandir."""
    files = []
    for path in watch.paths:
        if path.is_dir():
            files += sorted(p for p in path.rglob("*")
                            if p.is_file() and "__pycache__" not in p.parts
                            and ".ipynb_checkpoints" not in p.parts)
        else:
            files.append(path)
    for d in watch.site:
        files += sorted(p for p in d.iterdir() if p.suffix == ".pth"
                        or p.stem in ("sitecustomize", "usercustomize"))
    return files


def test_the_watched_files_are_those_pathlib_lists(course, tmp_path):
    """The walk made with os.scandir lists what ``rglob`` listed: links to files are watched,
    linked folders not entered, caches left out; the site folders' start-up files found."""
    sol = course / "solutions" / "a1"
    (sol / "deep" / "deeper").mkdir(parents=True)
    (sol / "deep" / "deeper" / "x.py").write_text("x = 1\n")
    (sol / "__pycache__").mkdir()
    (sol / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (sol / ".ipynb_checkpoints").mkdir()
    (sol / ".ipynb_checkpoints" / "a1-checkpoint.ipynb").write_text("{}\n")
    (sol / "B.txt").write_text("b")
    (sol / "a.txt").write_text("a")
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sub" / "y.py").write_text("y = 1\n")
    (outside / "f.py").write_text("f = 1\n")
    (sol / "linked-folder").symlink_to(outside / "sub", target_is_directory=True)
    (sol / "linked-file.py").symlink_to(outside / "f.py")
    (sol / "broken").symlink_to(tmp_path / "nowhere")
    site = tmp_path / "site-packages"
    site.mkdir()
    for name in ("a.pth", ".pth", "x.", "sitecustomize.py", "usercustomize", "sitecustomize.",
                 "other.py", "b.pth.txt"):
        (site / name).write_text("")
    watch = IntegrityWatch(course, extra=(outside,))
    watch.site = [site]
    listed = watch._files()
    assert listed == _pathlib_files(watch)
    assert sol / "linked-file.py" in listed and sol / "deep" / "deeper" / "x.py" in listed
    assert not any("__pycache__" in p.parts or "linked-folder" in p.parts for p in listed)
