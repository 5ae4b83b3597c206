"""The loop tracker through the Python package: the same JSON Lines give the
same report in Python as ``box-docs loops --json`` in Rust; the typed API feeds,
nudges, saves and resumes. The rules themselves are tested in Rust
(``tests/downstream/tests/loops.rs``)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

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
