"""Rewriting a v1.0 resumption section as v2.0, and the marks a migration leaves in the file."""
