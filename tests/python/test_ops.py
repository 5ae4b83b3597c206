"""The op catalogue through the Python package: ``resolve`` is the Rust crate's
(through the native module), typed; every op's examples resolve, each error
kind comes back with Rust's fields, and ``tools_list()`` is ``box-docs tools
--json``. Expectations come from ``schema/ops.json``; the rules themselves are
tested in Rust (``tests/downstream/tests/ops.rs``)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import agent_sentences as A
from agent_sentences import ops

ROOT = Path(__file__).resolve().parents[2]
BOX_DOCS = ROOT / "target" / "debug" / "box-docs"
SPEC: dict[str, Any] = json.loads((ROOT / "schema" / "ops.json").read_text(encoding="utf-8"))["ops"]
DIRECTIVES: dict[str, Any] = json.loads((ROOT / "schema" / "directives.json").read_text(encoding="utf-8"))


def runnable(op: dict[str, Any]) -> bool:
    return "args" in op and "missing" not in op


def directive(text: str) -> A.ToolDirective:
    found = A.scan(text)
    assert len(found) == 1, text
    item = found[0].item
    assert isinstance(item, A.ToolDirective), text
    return item


def test_the_catalogue_is_the_spec() -> None:
    assert ops.OPS == tuple(SPEC)
    assert ops.SIDE_EFFECTING == {k: v["side_effecting"] for k, v in SPEC.items()}
    assert ops.RUNNABLE == {k for k, v in SPEC.items() if runnable(v)}
    assert ops.ALIASES == DIRECTIVES["aliases"]


@pytest.mark.parametrize("name", list(SPEC))
def test_every_example_resolves_to_its_typed_call(name: str) -> None:
    op = SPEC[name]
    for example in op.get("examples", []):
        for engine in op["engines"]:
            call = ops.resolve(directive(f"[{engine} {name} {json.dumps(example)}]"))
            assert call.OP == name
            assert call.to_dict() == example
            assert type(call).__name__.endswith("Args")


@pytest.mark.parametrize("name", [k for k, v in SPEC.items() if not runnable(v)])
def test_an_incomplete_op_never_runs(name: str) -> None:
    with pytest.raises(ops.ResolveError) as e:
        ops.resolve_parts(SPEC[name]["engines"][0], name, {})
    assert (e.value.kind, e.value.op, e.value.errors) == ("incomplete", name, [])
    assert SPEC[name]["missing"] in e.value.message


def test_each_error_kind_comes_back_with_rusts_fields() -> None:
    cases = [
        ("[TOOL --help {}]", "unknown-op", "--help"),
        ("[TOOL .fs.rm. {}]", "unknown-op", ".fs.rm."),
        ('[TOOL followup.create {"in_m": 0, "prompt": "", "x": 1}]', "invalid-args", "followup.create"),
        ('[DM {"to": "646"}]', "incomplete", "dm.send"),
    ]
    for text, kind, op in cases:
        with pytest.raises(ops.ResolveError) as e:
            ops.resolve(directive(text))
        assert (e.value.kind, e.value.op, e.value.engine) == (kind, op, "TOOL"), text
    with pytest.raises(ops.ResolveError) as e:
        ops.resolve(directive('[TOOL followup.create {"in_m": 0, "prompt": ""}]'))
    assert [(a.pointer, a.message) for a in e.value.errors] == [
        ("/in_m", "0 is less than the minimum of 1"),
        ("/prompt", '"" is shorter than 1 character'),
    ]
    with pytest.raises(ops.ResolveError) as e:
        ops.resolve_parts("SHELL", "tools.list", {})
    assert e.value.kind == "engine-not-allowed"


def test_aliases_resolve_to_their_op() -> None:
    for alias, target in DIRECTIVES["aliases"].items():
        try:
            assert ops.resolve_parts("TOOL", alias, {}).OP == target
        except ops.ResolveError as e:
            assert e.op == target
            assert not runnable(SPEC[target])


def test_tools_list_is_box_docs_tools_json() -> None:
    listed = ops.tools_list()
    assert [(o["name"], o["side_effecting"], o["args"]) for o in listed["ops"]] == [
        (k, v["side_effecting"], v.get("args")) for k, v in SPEC.items()
    ]
    if BOX_DOCS.exists():
        out = subprocess.run([str(BOX_DOCS), "tools", "--json"], capture_output=True, text=True, check=True).stdout
        assert json.loads(out) == listed


def _outcome(f: Any) -> Any:
    try:
        return f()
    except ops.ResolveError as e:
        return (e.kind, e.op, e.engine, e.message, e.errors)


def test_native_calls_resolve_as_their_in_band_twins() -> None:
    # P293, P294: every op and alias, by its native name, with each example
    # (and `{}`), as JSON text and as a mapping, answers as the in-band call.
    names = list(SPEC) + list(DIRECTIVES["aliases"])
    for name in names:
        native = ops.NATIVE_NAMES.get(name, name.replace(".", "_"))
        assert native == name.replace(".", "_")
        target = DIRECTIVES["aliases"].get(name, name)
        for args in [*SPEC[target].get("examples", []), {}, {"in_m": 0, "x": 1}]:
            text = json.dumps(args)
            in_band = _outcome(lambda: ops.resolve(directive(f"[{ops.NATIVE_ENGINE} {name} {text}]")))
            assert _outcome(lambda: ops.resolve_native(native, text)) == in_band, (name, args)
            assert _outcome(lambda: ops.resolve_native(native, args)) == in_band, (name, args)
            rendered = ops.render_native(native, args)
            again = directive(rendered)
            assert (again.op, again.written_op, again.args) == (target, name, args)
    with pytest.raises(ops.ResolveError) as e:
        ops.resolve_native("followup.create", "{}")
    assert (e.value.kind, e.value.op) == ("unknown-op", "followup.create")
    with pytest.raises(ops.ResolveError) as e:
        ops.resolve_native("followup_create", "")
    assert (e.value.kind, [a.pointer for a in e.value.errors]) == ("invalid-args", [""])


def test_native_tools_are_box_docs_tools_format() -> None:
    for api in ("openai", "anthropic", "mcp"):
        if BOX_DOCS.exists():
            out = subprocess.run([str(BOX_DOCS), "tools", "--format", api], capture_output=True, check=True, text=True)
            assert ops.native_tools(api) == json.loads(out.stdout)  # type: ignore[call-overload]
    listed = [t["name"] for t in ops.native_tools("anthropic")]
    want = [ops.NATIVE_NAMES[n] for n, op in SPEC.items() if runnable(op) and ops.NATIVE_ENGINE in op["engines"]]
    assert listed == want
    with pytest.raises(ValueError):
        ops.native_tools("gemini")  # type: ignore[call-overload]
