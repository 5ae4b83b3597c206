"""The benchmark's reference implementation of the seed approach
(bench/python/seed_reference.py) finds what the seeds say it finds, so the
comparison in BENCHMARKS.md is against a working baseline."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench" / "python"))

import seed_reference  # noqa: E402


def test_the_seed_approach_finds_matches_and_tool_calls() -> None:
    patterns = seed_reference.load_seed_patterns(str(ROOT / "schema" / "regex_patterns.json"))
    assert len(patterns) == 4  # work_order, verb, result, tool_call: the seed printed four.
    text = (
        "[CLAIM 7fce46e0] on it\n"
        '[TOOL followup.create {"in_m": 5, "note": "a } in a string"}]\n'
        '[DM {"to": "pip", "text": "hi"}]\n'
        '[EXEC health.check {"broken": }]\n'
        "```tool\n"
        'cron.create {"at": "19:45"}\n'
        "```\n"
    )
    found = seed_reference.scan(patterns, text)
    assert found == [
        {"verb": "CLAIM", "job_id": "7fce46e0"},
        {"engine": "TOOL", "op": "followup.create", "args": '{"in_m": 5, "note": "a } in a string"}'},
        {"engine": "EXEC", "op": "health.check", "args": '{"broken": }'},
        ("followup.create", {"in_m": 5, "note": "a } in a string"}),
        ("dm.send", {"to": "pip", "text": "hi"}),
        ("cron.create", {"at": "19:45"}),
    ]
