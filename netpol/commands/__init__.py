"""CLI subcommands: each module offers `add_arguments(parser)` and `run(args, ctx) -> int`."""
