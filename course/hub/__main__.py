"""``python -m course.hub``: see :mod:`course.hub`."""

import sys

from . import main

sys.exit(main())
