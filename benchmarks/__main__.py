"""``python -m benchmarks [all|trace|predict|train|app] [options]`` (the same as ``python -m viz_app bench``)."""

import sys

from .cli import main

sys.exit(main())
