"""The shared conformance vectors (``tests/vectors/``), checked against a Python
package generated from the spec.

The Rust crate runs the same files (``tests/downstream/tests/vectors.rs``).
A sentence case gives an input text, optionally the structure to parse it as
(``parse_as``; else any structure), and either the structure, the value (the
JSON of Rust's serde ``Sentence``) and the canonical rendering, or the
expected ``ParseError`` as JSON. The JSON reader's own message of a ``json``
error is left out: its wording differs between the languages. A pattern case
gives a pattern key, an input and the groups a full match captures (``null``:
no full match). A scanner case (``scan/``) gives an input text and what
``scan_with_diagnostics`` returns for it, as Rust's serde JSON: ``found``
(spans in UTF-8 bytes) and ``skipped``; a skipped message written ``null`` is
the JSON reader's own wording (P25), so only its span and reason are compared.

Run as a script to check a package in another directory (e.g. one generated
from an edited spec): ``python tests/python/vectors.py --package-dir DIR``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "tests" / "vectors"


def canonical(value: Any) -> str:
    """A JSON text that tells 1 from 1.0 and True from 1 (Python's == does not)."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def load(kind: str) -> list[tuple[str, dict[str, Any]]]:
    """Every case of ``tests/vectors/<kind>/``, as ``(file name, case)``, sorted."""
    out = []
    for path in sorted((VECTORS / kind).glob("*.json")):
        with path.open(encoding="utf-8") as f:
            out.append((path.name, json.load(f)))
    return out


def check_sentence(pkg: ModuleType, case: dict[str, Any]) -> str | None:
    """None when ``pkg`` reads the case as expected, else what differs."""
    parser = pkg.PARSERS[case["parse_as"]] if case.get("parse_as") else pkg.parse
    try:
        got = parser(case["input"])
    except pkg.ParseError as e:
        if case["structure"] is not None:
            return f"expected a `{case['structure']}`, got the error: {e}"
        error = e.to_dict()
        if error["kind"] == "json":
            error.pop("error")
        if canonical(error) != canonical(case["error"]):
            return f"error {canonical(error)}, expected {canonical(case['error'])}"
        return None
    if case["structure"] is None:
        return f"expected the error {canonical(case['error'])}, got {got!r}"
    if got.KIND.key != case["structure"]:
        return f"parsed as `{got.KIND.key}`, expected `{case['structure']}`"
    value = got.to_sentence_dict()
    if canonical(value) != canonical(case["value"]):
        return f"value {canonical(value)}, expected {canonical(case['value'])}"
    rendered = got.render()
    if rendered != case["rendered"]:
        return f"renders {rendered!r}, expected {case['rendered']!r}"
    again = parser(rendered).to_sentence_dict()
    if canonical(again) != canonical(value):
        return f"the rendering reads back as {canonical(again)}"
    return None


def check_pattern(pkg: ModuleType, case: dict[str, Any]) -> str | None:
    """None when the pattern constant full-matches as expected, else what differs."""
    found = pkg.patterns.COMPILED[case["pattern"]].fullmatch(case["input"])
    got = None if found is None else {k: v for k, v in found.groupdict().items() if v is not None}
    if got != case["captures"]:
        return f"captures {got}, expected {case['captures']}"
    return None


def scan_answer(pkg: ModuleType, text: str) -> dict[str, Any]:
    """``{"found": […], "skipped": […]}``: what the package's scanner returns, as JSON."""
    found, skipped = pkg.scan_with_diagnostics(text)
    return {"found": [f.to_dict() for f in found], "skipped": [s.to_dict() for s in skipped]}


def check_scan(pkg: ModuleType, case: dict[str, Any]) -> str | None:
    """None when the package's scanner returns exactly the case's items, else what differs."""
    got = scan_answer(pkg, case["input"])
    for s_got, s_expected in zip(got["skipped"], case["skipped"]):
        if s_expected["message"] is None:
            if s_expected["reason"] != "invalid-json":
                return f"a `null` message stands only for the JSON reader's wording (invalid-json), not {s_expected['reason']}"
            s_got["message"] = None
    for key in ("found", "skipped"):
        if canonical(got[key]) != canonical(case[key]):
            return f"{key} {canonical(got[key])}, expected {canonical(case[key])}"
    plain = [f.to_dict() for f in pkg.scan(case["input"])]
    if canonical(plain) != canonical(got["found"]):
        return f"scan() gives {canonical(plain)}, scan_with_diagnostics() {canonical(got['found'])}"
    return None


CHECKS = (("sentences", check_sentence), ("patterns", check_pattern), ("scan", check_scan))
"""Each vector kind (a directory of ``tests/vectors/``) and its check."""


def run_all(pkg: ModuleType) -> list[str]:
    """Every failing case, as ``kind/file: message``."""
    failures = []
    for kind, check in CHECKS:
        for name, case in load(kind):
            message = check(pkg, case)
            if message is not None:
                failures.append(f"{kind}/{name}: {message}")
    return failures


def main() -> int:
    """Checks the package in ``--package-dir``; exit status 1 when a case fails."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--package-dir", type=Path, default=None, help="a folder holding a built agent_sentences (default: the installed one)")
    ns = args.parse_args()
    if ns.package_dir is not None:
        sys.path.insert(0, str(ns.package_dir.resolve()))
    pkg = importlib.import_module("agent_sentences")
    failures = run_all(pkg)
    for f in failures:
        print(f)
    total = sum(len(load(kind)) for kind, _ in CHECKS)
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
