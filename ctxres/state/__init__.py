"""The workflow-state model: a workflow file's phases and resumption section, its times, its checkpoints."""
