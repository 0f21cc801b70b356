"""End-to-end sessions in the real Claude Code client (see README.md here); not part of the ctxres package."""
