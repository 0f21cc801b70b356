"""Template 1 and Template 2 reproduce their populated examples (fixtures/templates/), within budget
(docs/formats.md, "The two prompt templates")."""

from __future__ import annotations

import copy
import difflib
import json

import pytest
import yaml

from ctxres.prompts import (
    TEMPLATE1_BUDGET,
    TEMPLATE2_BUDGET,
    TEMPLATE2_CEILING,
    estimate_tokens,
    render_generic_alert,
    render_template1,
    render_template2,
)

from ..conftest import FIXTURES

T = FIXTURES / "templates"
CHECKPOINT = json.loads((T / "proj001-qg2-checkpoint.json").read_text())
ORCHESTRATION = yaml.safe_load((T / "proj001-qg2-ORCHESTRATION.yaml").read_text())


def _changes(seed: str, ours: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(seed.splitlines(), ours.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def _template2(**kwargs: object) -> str:
    return render_template2(
        CHECKPOINT,
        checkpoint_path=".jerry/checkpoints/cx-001-checkpoint.json",
        orchestration_path="projects/PROJ-001-oss-release/ORCHESTRATION.yaml",
        **kwargs,  # type: ignore[arg-type]
    )


def test_template2_reproduces_the_seed_example_apart_from_justified_lines() -> None:
    seed = (T / "seed-template2-example.txt").read_text()
    assert _changes(seed, _template2()) == [
        # The example adds "header_template", which the checkpoint's decision summary does not hold;
        # we render only what the checkpoint says.
        "-- RD-001: Align copyright holder to 'Adam Nowak'. Affects Phase 3 header_template.",
        "+- RD-001: Align copyright holder to 'Adam Nowak'. Affects Phase 3.",
        # Merging by hand (two steps) is replaced by the one command that does it deterministically.
        "-3. Merge checkpoint data into resumption section if checkpoint is newer",
        "-4. Set checkpoint acknowledged=true in the checkpoint file",
        "-5. Continue from: Complete QG-2 iteration 1 revision (apply DA-001 fix), then re-score",
        "+3. Run `ctxres ack` to merge the checkpoint into the resumption section and acknowledge it",
        "+4. Continue from: Complete QG-2 iteration 1 revision (apply DA-001 fix), then re-score",
    ]


def test_template1_reproduces_the_seed_example_apart_from_justified_lines() -> None:
    seed = (T / "seed-template1-example.txt").read_text()
    ours = render_template1(ORCHESTRATION, plan_path="projects/PROJ-001-oss-release/ORCHESTRATION_PLAN.md")
    assert _changes(seed, ours) == [
        # "pre-revision" is prose the state does not hold.
        "-- Last gate score: 0.960 (qg-2 iter 1, pre-revision)",
        "+- Last gate score: 0.960 (qg-2 iter 1)",
        # The example was wrapped by hand: this one line is 91 characters, every other line <= 89.
        "-- license-replacer: DONE. LICENSE file replaced with canonical Apache 2.0. SHA-256 verified.",
        "+- license-replacer: DONE. LICENSE file replaced with canonical Apache 2.0. SHA-256",
        "+  verified.",
        # The example abbreviates NEXT_ACTION here; the template says {NEXT_ACTION}, so we repeat it.
        "-   re-score with S-014, S-007, S-002. Apply DA-001 revision first.",
        "+   re-score with S-014, S-007, S-002. The previous scoring reached 0.960 but S-007 found",
        "+   1 major finding (DA-001: copyright holder inconsistency). Apply revision, then",
        "+   re-score.",
    ]


def test_budgets_of_the_populated_examples() -> None:
    t1 = estimate_tokens(render_template1(ORCHESTRATION, plan_path="ORCHESTRATION_PLAN.md"))
    assert TEMPLATE1_BUDGET[0] <= t1 <= TEMPLATE1_BUDGET[1]
    assert estimate_tokens(_template2()) <= TEMPLATE2_BUDGET[1]


def test_template2_counts_pending_compactions() -> None:
    text = _template2(event_number=2, event_total=2)
    assert "COMPACTION EVENT: 2 of 2 this session\n" in text
    assert "Run `ctxres ack --all` to merge the checkpoints" in text


def test_template2_shortens_free_text_only_to_stay_under_the_ceiling() -> None:
    big = copy.deepcopy(CHECKPOINT)
    big["recovery_instructions"]["critical_context"] = "The revision of DA-001 was half done. " * 150
    big["accumulated_context"]["decisions_since_last_checkpoint"] = [
        {"id": f"RD-{n:03d}", "summary": "Keep the copyright holder aligned everywhere " * 5} for n in range(1, 20)
    ]
    text = render_template2(big, checkpoint_path="c.json", orchestration_path="o.yaml")
    assert estimate_tokens(text) <= TEMPLATE2_CEILING
    for structured in (
        "CHECKPOINT: c.json",
        "TRIGGER: auto (PreCompact hook)",
        "PRE-COMPACTION FILL: 88.6%",
        "YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-1",
        "LAST SCORE: 0.960 (qg-2, iteration 1)",
        "2. Read ORCHESTRATION.yaml resumption section: o.yaml",
        "4. Continue from: Complete QG-2 iteration 1 revision",
    ):
        assert structured in text
    assert " ..." in text


@pytest.mark.parametrize("filler", [0, 7, 23, 61, 150, 333, 700])
def test_a_command_in_shortened_free_text_is_whole_or_left_out(filler: int) -> None:
    """Wherever the cut falls, a `command` with a path in the critical context is never cut in its middle."""
    command = "`ctxres migrate projects/PROJ-005-markdown-ast/ORCHESTRATION.yaml --write`"
    big = copy.deepcopy(CHECKPOINT)
    big["recovery_instructions"]["critical_context"] = (
        "x " * filler + f"Before anything else run {command} then ack. " + "The revision was half done. " * 120
    )
    big["accumulated_context"]["decisions_since_last_checkpoint"] = [
        {"id": f"RD-{n:03d}", "summary": "Keep the copyright holder aligned everywhere " * 5} for n in range(1, 20)
    ]
    text = render_template2(big, checkpoint_path="c.json", orchestration_path="o.yaml")
    assert estimate_tokens(text) <= TEMPLATE2_CEILING
    joined = " ".join(text.split())
    assert joined.count("`") % 2 == 0
    assert command in joined or "ctxres migrate" not in joined


def test_missing_values_render_as_unknown_not_as_errors() -> None:
    text = render_template2({}, checkpoint_path="c.json", orchestration_path="o.yaml")
    assert "PRE-COMPACTION FILL: unknown" in text and "LAST SCORE: none (between gates)" in text
    prompt = render_template1({"resumption": {"files_to_read": ["PLAN.md", {"path": "WT.md", "priority": 2}]}})
    assert "1. [PRIORITY 1] PLAN.md\n2. [PRIORITY 2] WT.md\n" in prompt
    assert "- Current phase: phase not recorded\n" in prompt and "Phase unknown" not in prompt
    assert "YOU WERE DOING: phase not recorded, unknown" in text


@pytest.mark.parametrize(
    ("number", "name", "said"),
    [(3, "Validation", "Phase 3 (Validation)"), (3, None, "Phase 3"), (None, "Validation", "Validation")],
)
def test_the_phase_is_said_with_what_the_section_records(number: object, name: object, said: str) -> None:
    state = {"current_phase": number, "current_phase_name": name}
    prompt = render_template1({"resumption": {"recovery_state": state}})
    assert f"- Current phase: {said}\n" in prompt


def test_generic_alert_names_the_reason() -> None:
    text = render_generic_alert(orchestration_path="ORCHESTRATION.yaml", reason="invalid JSON at line 3")
    assert text.startswith("<compaction-alert>\n") and "invalid JSON at line 3" in text


def test_replayed_qg2_compaction_alert_matches_the_seed_apart_from_listed_lines() -> None:
    """Fixture (a), step 18: the alert SessionStart injected after the QG-2 compaction (a reactive one) (a golden
    produced by `ctxres replay --update`) against the original populated Template 2 example."""
    seed = (T / "seed-template2-example.txt").read_text()
    golden = FIXTURES / "replay" / "a-feat015-single-session" / "expected" / "18-sessionstart-compact"
    assert _changes(seed, (golden / "additional-context.txt").read_text()) == [
        # The PreCompact hook names its checkpoint cx-NNN.json (a name another writer's int() numbering
        # reads), not the original example's cx-NNN-checkpoint.json.
        "-CHECKPOINT: .jerry/checkpoints/cx-001-checkpoint.json",
        "+CHECKPOINT: .jerry/checkpoints/cx-001.json",
        # The fill is the client's own figure (tokens / 180,000 usable), which the recorded session's
        # last reply puts at 89%; the original example computed 88.6% against the whole window.
        "-PRE-COMPACTION FILL: 88.6%",
        "+PRE-COMPACTION FILL: 89.0%",
        # The real client runs SessionStart(compact) before it writes the compaction boundary, so the
        # fill after the compaction is not known yet; older monitor readings no longer hold.
        "+CONTEXT NOW: not measured yet after the compaction (the next reply tells).",
        "+Context-monitor readings from before the compaction are superseded.",
        # The fixture follows the original walk-through, where compaction fires while iteration 2 is
        # being scored (after the DA-001 revision); the populated example shows iteration 1.
        "-YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-1",
        "+YOU WERE DOING: Phase 2 (Core License Changes), qg-2-iteration-2",
        # The PreCompact hook cannot write prose: its critical context is derived from the state.
        "-QG-2 was scoring 3 Phase 2 deliverables. S-007 found 1 major finding: DA-001 copyright",
        "-holder inconsistency between NOTICE and header_template. Revision was in progress.",
        "+Activity at compaction: qg-2-iteration-2. Quality gate qg-2 iteration 2: last score 0.960",
        "+(iteration 1). Primary defect of the last gate iteration: DA-001: copyright holder",
        "+inconsistency.",
        # RD-001 was applied before iteration 2 (the revision), so no decision is pending.
        "-- RD-001: Align copyright holder to 'Adam Nowak'. Affects Phase 3 header_template.",
        "+- none",
        "-1. Read checkpoint file: .jerry/checkpoints/cx-001-checkpoint.json",
        "+1. Read checkpoint file: .jerry/checkpoints/cx-001.json",
        # Merging by hand (two steps) is replaced by `ctxres ack`; the next action is the
        # fixture's own next_step for iteration 2.
        "-3. Merge checkpoint data into resumption section if checkpoint is newer",
        "-4. Set checkpoint acknowledged=true in the checkpoint file",
        "-5. Continue from: Complete QG-2 iteration 1 revision (apply DA-001 fix), then re-score",
        "+3. Run `ctxres ack` to merge the checkpoint into the resumption section and acknowledge it",
        "+4. Continue from: Restart QG-2 iteration 2 scoring: re-read the 3 Phase 2 deliverables",
        "+   and run S-014, S-007, S-002 (the DA-001 revision is applied).",
    ]
