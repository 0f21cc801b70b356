"""Fill tiers of the context monitor (ctxres.tiers)."""

from __future__ import annotations

import json

import pytest

from ctxres.tiers import (
    ACTIONS,
    ALERT_TIERS,
    DEFAULT_THRESHOLDS,
    TIERS,
    Tier,
    action_for,
    tier_for,
)


@pytest.mark.parametrize(
    ("fill", "tier"),
    [
        (0.0, Tier.LOW),
        (0.5999, Tier.LOW),
        (0.60, Tier.WARNING),
        (120_000 / 200_000, Tier.WARNING),  # exactly 60% as the transcript reader computes it
        (0.7999, Tier.WARNING),
        (0.80, Tier.CRITICAL),
        (0.8999, Tier.CRITICAL),
        (0.90, Tier.COMPACTION),
        (1.0, Tier.COMPACTION),
        (None, Tier.UNKNOWN),
        (float("nan"), Tier.UNKNOWN),
    ],
)
def test_default_tier_boundaries(fill: float | None, tier: Tier) -> None:
    assert tier_for(fill) is tier


def test_default_thresholds_are_60_80_90() -> None:
    assert DEFAULT_THRESHOLDS == (0.60, 0.80, 0.90)


def test_custom_thresholds_move_the_boundaries() -> None:
    thresholds = (0.5, 0.7, 1.0)
    assert [tier_for(f, thresholds) for f in (0.49, 0.5, 0.69, 0.7, 0.99, 1.0)] == [
        Tier.LOW,
        Tier.WARNING,
        Tier.WARNING,
        Tier.CRITICAL,
        Tier.CRITICAL,
        Tier.COMPACTION,
    ]


def test_tier_values_match_the_monitor_state_schema() -> None:
    from ctxres.schemas.monitor import FillTier

    assert [tier.value for tier in TIERS] == [tier.value for tier in FillTier]


def test_tiers_serialise_as_their_names() -> None:
    assert Tier.CRITICAL == "CRITICAL"
    assert Tier.WARNING.value == "WARNING" and str(Tier.WARNING) == "WARNING"
    assert f"{Tier.COMPACTION}" == "COMPACTION"
    assert json.dumps({"tier": Tier.LOW}) == '{"tier": "LOW"}'
    assert all(isinstance(tier, Tier) for tier in TIERS) and len(set(TIERS)) == 5


def test_alerts_start_at_warning() -> None:
    assert {tier for tier in TIERS if tier in ALERT_TIERS} == {Tier.WARNING, Tier.CRITICAL, Tier.COMPACTION}


def test_every_tier_has_one_short_sentence() -> None:
    assert set(ACTIONS) == set(TIERS)
    for tier in TIERS:
        action = action_for(tier)
        assert action.endswith(".")
        assert action.count(". ") == 0, action  # one sentence
        assert len(action) <= 160, action


def test_actions_say_what_to_do() -> None:
    assert "update the resumption section" in action_for(Tier.WARNING).lower()
    critical = action_for(Tier.CRITICAL).lower()
    assert "full update of the resumption section" in critical
    assert "verify every sub-section" in critical
    assert "finish the current quality-gate iteration" in critical
    assert "checkpoint" in critical
    compaction = action_for(Tier.COMPACTION)
    assert "compacts once a request no longer fits" in compaction  # what the client does, not "imminent"
    assert "PreCompact hook then writes a checkpoint" in compaction
    assert "`ctxres ack`" in compaction
