"""`python -m netpol …`: the same as the `netpol` command (when the scripts folder is not on PATH)."""

import sys

from netpol.cli import main

sys.exit(main())
