"""`python -m ratchet`: the same command line as the `ratchet` entry point."""

from ratchet.cli import main

main()
