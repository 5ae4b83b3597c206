"""Writes ``conformance/suite.jsonl``, the conformance suite, from the shared
vectors (``tests/vectors/sentences`` and ``tests/vectors/scan``), checked
against the spec (``schema/``) and leveled by ``conformance/levels.json``.

``python3 conformance/build.py`` rewrites the suite when it changed;
``--check`` writes nothing and exits 1 when the committed suite differs from
what the vectors, the spec and the levels give (a test runs it, so the suite
cannot drift). The format is described in ``conformance/README.md`` (P316).

The build stops, naming every problem, when:

- a spec example (a structure's ``example``, a pattern's ``matches`` and
  ``non_matches``) has no sentence vector, or the vector's text is not the
  spec's (the MUST cases are the spec's own texts);
- a vector matches no rule of ``levels.json``;
- a rule's basis is not an accepted decision of ``docs/decisions/``, or a
  decision a vector cites is none at all.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
SUITE = ROOT / "conformance" / "suite.jsonl"
LEVELS = ROOT / "conformance" / "levels.json"
CITE = re.compile(r"\bP(\d+)\b")


def load(kind: str) -> list[tuple[str, dict[str, Any]]]:
    """Every vector of ``tests/vectors/<kind>/`` as ``(name without .json, case)``, sorted."""
    return [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in sorted((VECTORS / kind).glob("*.json"))]


def decisions() -> dict[str, bool]:
    """``P<n>`` of every decision in docs/decisions/, and whether it is accepted
    (a superseded one is still cited by older descriptions)."""
    out = {}
    for path in (ROOT / "docs" / "decisions").glob("*.md"):
        for block in re.split(r"^## ", path.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]:
            number = block.split("\n", 1)[0].strip()
            if re.fullmatch(r"P\d+", number):
                out[number] = "Status: accepted" in block
    return out


def spec_problems(sentences: dict[str, dict[str, Any]]) -> list[str]:
    """Where the sentence vectors of the spec's examples differ from the spec."""
    problems = []
    structures = json.loads((ROOT / "schema" / "structures.json").read_text(encoding="utf-8"))["structures"]
    for key, s in structures.items():
        vector = sentences.get(f"spec-{key}-example")
        if vector is None:
            problems.append(f"structure `{key}`: no vector sentences/spec-{key}-example.json")
        elif not s["example"].startswith(vector["input"]):
            problems.append(f"sentences/spec-{key}-example.json: its input is not (the start of) the spec's example")
        elif vector["input"] != s["example"] and sentences.get(f"spec-{key}-example-with-prose", {}).get("input") != s["example"]:
            problems.append(f"structure `{key}`: its example has prose after the sentence and no vector spec-{key}-example-with-prose")
    patterns = json.loads((ROOT / "schema" / "regex_patterns.json").read_text(encoding="utf-8"))["patterns"]
    for key, p in patterns.items():
        texts = [("match", m["text"]) for m in p["matches"]] + [("non-match", t) for t in p["non_matches"]]
        counts = {"match": 0, "non-match": 0}
        numbered = []
        for side, text in texts:
            numbered.append((f"spec-{key}-{side}-{counts[side]}", text))
            counts[side] += 1
        present = [name for name, _ in numbered if name in sentences]
        if not present:
            continue  # a pattern no structure parses with (uuid, short_hex, swarm_slot, verb, …)
        for name, text in numbered:
            if name not in sentences:
                problems.append(f"pattern `{key}`: no vector sentences/{name}.json for its example {text!r}")
            elif sentences[name]["input"] != text:
                problems.append(f"sentences/{name}.json: its input is not the spec's example {text!r}")
        extra = [n for n in sentences if n.startswith(f"spec-{key}-") and re.search(r"-(non-)?match-\d+$", n) and n not in dict(numbered)]
        problems += [f"sentences/{n}.json: the spec has no such example of `{key}`" for n in extra]
    return problems


def level_of(rules: list[dict[str, Any]], vector_id: str, description: str) -> tuple[str, list[str]] | None:
    """The level and basis of one vector: the first rule that matches it."""
    cited = [f"P{n}" for n in CITE.findall(description)]
    for rule in rules:
        if rule.get("cites_decision"):
            if cited:
                return rule["level"], sorted(set(cited), key=lambda p: int(p[1:]))
            continue
        if any(fnmatch.fnmatchcase(vector_id, g) for g in rule["vectors"]):
            basis = rule.get("basis", []) + [p for p in cited if p not in rule.get("basis", [])]
            return rule["level"], basis or ["spec"]
    return None


