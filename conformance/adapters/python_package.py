"""The conformance kit's adapter for the generated Python package
(``agent_sentences``): reads the kit's requests on standard input, one JSON
object a line, and writes one answer a line (``conformance/README.md``).

    box-docs conformance python3 conformance/adapters/python_package.py
    box-docs conformance python3 conformance/adapters/python_package.py --package-dir DIR

The package's scanner and parsers answer as they are; this file only maps
their results to the kit's items: byte spans as ``[start, end]``, a found
sentence as ``structure`` and ``value``, a found call as ``engine``, ``op``
and ``args``, a skipped candidate or a parse error as a refusal with its
reason class.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any


def item(found: dict[str, Any]) -> dict[str, Any]:
    """One found item of ``scan_with_diagnostics`` as a kit item."""
    span = [found["span"]["start"], found["span"]["end"]]
    if found["kind"] == "sentence":
        value = {k: v for k, v in found["value"].items() if k != "structure"}
        return {"span": span, "kind": "sentence", "structure": found["value"]["structure"], "value": value}
    return {"span": span, "kind": found["kind"], "engine": found["engine"], "op": found["op"], "args": found["args"]}


def answer(pkg: ModuleType, request: dict[str, Any]) -> dict[str, Any]:
    """The package's answer to one request."""
    text = request["text"]
    if request["mode"] == "scan":
        found, skipped = pkg.scan_with_diagnostics(text)
        refusals = [{"span": [s.span.start, s.span.end], "reason": s.to_dict()["reason"]} for s in skipped]
        return {"id": request["id"], "items": [item(f.to_dict()) for f in found], "refusals": refusals}
    parser = pkg.PARSERS[request["as"]] if request.get("as") else pkg.parse
    try:
        sentence = parser(text)
    except pkg.ParseError as e:
        return {"id": request["id"], "items": [], "refusals": [{"reason": e.to_dict()["kind"]}]}
    value = sentence.to_sentence_dict()
    structure = value.pop("structure")
    span = [0, len(text.encode("utf-8"))]
    return {"id": request["id"], "items": [{"span": span, "kind": "sentence", "structure": structure, "value": value}], "refusals": []}


def main() -> int:
    """Answers every request line until standard input closes."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--package-dir", type=Path, default=None, help="a folder holding a built agent_sentences (default: the installed one)")
    ns = args.parse_args()
    if ns.package_dir is not None:
        sys.path.insert(0, str(ns.package_dir.resolve()))
    pkg = importlib.import_module("agent_sentences")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        try:
            out = answer(pkg, request)
        except Exception as e:  # an answer per request, whatever happens
            out = {"id": request.get("id"), "error": f"{type(e).__name__}: {e}"}
        sys.stdout.write(json.dumps(out, ensure_ascii=True) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
