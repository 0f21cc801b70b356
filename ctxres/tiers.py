"""The context fill and its tiers, in one place.

**The fill** is the figure Claude Code itself shows as ``N% context used`` (read from the client's
code, 2.1.328, and confirmed on screen), so that the monitor and the user see the same number:

- ``T``, the tokens in use: ``input_tokens + cache_creation_input_tokens + cache_read_input_tokens
  + output_tokens`` of the newest model reply (what SessionStart ``resume`` receives as
  ``context_tokens``);
- ``W``, the usable window: the context window less the client's output reserve,
  ``window - min(max output tokens, 20,000)``, so 180,000 for a 200,000-token window;
- ``N = 100 - max(0, round((W - T) / W * 100))`` (JavaScript rounding: halves go up), and the
  fill is ``N / 100``.

The client compacts when a request no longer fits the window (the API answers "prompt is too
long"); it does not compact at a fixed percentage.

**The tiers.** A fill falls in one of four bands set by three thresholds, by default 60%, 80% and
90% of the usable window (docs/formats.md, "Fill tiers"):

- ``LOW``: below 60%, nothing to do;
- ``WARNING``: from 60% to below 80%;
- ``CRITICAL``: from 80% to below 90%;
- ``COMPACTION``: 90% and above: the next large request may not fit, and the client compacts then;

and ``UNKNOWN`` when the fill is not known (for example right after a compaction, before the
next model reply reports its usage). The names and bands are those of the monitor state file
(``FillTier`` in ``schemas/monitor.py``).

Standard library only, no imports: the hooks import this on every prompt.
"""

from __future__ import annotations

# A hook loads this module: its start-up is measured (docs/performance.md, "Start-up tricks").
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import ClassVar

Thresholds = tuple[float, float, float]


class Tier(str):
    """Band of the context fill: its name, as written in the monitor state (``Tier.WARNING == "WARNING"``).

    One object per tier (compare with ``is`` or ``==``); :data:`TIERS` lists them in order. A string
    with named constants, not an ``Enum``: creating an Enum class costs every prompt's hook about
    0.1 ms (callgrind: 0.5 million instructions).
    """

    __slots__ = ()
    LOW: ClassVar[Tier]
    WARNING: ClassVar[Tier]
    CRITICAL: ClassVar[Tier]
    COMPACTION: ClassVar[Tier]
    UNKNOWN: ClassVar[Tier]

    @property
    def value(self) -> str:
        """The name (as an Enum member's ``value``)."""
        return str.__str__(self)


Tier.LOW, Tier.WARNING, Tier.CRITICAL, Tier.COMPACTION, Tier.UNKNOWN = TIERS = (
    Tier("LOW"),
    Tier("WARNING"),
    Tier("CRITICAL"),
    Tier("COMPACTION"),
    Tier("UNKNOWN"),
)
"""Every tier, from the emptiest context to an unknown fill."""


OUTPUT_RESERVE = 20_000
"""Tokens the client keeps free for the model's answer: ``min(max output tokens, 20,000)``, which is
20,000 for every current model."""

DEFAULT_THRESHOLDS: Thresholds = (0.60, 0.80, 0.90)
"""Lower bounds of WARNING, CRITICAL and COMPACTION, as fractions of the window."""

ALERT_TIERS = frozenset({Tier.WARNING, Tier.CRITICAL, Tier.COMPACTION})
"""Tiers at which the UserPromptSubmit hook tells the model how full the context is."""

ACTIONS: Mapping[Tier, str] = {
    Tier.LOW: "No action is needed; the resumption section is updated at the usual state transitions.",
    Tier.WARNING: "Update the resumption section of ORCHESTRATION.yaml now, so that it is current if compaction "
    "comes early.",
    Tier.CRITICAL: "Write a full update of the resumption section and verify every sub-section, finish the "
    "current quality-gate iteration, then write a checkpoint.",
    Tier.COMPACTION: "The client compacts once a request no longer fits: the PreCompact hook then writes a "
    "checkpoint, which `ctxres ack` merges after compaction.",
    Tier.UNKNOWN: "The fill is unknown (for example right after a compaction, until the next model reply); keep "
    "the resumption section current.",
}
"""The recommended action for each tier, one sentence each."""


def usable_window(window: int) -> int:
    """``W``: the context window less the client's output reserve (180,000 for 200,000). The reserve
    is never more than a tenth of the window, so a small configured window stays usable."""
    return window - min(OUTPUT_RESERVE, window // 10)


def percent_used(tokens: int, window: int) -> int:
    """``N``, the client's ``N% context used`` for ``tokens`` (``T``) in a ``window``-token context:
    ``100 - max(0, Math.round((W - T) / W * 100))``, computed as the client computes it (the same
    floating-point operations, and ``Math.round``'s halves up), so the figures match to the unit."""
    usable = usable_window(window)
    left = usable - tokens
    if left <= 0:
        return 100
    share = left / usable * 100
    whole = int(share)  # share > 0: int() is floor()
    return 100 - (whole + 1 if share - whole >= 0.5 else whole)


def fill_of(tokens: int, window: int) -> float:
    """The fill as a fraction (``N / 100``): what the tiers, the monitor state and checkpoints use."""
    return percent_used(tokens, window) / 100


def tier_for(fill: float | None, thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Tier:
    """The tier of ``fill`` (a fraction; None or NaN is UNKNOWN). Each threshold starts its tier."""
    if fill is None or fill != fill:
        return Tier.UNKNOWN
    warning, critical, compaction = thresholds
    if fill >= compaction:
        return Tier.COMPACTION
    if fill >= critical:
        return Tier.CRITICAL
    if fill >= warning:
        return Tier.WARNING
    return Tier.LOW


def action_for(tier: Tier) -> str:
    """The recommended action at ``tier``, one sentence."""
    return ACTIONS[tier]