def item_of_found(found: dict[str, Any]) -> dict[str, Any]:
    """One found item of a scan vector, as the suite writes it."""
    span = [found["span"]["start"], found["span"]["end"]]
    if found["kind"] == "sentence":
        value = {k: v for k, v in found["value"].items() if k != "structure" and v is not None}
        return {"span": span, "kind": "sentence", "structure": found["value"]["structure"], "value": value}
    return {"span": span, "kind": "directive", "engine": found["engine"], "op": found["op"], "args": found["args"]}


def cases() -> tuple[list[dict[str, Any]], list[str]]:
    """Every case, sorted by id, and every problem found on the way."""
    rules = json.loads(LEVELS.read_text(encoding="utf-8"))["rules"]
    known = decisions()
    problems = []
    for rule in rules:
        problems += [f"levels.json: basis {p} is no accepted decision" for p in rule.get("basis", []) if not known.get(p)]
    sentences = load("sentences")
    problems += spec_problems(dict(sentences))
    out = []

    def add(kind: str, name: str, vector: dict[str, Any], mode: str, items: Any, refusals: Any, extra: dict[str, Any]) -> None:
        vector_id = f"{kind}/{name}"
        found = level_of(rules, vector_id, vector["description"])
        if found is None:
            problems.append(f"{vector_id}: no rule of levels.json gives it a level")
            return
        level, basis = found
        problems.extend(f"{vector_id}: cites {p}, no decision" for p in basis if p != "spec" and p not in known)
        common = {"mode": mode, **extra, "text": vector["input"], "source": f"tests/vectors/{vector_id}.json", "about": vector["description"]}
        out.append({"id": vector_id, "level": level, "basis": basis, **common, "expect": {"items": items}})
        if refusals:
            out.append({"id": f"{vector_id}#refusals", "level": "SHOULD", "basis": ["P315"], **common, "expect": {"refusals": refusals}})

    for name, v in sentences:
        extra = {"as": v["parse_as"]} if v.get("parse_as") else {}
        if v["structure"] is None:
            add("sentences", name, v, "sentence", [], [{"reason": v["error"]["kind"]}], extra)
        else:
            value = {k: x for k, x in v["value"].items() if k != "structure" and x is not None}
            whole = [0, len(v["input"].encode("utf-8"))]
            add("sentences", name, v, "sentence", [{"span": whole, "kind": "sentence", "structure": v["structure"], "value": value}], [], extra)
    for name, v in load("scan"):
        refusals = [{"span": [s["span"]["start"], s["span"]["end"]], "reason": s["reason"]} for s in v["skipped"]]
        add("scan", name, v, "scan", [item_of_found(f) for f in v["found"]], refusals, {})
    out.sort(key=lambda c: c["id"])
    return out, problems


def render(suite: list[dict[str, Any]]) -> str:
    """The suite file: one case a line, ASCII only (so a reader splits on LF alone)."""
    return "".join(json.dumps(c, ensure_ascii=True, separators=(",", ":")) + "\n" for c in suite)


def main() -> int:
    """Writes or (``--check``) checks the suite; 1 on a problem or drift."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--check", action="store_true", help="write nothing; exit 1 when suite.jsonl is stale")
    ns = args.parse_args()
    suite, problems = cases()
    if problems:
        print("\n".join(f"error: {p}" for p in problems), file=sys.stderr)
        return 1
    text = render(suite)
    old = SUITE.read_text(encoding="utf-8") if SUITE.exists() else None
    counts = {lv: sum(c["level"] == lv for c in suite) for lv in ("MUST", "SHOULD", "MAY")}
    summary = f"{len(suite)} cases: " + ", ".join(f"{n} {lv}" for lv, n in counts.items())
    if ns.check:
        if old != text:
            print(f"conformance/suite.jsonl is stale: run `python3 conformance/build.py` ({summary})", file=sys.stderr)
            return 1
        print(f"conformance/suite.jsonl is up to date ({summary})")
        return 0
    if old != text:
        SUITE.write_text(text, encoding="utf-8")
        print(f"wrote conformance/suite.jsonl ({summary})")
    else:
        print(f"conformance/suite.jsonl unchanged ({summary})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
