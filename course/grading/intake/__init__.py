"""What a submission brings in, read as **hostile input**: never run, never trusted.

* :mod:`.lms_zip` -- a zip of submissions from a learning-management system;
* :mod:`.repair` -- a submitted notebook put back into a shape nbgrader can grade.

Every byte here (file and folder names, timestamps, zip entries, notebook JSON)
comes from a student.  Code in this package parses it as data; the student's
code runs only in :mod:`course.grading.autograde`, inside :mod:`course.sandbox`.
"""
