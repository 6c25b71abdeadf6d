"""One function per subcommand: explicit keyword arguments in, an exit code out."""
