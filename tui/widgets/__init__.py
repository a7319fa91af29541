"""The panes of the TUI: cluster, trace list, waterfall, detail, log, and the dialogs."""
