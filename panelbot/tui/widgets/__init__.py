"""The main screen's building blocks, one module per pane."""
