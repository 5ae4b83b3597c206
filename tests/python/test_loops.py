"""The loop tracker through the Python package: the same JSON Lines give the
same report in Python as ``box-docs loops --json`` in Rust; the typed API feeds,
nudges, saves and resumes. The rules themselves are tested in Rust
(``tests/downstream/tests/loops.rs``)."""

from __future__ import annotations

import json
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

import agent_sentences as A

ROOT = Path(__file__).resolve().parents[2]
BOX_DOCS = ROOT / "target" / "debug" / "box-docs"


def conversation(rng: random.Random, n: int) -> str:
    """A JSON Lines log of ``n`` messages over a few loops, moves in and out of order,
    some lines broken."""
    ids = ["7fce46e0", "a1", "b2", "c3"]
    senders = ["super", "646", "777"]
    templates = [
        "[WO:{id}] [from super] Audit {id} — run the checks",
        "[ACK:{id}] [from 646]",
        "[CLAIM {id}]",
        "[RESULT {id}] OK done",
        "[DECLINE {id}] busy",
        "[NO-ACTION {id}] flap",
        "[NUDGE {id}] [nudge 1/3] Deadline 2026-12-01T09:30Z",
        "no markers here",
    ]
    lines = []
    minute = 0
    for _ in range(n):
        minute += rng.choice([0, 1, 1, 2, -1])
        text = rng.choice(templates).format(id=rng.choice(ids))
        if rng.random() < 0.03:
            lines.append("{not json")
            continue
        lines.append(json.dumps({"at": f"2026-12-01T{9 + max(minute, 0) // 60:02d}:{max(minute, 0) % 60:02d}:00Z", "from": rng.choice(senders), "text": text}))
    return "\n".join(lines) + "\n"


def test_python_and_rust_give_the_same_report_on_the_same_log(tmp_path: Path) -> None:
    assert BOX_DOCS.is_file(), "cargo xtask test builds box-docs (cargo test) before the Python tests"
    rng = random.Random(15)
    for case in range(20):
        log = conversation(rng, 60)
        path = tmp_path / f"log{case}.jsonl"
        path.write_text(log, encoding="utf-8")
        out = subprocess.run([str(BOX_DOCS), "loops", "--json", "--at", "2026-12-01T11:00:00Z", str(path)], capture_output=True, text=True)
        report, bad = A.loops.report(log, "2026-12-01T11:00:00Z")
        assert out.returncode == (1 if report["rejected"] else 0), out.stderr
        assert json.loads(out.stdout) == report
        assert [r["line"] for r in report["rejected"] if r["id"] is None and r["reason"].startswith("not a message")] == bad
        assert report["loops"], "the log opens loops"


def test_the_tracker_feeds_nudges_saves_and_resumes() -> None:
    t = A.loops.Tracker({"sla_seconds": {}, "default_sla_seconds": 600, "nudge_interval_seconds": 300, "max_nudges": 2})
    assert t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go") == 1
    assert t.feed("2026-12-01T09:01:00Z", "646", "[ACK:7f] [from 646] [CLAIM 7f]") == 2
    assert t.due("2026-12-01T09:09:59Z") == []
    due = t.due("2026-12-01T09:10:00Z")
    assert due == [{"id": "7f", "sentence": "[NUDGE 7f] [nudge 1/2] Deadline 2026-12-01T09:10Z", "breached": False}]
    t.nudged(due)
    saved = t.state()
    resumed = A.loops.Tracker.restore(saved)
    assert resumed.due("2026-12-01T09:15:00Z")[0]["sentence"] == "[NUDGE 7f] [nudge 2/2] Deadline 2026-12-01T09:10Z"
    # Someone else's result is rejected; the owner's closes the loop.
    assert resumed.feed("2026-12-01T09:16:00Z", "777", "[RESULT 7f] OK mine") == 0
    assert resumed.feed("2026-12-01T09:17:00Z", "646", "[RESULT 7f] OK done") == 1
    loop = resumed.report()["loops"][0]
    assert (loop["state"], loop["closed"], loop["owner"], loop["nudges"]) == ("resolved", True, "646", 1)
    assert [s["structure"] for s in loop["history"]] == ["work_order", "ack", "claim", "result"]
    assert resumed.report()["rejected"] == [{"line": 3, "id": "7f", "reason": "loop `7f` is claimed by `646`, not by `777`"}]
    # The saved state is untouched by what the resumed tracker did.
    assert A.loops.Tracker.restore(saved).report()["loops"][0]["state"] == "claimed"
    with pytest.raises(ValueError, match="RFC 3339"):
        t.feed("yesterday", "x", "[CLAIM 1]")
    with pytest.raises(ValueError, match="saved tracker state"):
        A.loops.Tracker.restore("{}")


def test_the_machine_constants_are_the_specs() -> None:
    with (ROOT / "schema" / "loops.json").open(encoding="utf-8") as f:
        spec = json.load(f)
    assert A.loops.OPENER == spec["opened_by"]
    assert set(A.loops.MOVES) == set(spec["loop_id"]) - {spec["opened_by"]}
    assert set(A.loops.CLOSED_STATES) <= set(A.loops.STATES) and A.loops.INITIAL in A.loops.STATES


