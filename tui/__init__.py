"""The live terminal UI (`kafka-edu tui`): a Textual app over a run directory's span files."""
