"""nbgrader configuration (completed by the exercises issue)."""
c = get_config()  # noqa: F821
c.CourseDirectory.root = "."
c.CourseDirectory.source_directory = "solutions"
c.CourseDirectory.release_directory = "exercises"
