"""`python -m montverif.regress.cli` is the `montverif` command."""

import sys

from montverif.regress.cli import main

sys.exit(main())
