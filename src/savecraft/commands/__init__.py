"""Command-line subcommands, one module per group (see :data:`savecraft.cli.COMMANDS`)."""
