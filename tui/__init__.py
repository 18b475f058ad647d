"""The Textual terminal UI of `netpol tui`.

Imports the core (`netpol`), never the other way round; imported only by `netpol.commands.tui`, so CI
commands never load Textual. The app receives a loader returning an Analysis and never reads files itself.
"""
