"""The README's Python examples (its ```pycon blocks) run as doctests against
the installed package, so the README shows what the package does."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)


def test_readme_python_examples_run() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = BLOCK.findall(readme)
    assert len(blocks) >= 2, "the README has Python examples"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {}, f"README.md pycon block {i + 1}", "README.md", 0)
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.attempted >= 10 and results.failed == 0, results
