"""The one user-facing error type; cli.py maps it to exit 1, crashes to 3, ^C to 130."""

from __future__ import annotations


class GitGraphError(Exception):
    """A problem the user can fix: printed as one line `gitgraph: error: ...`, exit code 1."""
