"""``python -m viz_app``: the same command as the installed ``disan`` (``viz_app/cli.py``)."""

import sys

from viz_app.cli import main

sys.exit(main())
