"""The Python package as a user meets it: installation, imports, typing, and
the behaviours only Python can show (lone surrogates, non-JSON values)."""

from __future__ import annotations

import doctest
import importlib.metadata
import json
import math
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

import agent_sentences as A
from agent_sentences import strict_json

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "generated" / "python"


def test_patterns_are_the_spec_patterns_with_flags_inline() -> None:
    with (ROOT / "schema" / "regex_patterns.json").open(encoding="utf-8") as f:
        spec = json.load(f)["patterns"]
    letters = {"MULTILINE": "m", "DOTALL": "s"}
    trailer = "[\\t\\n\\r ]*"
    assert [key for key, _ in A.patterns.ALL] == list(spec)
    for (key, got), p in zip(A.patterns.ALL, spec.values()):
        flags = "".join(sorted(letters[f] for f in p["flags"]))
        written = (f"(?{flags})" if flags else "") + p["pattern"]
        free = [g for g, d in p["groups"].items() if "runs_until" in d]
        if not free:
            assert got == written, key
            continue
        # A free-text group is written empty at the end (`(?P<summary>)`);
        # the generator writes its body and the trailer (codegen/src/free_text.rs),
        # which the examples and the vectors check.
        (group,) = free
        hole = f"(?P<{group}>)"
        assert written.endswith(hole), key
        assert got.startswith(written[: -len(hole) + len(f"(?P<{group}>")]), key
        assert got.endswith(")" + trailer) and len(got) > len(written) + len(trailer), key
    assert A.patterns.COMPILED["ack"].pattern == A.patterns.ACK


@pytest.mark.parametrize(
    "module", [A, A.scanner, A.stream, A.strict_json, A.ops, A.envelope], ids=["package", "scanner", "stream", "strict_json", "ops", "envelope"]
)
def test_docstring_examples_run(module: Any) -> None:
    result = doctest.testmod(module, raise_on_error=False, verbose=False)
    assert result.attempted >= 2 and result.failed == 0


def test_lone_surrogates_are_rejected_with_a_byte_offset() -> None:
    with pytest.raises(A.ParseError) as e:
        A.Decline.parse("[DECLINE 7f] é\ud800")
    assert (e.value.structure, e.value.offset) == ("decline", 15)
    assert isinstance(e.value.kind, A.NoMatch) and "surrogate" in e.value.kind.expected
    with pytest.raises(A.ParseError) as e:
        A.parse("[ACK:\udc00]")
    assert (e.value.structure, e.value.closest, e.value.offset) == (None, None, 5)


def test_offsets_are_utf8_bytes_and_convert_to_indexes() -> None:
    text = "[fleet-alert] CRITICAL: Überlast 🔥\nnext"
    with pytest.raises(A.ParseError) as e:
        A.FleetAlert.parse(text)
    assert e.value.offset == 38
    assert A.char_offset(text, e.value.offset) == text.index("\n")
    assert A.byte_offset(text, text.index("\n")) == 38
    assert str(e.value) == "not a `fleet_alert` sentence: the text stopped fitting at byte 38: expected the end of the text"


def test_parse_errors_compare_and_serialize() -> None:
    with pytest.raises(A.ParseError) as e:
        A.Claim.parse("[ACK 7fce46e0]")
    assert e.value == A.ParseError("claim", None, 1, A.FixedMismatch("verb", "CLAIM", "ACK"))
    assert e.value.to_dict() == {"structure": "claim", "closest": None, "offset": 1, "kind": "fixed_mismatch", "group": "verb", "expected": "CLAIM", "found": "ACK"}
    assert isinstance(e.value, ValueError)


@pytest.mark.parametrize(
    "value",
    [
        {1: "int key"},
        {"a": (1, 2)},
        {"a": math.nan},
        {"a": math.inf},
        {"a": 2**64},
        {"a": -(2**63) - 1},
        {"a": "\ud800"},
        {"\udfff": 1},
        {"a": {1, 2}},
    ],
    ids=["int-key", "tuple", "nan", "inf", "int-too-big", "int-too-small", "surrogate-value", "surrogate-key", "set"],
)
def test_values_rust_could_not_hold_are_not_rendered(value: dict[Any, Any]) -> None:
    call = A.ToolCall(op="a.b", args_json=value)
    with pytest.raises(A.JsonError):
        call.render()


def test_json_rendering_matches_json_dumps_and_reads_back() -> None:
    value = {"a": [1, 2.5, -0.0, None, True], "é": {"x": "\n\u2028"}, "big": 2**64 - 1, "f": 1e16}
    text = strict_json.render_object(value)
    assert text == json.dumps(value, ensure_ascii=False)
    assert strict_json.parse_object(text) == value


def test_to_dict_copies_json_objects() -> None:
    call = A.ToolCall.parse('[TOOL a.b {"x": [1]}]')
    d = call.to_dict()
    d["args_json"]["x"].append(2)
    assert call.args_json == {"x": [1]}


