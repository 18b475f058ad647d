"""`python -m netpol …`: the same as the `netpol` command (when the scripts folder is not on PATH)."""

from netpol.cli import run

run()
