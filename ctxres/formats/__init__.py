"""Reading the files: bytes to text, YAML and JSON with every node's line and column, edits that keep comments."""
