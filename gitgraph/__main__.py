"""`python -m gitgraph`."""

from .cli import run

run()