HUGE = {"sla_seconds": {}, "default_sla_seconds": 1800, "nudge_interval_seconds": 2**62, "max_nudges": 3}


def test_a_config_or_state_that_would_overflow_raises_value_error_not_a_panic() -> None:
    # A PanicException is no Exception: pytest.raises(ValueError) would let it through and fail.
    with pytest.raises(ValueError, match="nudge_interval_seconds"):
        t = A.loops.Tracker(HUGE)  # type: ignore[arg-type]
        t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
        t.due("2026-12-01T12:00:00Z")
    saved = json.loads(A.loops.Tracker().state())
    saved["config"] = HUGE
    with pytest.raises(ValueError, match="/config/nudge_interval_seconds"):
        t = A.loops.Tracker.restore(json.dumps(saved))
        t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
        t.due("2026-12-01T12:00:00Z")


def test_a_restored_state_is_checked_and_the_fault_located() -> None:
    t = A.loops.Tracker()
    t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
    good = json.loads(t.state())
    for key, value, pointer in [
        ("id", "8a", "/loops/7f/id"),
        ("state", "limbo", "/loops/7f/state"),
        ("nudges", 2**32 - 1, "/loops/7f/nudges"),
    ]:
        bad = json.loads(json.dumps(good))
        bad["loops"]["7f"][key] = value
        with pytest.raises(ValueError, match=pointer):
            A.loops.Tracker.restore(json.dumps(bad))


def test_a_future_dated_rejected_message_does_not_move_the_clock() -> None:
    t = A.loops.Tracker()
    assert t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go") == 1
    assert t.feed("2099-01-01T00:00:00Z", "x", "[RESULT 7f] OK done") == 0
    assert t.feed("2099-01-01T00:00:00Z", "x", "no sentence") == 0
    assert t.feed("2026-12-01T09:01:00Z", "646", "[ACK:7f] [from 646]") == 1
    assert t.report()["loops"][0]["state"] == "acknowledged"


def test_closed_loops_are_pruned() -> None:
    t = A.loops.Tracker()
    t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
    t.feed("2026-12-01T09:01:00Z", "646", "[NO-ACTION 7f] nothing to do")
    assert (t.report()["pruned"], t.prune(), t.report()["pruned"], t.report()["loops"]) == (0, 1, 1, [])
    assert t.feed("2026-12-01T09:02:00Z", "super", "[WO:7f] [from super] Again — go") == 0


def test_rejected_events_are_pruned_and_counted() -> None:
    # P284: junk events used to stay in a saved state for ever.
    t = A.loops.Tracker()
    for i in range(100):
        assert t.feed("2026-12-01T09:00:00Z", "x", f"[RESULT j{i}] OK nothing open") == 0
    assert len(t.report()["rejected"]) == 100
    assert (t.prune_rejected(), t.prune_rejected()) == (100, 0)
    r = A.loops.Tracker.restore(t.state()).report()
    assert (r["rejected"], r["rejected_pruned"]) == ([], 100)


@pytest.mark.parametrize(
    "text",
    [
        "[WO:7f] [from super] Audit — check the endpoints.\n\nIf nothing needs doing, reply:\n\n[NO-ACTION 7f] nothing to do",
        "[WO:7f] [from super] Audit — check the endpoints.\n\n[ACK:7f]\n\n[CLAIM 7f]\n\n[RESULT 7f] OK done\n",
        "[WO:7f] [from super] Audit — check the endpoints.\n\n[TOOL followup.create {\"in_m\": 5}]",
    ],
)
def test_a_work_order_with_a_reply_in_its_body_opens_its_loop_and_leaves_it_open(text: str) -> None:
    t = A.loops.Tracker()
    assert t.feed("2026-12-01T09:00:00Z", "super", text) == 1
    (loop,) = t.report()["loops"]
    assert (loop["state"], loop["closed"], len(loop["history"])) == (A.loops.INITIAL, False, 1)
    # The scanner and parse read one work order whose body is the rest of the text.
    (found,) = A.scan(text)
    assert found.item == A.WorkOrder.parse(text)
    assert (found.span.start, found.span.end) == (0, len(text.encode()))


