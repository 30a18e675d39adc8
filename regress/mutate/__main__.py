import sys

from regress.mutate.cli import main

sys.exit(main())
