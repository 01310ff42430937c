"""What grading produced, for people: the report, feedback, grades, the summary, the copy audit.

* :mod:`.report` -- one record per graded submission (``report.json``), scores from the gradebook;
* :mod:`.feedback` -- a feedback page per graded notebook;
* :mod:`.grades` -- ``grades.csv``, one row per student and assignment;
* :mod:`.summary` -- score histograms and the tests failed most;
* :mod:`.similarity` -- the copy audit (near-copies flagged for review, never scored), with
  :mod:`.hidden_code` (code run from strings or packed into them, unpacked without running it)
  and :mod:`.copy_report` (groups of students, one report file, one console line).

Nothing here runs a student's code.  The report, the grades and the summary
see verdicts; feedback and the copy audit also read what the student wrote
(graded notebooks, answer cells) as data.
"""
