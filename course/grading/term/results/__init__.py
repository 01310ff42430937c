"""What grading produced, for people: the report, feedback, grades, the summary, the copy audit.

* :mod:`.report` -- one record per graded submission (``report.json``), scores from the gradebook;
* :mod:`.feedback` -- a feedback page per graded notebook;
* :mod:`.grades` -- ``grades.csv``, one row per student and assignment;
* :mod:`.lms` -- the same grades as Canvas's and Moodle's gradebook imports read them, and the
  feedback pages as one zip per assignment for their upload;
* :mod:`.summary` -- the scores and every question (mean, full credit, failures by kind), in
  pictures, text and one HTML page;
* :mod:`.similarity` -- the copy audit (near-copies flagged for review, never scored), with
  :mod:`.hidden_code` (code run from strings or packed into them, unpacked without running it),
  :mod:`.copy_groups` (pairs ranked, small groups, common code) and :mod:`.copy_report` (one
  report file, one console line).

Nothing here runs a student's code.  The report, the grades and the summary
see verdicts; feedback and the copy audit also read what the student wrote
(graded notebooks, answer cells) as data.
"""
