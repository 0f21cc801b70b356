"""Rules of this family are being built (see the issue tracker)."""

from __future__ import annotations
