"""How many tokens a text costs, at four characters per token (docs/formats.md, "The two prompt templates");
no imports: the hooks use it."""

from __future__ import annotations


def estimate_tokens(text: str) -> int:
    """Tokens at four characters per token: characters / 4, rounded up."""
    return (len(text) + 3) // 4