def test_a_restored_state_is_what_its_history_makes_it() -> None:
    # A restored state used to take any opening time, deadline, owner or closing
    # time: each is derived again from the loop's history and the config.
    t = A.loops.Tracker()
    t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
    t.feed("2026-12-01T09:01:00Z", "646", "[ACK:7f] [from 646] [CLAIM 7f]")
    good = json.loads(t.state())
    assert A.loops.Tracker.restore(json.dumps(good)).report() == t.report()

    cases: list[tuple[Any, str, str]] = [
        (lambda l: l.update(opened_at="2026-12-01T10:00:00Z"), "/loops/7f/opened_at", "its opening step is at 2026-12-01T09:00:00Z"),
        (lambda l: l.update(deadline="2026-12-01T08:00:00Z"), "/loops/7f/deadline", "not the opening time plus the SLA (2026-12-01T09:30:00Z)"),
        (lambda l: l.update(deadline="9999-12-30T22:00:00Z"), "/loops/7f/deadline", "not the opening time plus the SLA"),
        (lambda l: l.update(owner="[NUDGE 7f]\n"), "/loops/7f/owner", "the history's claim makes it `646`"),
        (lambda l: l.update(owner=None), "/loops/7f/owner", "the owner is none"),
        (lambda l: l.update(closed_at="2026-12-01T09:02:00Z"), "/loops/7f/closed_at", "an open loop has no closing time"),
        (lambda l: l["history"].reverse(), "/loops/7f/history/0", "starts with its opening"),
        (lambda l: l["history"][1].update(at="2026-12-01T08:59:00Z"), "/loops/7f/history/1", "comes before the one before it"),
        (lambda l: l["history"][2].update(from_state="open"), "/loops/7f/history/2", "`claim` from `open` to `claimed` is not a move of the machine from `acknowledged`"),
        (lambda l: l["history"].pop(1), "/loops/7f/history/1", "`claim` from `acknowledged` to `claimed` is not a move of the machine from `open`"),
    ]
    for change, pointer, why in cases:
        bad = json.loads(json.dumps(good))
        change(bad["loops"]["7f"])
        with pytest.raises(ValueError, match=re.escape(f"at `{pointer}`")) as e:
            A.loops.Tracker.restore(json.dumps(bad))
        assert why in str(e.value), (pointer, str(e.value))


def test_a_deadline_past_year_9999_is_refused_not_clamped() -> None:
    # The default config: the deadline 30 minutes after the opening, the last of 3
    # nudges 15 minutes apart 45 minutes after it. A work order whose breach time
    # falls past the last time the tracker holds (9999-12-30T22:00:00.999999999Z,
    # jiff's) used to get a deadline clamped to it, silently; it is rejected, with
    # the reason.
    t = A.loops.Tracker()
    assert t.feed("9999-12-30T20:45:01Z", "super", "[WO:7f] [from super] Audit — go") == 0
    assert t.report()["rejected"] == [
        {
            "line": 1,
            "id": "7f",
            "reason": "loop `7f` opened at 9999-12-30T20:45:01Z would have its deadline or a nudge past 9999-12-30T22:00:00.999999999Z (the last time the tracker holds)",
        }
    ]
    assert t.report()["loops"] == []
    # One second earlier everything fits, to the breach.
    assert t.feed("9999-12-30T20:45:00Z", "super", "[WO:8a] [from super] Audit — go") == 1
    (loop,) = t.report()["loops"]
    assert loop["deadline"] == "9999-12-30T21:15:00Z"
    for n in (1, 2, 3):
        due = t.due("9999-12-30T22:00:00Z")
        assert due == [{"id": "8a", "sentence": f"[NUDGE 8a] [nudge {n}/3] Deadline 9999-12-30T21:15Z", "breached": False}]
        t.nudged(due)
    assert t.due("9999-12-30T22:00:00Z") == [{"id": "8a", "sentence": None, "breached": True}]
    # A restored loop whose breach time would not fit is refused the same way.
    saved = json.loads(t.state())
    saved["config"]["nudge_interval_seconds"] = 901
    with pytest.raises(ValueError, match=re.escape("at `/loops/8a/deadline`: a loop opened at 9999-12-30T20:45:00Z would have its deadline or a nudge past")):
        A.loops.Tracker.restore(json.dumps(saved))


def test_a_max_nudges_no_nudge_sentence_can_count_to_is_refused() -> None:
    # The nudge's count is at most nine digits: a config of 2**32 - 1 nudges was
    # taken, and its nudges read back as no sentence at all.
    (nudge,) = [p for k, p in json.loads((ROOT / "schema" / "regex_patterns.json").read_text(encoding="utf-8"))["patterns"].items() if k == "nudge"]
    assert "(?P<max_nudges>0|[1-9][0-9]{0,8})" in nudge["pattern"]
    fits = {"sla_seconds": {}, "default_sla_seconds": 0, "nudge_interval_seconds": 0, "max_nudges": 999_999_999}
    t = A.loops.Tracker(fits)  # type: ignore[arg-type]
    t.feed("2026-12-01T09:00:00Z", "super", "[WO:7f] [from super] Audit — go")
    (due,) = t.due("2026-12-01T09:00:00Z")
    assert due["sentence"] == "[NUDGE 7f] [nudge 1/999999999] Deadline 2026-12-01T09:00Z"
    assert A.scan(due["sentence"])[0].item.max_nudges == 999_999_999
    with pytest.raises(ValueError, match=re.escape("at `/max_nudges`: 1000000000 nudges cannot be counted in a nudge sentence")):
        A.loops.Tracker(fits | {"max_nudges": 1_000_000_000})  # type: ignore[arg-type]
    saved = json.loads(t.state())
    saved["config"]["max_nudges"] = 2**32 - 1
    with pytest.raises(ValueError, match=re.escape("at `/config/max_nudges`: 4294967295 nudges cannot be counted")):
        A.loops.Tracker.restore(json.dumps(saved))
