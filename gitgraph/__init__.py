"""gitgraph: a code graph of a git repository, kept current from git, sliced by change impact."""

__version__ = "0.1.0"
