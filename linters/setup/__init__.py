"""What ``ctxres init`` sets up and ``ctxres doctor`` checks: the hook commands, pre-commit, git and the statusline."""
