"""The tests run against the installed package (``cargo xtask test`` builds
``generated/python`` with its native module into ``.tools/venv`` first), so
they see what a user's ``pip install generated/python`` gives. A package
installed from other sources than ``generated/python`` stops the run: the
tests would otherwise pass or fail on old code."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def pytest_configure(config: pytest.Config) -> None:
    try:
        import agent_sentences
    except ImportError as e:
        pytest.exit(f"agent_sentences is not installed ({e}): run `cargo xtask test`, which builds it", returncode=2)
    installed = Path(agent_sentences.__file__).resolve().parent
    source = ROOT / "generated" / "python" / "agent_sentences"
    if installed == source.resolve():
        pytest.exit("agent_sentences was imported from generated/python, which has no native module: run `cargo xtask test`", returncode=2)
    stale = [p.name for p in sorted(source.glob("*.py*")) if not (installed / p.name).exists() or (installed / p.name).read_bytes() != p.read_bytes()]
    if stale:
        pytest.exit(f"the installed agent_sentences ({installed}) differs from generated/python in {stale}: run `cargo xtask test`", returncode=2)
