"""The checks the exercises' test cells call: run in the student's kernel (Validate) and in the grader.

See :mod:`course.grading` for the parts of the grading package.
"""
