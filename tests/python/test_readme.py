"""The README's Python examples, run as written, as `cli/tests/readme.rs`
runs its console blocks: every ```python block is executed, and a comment
after an expression is what it shows (`repr`), or for a `print(...)` what it
prints; a comment ending in `…` gives only the beginning."""

import ast
import contextlib
import io
import re
import tokenize
from pathlib import Path
from typing import Any, Callable

README = Path(__file__).resolve().parents[2] / "README.md"


def blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", README.read_text(encoding="utf-8"), flags=re.S | re.M)


def comments(source: str) -> dict[int, str]:
    """Line number -> the text of the comment on that line."""
    out = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            out[tok.start[0]] = tok.string[1:].strip()
    return out


def agrees(shown: str, expected: str) -> bool:
    if expected.endswith("…"):
        return shown.startswith(expected[:-1].rstrip())
    return shown == expected


class Checks(ast.NodeTransformer):
    """Wraps each commented expression statement (or single-name assignment)
    in a check of its value."""

    def __init__(self, lines: set[int]) -> None:
        self.lines = lines

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        """`name = value  # shown`: the comment shows the value assigned."""
        line = node.end_lineno
        if line not in self.lines or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return node
        check = ast.Expr(ast.Call(ast.Name("_shows", ast.Load()), [ast.Constant(line), ast.Name(node.targets[0].id, ast.Load())], []))
        return [node, ast.fix_missing_locations(ast.copy_location(check, node))]

    def visit_Expr(self, node: ast.Expr) -> ast.AST:
        line = node.end_lineno
        if line not in self.lines:
            return node
        call = node.value
        value: ast.expr
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "print":
            fn, value = "_printed", ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]), body=call)
        else:
            fn, value = "_shows", call
        new = ast.Expr(ast.Call(ast.Name(fn, ast.Load()), [ast.Constant(line), value], []))
        return ast.fix_missing_locations(ast.copy_location(new, node))


def run_block(source: str) -> int:
    expected = comments(source)
    checked: list[int] = []

    def shows(line: int, value: Any) -> None:
        assert agrees(repr(value), expected[line]), f"README line {line} of the block shows {value!r}, not {expected[line]}"
        checked.append(line)

    def printed(line: int, thunk: Callable[[], None]) -> None:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            thunk()
        out = buf.getvalue().rstrip("\n")
        assert agrees(out, expected[line]), f"README line {line} of the block prints {out!r}, not {expected[line]}"
        checked.append(line)

    tree = Checks(set(expected)).visit(ast.parse(source))
    exec(compile(tree, str(README), "exec"), {"_shows": shows, "_printed": printed})
    assert sorted(checked) == sorted(expected), f"comments not checked: {sorted(set(expected) - set(checked))}"
    return len(checked)


def test_every_python_example_of_the_readme_shows_what_it_says() -> None:
    found = blocks()
    assert len(found) >= 2
    # Each block shows something, and every comment in it was checked (run_block).
    assert all(run_block(b) > 0 for b in found)
