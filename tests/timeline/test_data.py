"""The timeline as data: JSON valid against the exported schema for every kind of event, times in UTC with
``Z``, the schema's fields the model's, and the one-line summary in its several shapes."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from typing import Any, get_args

import pytest
from jsonschema import Draft202012Validator

from ctxres.linters.timeline.data import STYLES, iso, kind_of, legend, minutes_text, summary, to_data, tokens_text
from ctxres.linters.timeline.model import EVENT_KINDS, Compaction, StaleStretch, Timeline, Turn
from ctxres.schemas import export
from ctxres.schemas.timeline import EventData, TimelineData, TurnData

from .sample import ALL_KINDS, WORKFLOW, at, busy, empty, kinds_in

SCHEMA = json.loads((export.schema_dir() / "timeline.schema.json").read_text("utf-8"))


def _errors(data: Any) -> list[str]:
    return [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(SCHEMA).iter_errors(data)]


def test_the_sample_holds_every_kind_of_event() -> None:
    assert kinds_in(busy()) == ALL_KINDS


@pytest.mark.parametrize("timeline", [busy(), empty()], ids=["busy", "empty"])
def test_to_data_is_json_and_valid_against_the_exported_schema(timeline: Timeline) -> None:
    data = to_data(timeline)
    assert json.loads(json.dumps(data)) == data
    assert _errors(data) == []


def test_every_event_carries_its_kind_and_times_are_utc_with_z() -> None:
    data = to_data(busy())
    assert {event["kind"] for event in data["events"]} == ALL_KINDS
    assert all(next(iter(event)) == "kind" for event in data["events"])
    assert data["turns"][0]["time"] == "2026-03-02T09:01:00Z"
    checkpoint = next(e for e in data["events"] if e["kind"] == "checkpoint")
    assert checkpoint["merged_at"] == "2026-03-02T09:23:00Z"
    assert next(e for e in data["events"] if e["kind"] == "stale")["moves"] == ["phase", "tasks"]
    assert data["workflow"] == WORKFLOW and data["summary"] == summary(busy())


def test_times_in_another_zone_or_naive_are_written_in_utc() -> None:
    paris = dt.timezone(dt.timedelta(hours=1))
    assert iso(dt.datetime(2026, 3, 2, 10, 0, tzinfo=paris)) == "2026-03-02T09:00:00Z"
    assert iso(dt.datetime(2026, 3, 2, 9, 0, 0, 250_000)) == "2026-03-02T09:00:00.250Z"
    assert iso(None) is None


def test_the_schema_rejects_an_unknown_kind_and_a_missing_field() -> None:
    data = to_data(busy())
    data["events"][0]["kind"] = "weather"
    assert _errors(data)
    data = to_data(busy())
    del data["events"][1]["turn"]
    assert _errors(data)


def _schema_fields(model: Any) -> set[str]:
    return set(model.model_fields)


def test_the_schema_models_have_the_fields_of_the_data_model() -> None:
    union = get_args(get_args(EventData)[0])
    by_kind = {get_args(model.model_fields["kind"].annotation)[0]: model for model in union}
    assert list(by_kind) == [kind_of(cls) for cls in EVENT_KINDS]
    for cls in EVENT_KINDS:
        assert _schema_fields(by_kind[kind_of(cls)]) == {f.name for f in dataclasses.fields(cls)}, cls.__name__
    assert _schema_fields(TurnData) == {f.name for f in dataclasses.fields(Turn)}
    assert _schema_fields(TimelineData) - {"schema_version", "summary"} == {
        f.name for f in dataclasses.fields(Timeline)
    }


def test_the_legend_is_made_from_the_one_table_of_kinds() -> None:
    assert [entry.kind for entry in legend()] == [kind_of(cls) for cls in EVENT_KINDS]
    assert set(STYLES) == {kind_of(cls) for cls in EVENT_KINDS}
    assert len({style.glyph for style in STYLES.values()}) == len(STYLES)


def test_the_summary_of_the_busy_timeline() -> None:
    assert summary(busy()) == (
        "2 compactions (164k→3.6k, 164k→3.2k), 2 checkpoints, 1 unmerged, "
        "stale 12 min after turn 12 and 19 min after turn 41 (still open), "
        "1 resumption named another phase than the file, 4 entries skipped"
    )


def test_the_summary_when_nothing_happened() -> None:
    assert summary(empty()) == "no turns, no compactions, no checkpoints, never stale"


def test_the_summary_with_unknown_tokens_and_an_unknown_length() -> None:
    timeline = Timeline(
        ["s"],
        [Turn(1, at(1), "s", 1000, 200_000, 0.01, "LOW")],
        [
            Compaction(1, at(2), "s", "unknown", None, 2500),
            StaleStretch(1, None, WORKFLOW, ("tasks",), 3, None, None),
        ],
    )
    assert summary(timeline) == ("1 compaction (?→2.5k), no checkpoints, stale after turn 1 (length unknown)")


@pytest.mark.parametrize(
    ("tokens", "text"),
    [(None, "?"), (950, "950"), (3_600, "3.6k"), (3_000, "3k"), (164_321, "164k"), (1_250_000, "1.2M")],
)
def test_tokens_text(tokens: int | None, text: str) -> None:
    assert tokens_text(tokens) == text


@pytest.mark.parametrize(("minutes", "text"), [(0.4, "<1 min"), (12.0, "12 min"), (125.0, "2 h 5 min"), (120.0, "2 h")])
def test_minutes_text(minutes: float, text: str) -> None:
    assert minutes_text(minutes) == text
