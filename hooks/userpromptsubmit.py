"""Being built: see the issue tracker. Answers nothing for now."""

from __future__ import annotations

from typing import Any

from ctxres.hooks.context import HookContext


def handle(ctx: HookContext) -> dict[str, Any]:
    return {}
