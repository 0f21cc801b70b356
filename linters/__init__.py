"""The linters: ``ctxres`` and its sub-commands (``ctxres.linters.cli``)."""

from ctxres.formats.yaml_startup import defer_non_printable_pattern

defer_non_printable_pattern()
