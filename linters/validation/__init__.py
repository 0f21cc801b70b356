"""A file against its JSON Schema: every error, explained in a person's words and located at a line and column."""
