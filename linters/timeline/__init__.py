"""``ctxres timeline``: a session as a picture.

Context fill, compactions, checkpoints, the resumption section's updates and the workflow's phases on one
time axis, read from Claude Code's transcripts, the checkpoint folder and the workflow file's history, and
drawn for the terminal, as a self-contained HTML page, or given as JSON.
"""
