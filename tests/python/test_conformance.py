"""The conformance suite (``conformance/suite.jsonl``) is what the shared
vectors, the spec and ``conformance/levels.json`` give (P316), and the seed
adapter runs the spec's ``seed_pattern``s, the seed's own text (P317).

The suite's runs (this build, the Python package, the seed's regexes) are in
``cli/tests/conformance.rs``, through ``box-docs conformance``."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def module(path: str) -> ModuleType:
    """A script of ``conformance/`` as a module."""
    spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


build = module("conformance/build.py")
seed = module("conformance/adapters/seed_regexes.py")


def test_the_suite_is_what_the_vectors_and_the_spec_give() -> None:
    suite, problems = build.cases()
    assert problems == []
    text = (ROOT / "conformance" / "suite.jsonl").read_text(encoding="utf-8")
    assert text == build.render(suite), "conformance/suite.jsonl is stale: run `python3 conformance/build.py`"
    assert text.isascii() and all(json.loads(line)["id"] for line in text.splitlines())
    levels = {c["level"] for c in suite}
    assert levels == {"MUST", "SHOULD", "MAY"}
    # Every spec example of a structure is a MUST case.
    structures = json.loads((ROOT / "schema" / "structures.json").read_text(encoding="utf-8"))["structures"]
    by_id = {c["id"]: c for c in suite}
    for key in structures:
        assert by_id[f"sentences/spec-{key}-example"]["level"] == "MUST"


def test_a_spec_example_without_its_vector_stops_the_build(tmp_path: Path, monkeypatch: Any) -> None:
    vectors = {name: case for name, case in build.load("sentences")}
    vectors["spec-claim-example"] = dict(vectors["spec-claim-example"], input="[CLAIM other]")
    del vectors["spec-ack-match-0"]
    problems = build.spec_problems(vectors)
    assert "sentences/spec-claim-example.json: its input is not (the start of) the spec's example" in problems
    assert any(p.startswith("pattern `ack`: no vector sentences/spec-ack-match-0.json") for p in problems)


def test_a_vector_no_rule_levels_is_refused() -> None:
    rules = [{"vectors": ["scan/*"], "level": "MUST"}]
    assert build.level_of(rules, "sentences/new", "A new case.") is None
    cites = [{"cites_decision": True, "level": "SHOULD"}]
    assert build.level_of(cites, "scan/x", "Read as P4 says.") == ("SHOULD", ["P4"])


def test_the_seed_adapter_runs_the_seeds_own_patterns() -> None:
    patterns = json.loads((ROOT / "schema" / "regex_patterns.json").read_text(encoding="utf-8"))["patterns"]
    printed = {key: p["seed_pattern"] for key, p in patterns.items() if "seed_pattern" in p}
    assert printed == {key: text for key, (text, _) in seed.SEED_PATTERNS.items()}
    # P314: the seed reads `[RESULT id]` alone as a result with an empty summary.
    (item,) = seed.answer({"id": "x", "mode": "sentence", "text": "[RESULT 7fce46e0]"})["items"]
    assert item["value"] == {"job_id": "7fce46e0", "summary": ""}
    # Offsets are UTF-8 bytes: é is two.
    (item,) = seed.answer({"id": "x", "mode": "scan", "text": "é [CLAIM 7f]"})["items"]
    assert item["span"] == [3, 13]
