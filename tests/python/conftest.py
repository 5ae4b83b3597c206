"""Puts the generated package (generated/python) first on sys.path, so the
tests run the package as generated, without installing it."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "generated" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_collection_modifyitems(config: object, items: list) -> None:  # type: ignore[type-arg]
    """`test_scan.py::test_grammar_comes_from_the_spec` compares each scan
    source with the spec's raw pattern text, which a free-text group's
    `runs_until` no longer is (the generator writes the group's body, P91);
    `test_package.py::test_patterns_are_the_spec_patterns_with_flags_inline`
    checks the expansion instead. `test_scan.py` is being replaced with the
    native scanner's tests (issue 13 leaves the file as it is), so the case is
    marked as an expected failure here rather than edited."""
    import pytest

    for item in items:
        if item.nodeid.endswith("test_scan.py::test_grammar_comes_from_the_spec"):
            item.add_marker(pytest.mark.xfail(reason="raw spec pattern vs. runs_until expansion (P91)", strict=True))
