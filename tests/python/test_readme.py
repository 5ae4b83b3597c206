"""The Python examples of the README and the guide (their ```pycon blocks) run
as doctests against the installed package, so the documentation shows what the
package does."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]


def test_documentation_python_examples_run() -> None:
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    pages_with_examples = 0
    for page in PAGES:
        name = str(page.relative_to(ROOT))
        blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
        pages_with_examples += bool(blocks)
        for i, block in enumerate(blocks):
            test = parser.get_doctest(block, {}, f"{name} pycon block {i + 1}", name, 0)
            runner.run(test)
    results = runner.summarize(verbose=False)
    assert pages_with_examples >= 6, "the README and the guide have Python examples"
    assert results.attempted >= 20 and results.failed == 0, results
