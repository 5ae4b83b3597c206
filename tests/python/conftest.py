"""Puts the generated package (generated/python) first on sys.path, so the
tests run the package as generated, without installing it."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "generated" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
