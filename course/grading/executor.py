"""An nbgrader execute preprocessor that survives what students' notebooks do to kernels.

nbgrader's :class:`~nbgrader.preprocessors.Execute` runs a submission cell by
cell and records errors, but three things still cost a student every point
earned so far, or stop the grading of the notebook:

* a cell that runs forever: nbgrader interrupts it, but code that catches
  ``KeyboardInterrupt`` (a bare ``except:``) keeps the kernel busy, and every
  later cell times out too;
* a cell that kills the kernel (a crash, ``os._exit``, running out of memory):
  nbclient raises ``DeadKernelError`` and the notebook is not graded at all;
* a cell that prints gigabytes: every byte is kept in memory and written to
  the graded notebook and the feedback.

:class:`RobustExecute` handles all three.  When a cell times out or kills
the kernel, it records an error in that cell (so a test cell there scores 0),
starts a fresh kernel, silently re-runs the earlier cells that define things
(every code cell except the autograder tests and the cells that failed this
way), and goes on with the next cell.  A cell's output beyond
:attr:`RobustExecute.max_output_chars` characters is dropped, with a note.

It is configured in ``nbgrader_config.py`` as the execute step of
``Autograde.autograde_preprocessors``.
"""

from __future__ import annotations

import copy
from typing import Any

from nbclient.exceptions import CellTimeoutError, DeadKernelError
from nbformat.notebooknode import NotebookNode
from traitlets import Bool, Integer

from nbgrader.preprocessors import Execute

__all__ = ["RobustExecute"]


def _output_size(output: NotebookNode) -> int:
    kind = output.get("output_type")
    if kind == "stream":
        return len(output.get("text", ""))
    if kind == "error":
        return sum(len(line) for line in output.get("traceback", []))
    data = output.get("data", {})
    return sum(len(v) if isinstance(v, str) else len(str(v)) for v in data.values())


def _is_test_cell(cell: NotebookNode) -> bool:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return bool(meta.get("grade")) and not meta.get("solution")


class RobustExecute(Execute):
    """nbgrader's Execute, plus kernel restarts after timeouts and crashes, and an output cap."""

    interrupt_on_timeout = Bool(
        False, help="Restart the kernel instead of interrupting it (see the module docstring)."
    ).tag(config=True)

    max_output_chars = Integer(
        200_000, help="Characters of output kept per cell; the rest is dropped with a note."
    ).tag(config=True)

    replay = Bool(
        True, help="After a restart, re-run the earlier non-test cells so later cells find their names."
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self._failed_cells: set[int] = set()
        self._chars = 0
        self._truncated = False
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        self._chars = 0
        self._truncated = False
        try:
            return super().preprocess_cell(cell, resources, index)
        except CellTimeoutError:
            name = "CellTimeoutError"
            text = (f"This cell ran longer than {self.timeout} seconds and was stopped by the "
                    "autograder (an endless loop?). The kernel was restarted; the cells above were "
                    "run again and grading went on with the next cell.")
        except DeadKernelError:
            name = "DeadKernelError"
            text = ("The Python kernel died while running this cell (a crash, os._exit, or running "
                    "out of memory; very deep recursion can do it). The kernel was restarted; the "
                    "cells above were run again and grading went on with the next cell.")
        self.log.warning("cell %d: %s; restarting the kernel", index, name)
        cell.outputs.append(NotebookNode(output_type="error", ename=name, evalue=text,
                                         traceback=[f"{name}: {text}"]))
        self._failed_cells.add(index)
        self._restart(index)
        return cell, self.resources

    # -- restarting ------------------------------------------------------------------
    def _fresh_kernel(self) -> None:
        self.shutdown_kernel = "immediate"
        try:
            self._cleanup_kernel()
        except Exception as exc:  # noqa: BLE001 - the old kernel may be half dead
            self.log.warning("while stopping the old kernel: %s", exc)
        self.kc = None
        self.km = self.create_kernel_manager()
        self.start_new_kernel()
        self.start_new_kernel_client()

    def _restart(self, index: int) -> None:
        self._fresh_kernel()
        if not self.replay:
            return
        for i, original in enumerate(self.nb.cells[:index]):
            if (i in self._failed_cells or original.cell_type != "code"
                    or not original.source.strip() or _is_test_cell(original)):
                continue
            scratch = copy.deepcopy(original)
            try:
                self.execute_cell(scratch, i, store_history=False)
            except (CellTimeoutError, DeadKernelError):
                self.log.warning("cell %d failed again while replaying; skipping it", i)
                self._failed_cells.add(i)
                self._fresh_kernel()
            finally:
                self.nb.cells[i] = original

    # -- capping output --------------------------------------------------------------
    def output(self, outs: list, msg: dict, display_id: Any, cell_index: int):
        out = super().output(outs, msg, display_id, cell_index)
        if out is None:
            return out
        kind = out.get("output_type")
        if kind in ("error", "execute_result"):
            return out            # these decide the grade: always kept
        self._chars += _output_size(out)
        if self._chars <= self.max_output_chars:
            return out
        if outs and outs[-1] is out:
            outs.pop()
        if kind == "stream" and out.get("name") == "stderr" and not any(
                o.get("output_type") == "stream" and o.get("name") == "stderr" for o in outs):
            # nbgrader scores a test cell that wrote to stderr 0: keep a trace of it
            outs.append(NotebookNode(output_type="stream", name="stderr",
                                     text="[standard error output truncated by the autograder]\n"))
        if not self._truncated:
            self._truncated = True
            outs.append(NotebookNode(
                output_type="stream", name="stdout",
                text=(f"\n... output truncated by the autograder: this cell printed more than "
                      f"{self.max_output_chars} characters ...\n")))
        return out
