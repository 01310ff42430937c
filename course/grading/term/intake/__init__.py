"""What a submission brings in, read as **hostile input**: never run, never trusted.

* :mod:`.student_ids` -- the one pattern every student id is checked against;
* :mod:`.roster` -- ``roster.csv``, who the students are (and their LMS names);
* :mod:`.lms_zip` -- a zip of submissions from a learning-management system;
* :mod:`.exchange` -- nbgrader's exchange on a shared machine, collected safely;
* :mod:`.submissions` -- the ``submitted/<id>/`` folders autograde, feedback and grades read;
* :mod:`.repair` -- a submitted notebook put back into a shape nbgrader can grade.

Every byte here (file and folder names, timestamps, zip entries, notebook JSON)
comes from a student.  Code in this package parses it as data; the student's
code runs only in :mod:`course.grading.job.autograde`, inside :mod:`course.sandbox`.
"""
