"""Built-in games of the tablebase package."""
