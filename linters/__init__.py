"""The linters: ``ctxres`` and its sub-commands (``ctxres.linters.cli``)."""

from ctxres.yaml_startup import defer_non_printable_pattern

defer_non_printable_pattern()