def test_depth_limit() -> None:
    ok = '{"a": ' * 63 + "{}" + "}" * 63
    assert strict_json.parse_object(ok)
    with pytest.raises(A.JsonError, match="deeper than 64"):
        strict_json.parse_object('{"a": ' * 64 + "{}" + "}" * 64)
    with pytest.raises(A.JsonError):
        strict_json.parse_object("[" * 100000 + "]" * 100000)


def test_every_structure_has_metadata_and_a_parser() -> None:
    assert [k.key for k in A.KINDS] == list(A.PARSERS)
    for kind in A.KINDS:
        value = A.PARSERS[kind.key](kind.example_sentence)
        assert value.KIND is kind and A.kind_from_key(kind.key) is kind
        assert value.render() == kind.example_sentence
        assert [f.name for f in kind.fields] == list(value.to_dict())
    assert A.kind_from_key("nope") is None


def test_messages_write_the_article_of_every_structure() -> None:
    # P282: "a `ack` sentence" was written; the article follows the key's first letter.
    for kind in A.KINDS:
        with pytest.raises(A.ParseError) as e:
            A.PARSERS[kind.key]("\x01")
        article = "an" if kind.key[0] in "aeiou" else "a"
        assert str(e.value).startswith(f"not {article} `{kind.key}` sentence: "), str(e.value)


def test_the_wheel_holds_the_license() -> None:
    # P287: the licence's text, not only the `License-Expression`.
    files = importlib.metadata.distribution("agent-sentences").files or []
    (license_file,) = [f for f in files if f.name == "LICENSE"]
    assert license_file.read_text().startswith("MIT License\n")


def test_the_source_folder_alone_says_how_to_install(tmp_path: Path) -> None:
    # generated/python/agent_sentences has no compiled module: importing it says what to do.
    shutil.copytree(PACKAGE / "agent_sentences", tmp_path / "agent_sentences")
    out = subprocess.run([sys.executable, "-E", "-s", "-c", "import agent_sentences"], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 1
    assert "pip install generated/python" in out.stderr.splitlines()[-1], out.stderr


def test_a_copy_of_the_installed_package_next_to_a_script_needs_no_install(tmp_path: Path) -> None:
    shutil.copytree(Path(A.__file__).parent, tmp_path / "agent_sentences", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "reply.py").write_text(
        "import agent_sentences\n"
        "print(agent_sentences.parse('[RESULT 7fce46e0] OK done').to_sentence_dict())\n"
        "print([f.kind for f in agent_sentences.scan('[CLAIM 7f] [DM {}]')])\n",
        encoding="utf-8",
    )
    # -E -s: no PYTHONPATH, no user site: only the script's own directory.
    out = subprocess.run([sys.executable, "-E", "-s", "reply.py"], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [
        "{'structure': 'result', 'job_id': '7fce46e0', 'summary': 'done', 'status': 'OK'}",
        "['sentence', 'directive']",
    ]


def test_the_installed_package_is_typed_abi3_and_versioned() -> None:
    installed = Path(A.__file__).parent
    assert (installed / "py.typed").is_file() and (installed / "_native.pyi").is_file()
    (native,) = [p.name for p in installed.iterdir() if p.name.startswith("_native.") and p.suffix in (".so", ".pyd")]
    assert native in ("_native.abi3.so", "_native.pyd"), native
    with (ROOT / "schema" / "structures.json").open(encoding="utf-8") as f:
        version = json.load(f)["version"]
    assert importlib.metadata.version("agent-sentences") == version == A.__version__


def test_pip_builds_an_abi3_wheel(tmp_path: Path) -> None:
    # What docs/guide/python.md shows; cargo reuses the release build the install made.
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), str(PACKAGE)],
        check=True,
        capture_output=True,
        env={**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])},
    )
    (wheel,) = tmp_path.glob("*.whl")
    assert wheel.name.startswith(f"agent_sentences-{A.__version__}-cp311-abi3-"), wheel.name
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
    assert {"agent_sentences/py.typed", "agent_sentences/_native.pyi", "agent_sentences/scanner.py"} <= names
    assert f"agent_sentences-{A.__version__}.dist-info/licenses/LICENSE" in names, names
    assert any(n.startswith("agent_sentences/_native.") and n.endswith((".so", ".pyd")) for n in names), names


def test_the_harvest_is_installed_as_a_console_script() -> None:
    # P214: `agent-sentences-harvest` beside the interpreter the package is installed for.
    (script,) = [e for e in importlib.metadata.entry_points(group="console_scripts") if e.name == "agent-sentences-harvest"]
    assert script.value == "agent_sentences.harvest:main"
    path = Path(sys.executable).parent / ("agent-sentences-harvest.exe" if os.name == "nt" else "agent-sentences-harvest")
    done = subprocess.run([str(path), "--help"], capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "--out" in done.stdout, done.stderr
