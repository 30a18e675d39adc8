"""`python -m regress list|run ...`: the regression list runner (see regress/run.py)."""

import sys

from regress.run import main

sys.exit(main())
