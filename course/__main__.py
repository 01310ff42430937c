"""``python -m course``: see :mod:`course.cli`."""

import sys

from .cli import main

sys.exit(main())
