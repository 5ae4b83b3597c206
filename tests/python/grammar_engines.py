"""The grammar engines that serve models, as the grammar tests drive them:
each compiles a generated grammar text for a byte vocabulary (256 one-byte
tokens and an end token) and gives matchers whose masks a random "model"
samples from (P304).

- llguidance (``LLGUIDANCE``): the Lark files as they are, the GBNF files
  through llguidance's own ``gbnf_to_lark`` (what vLLM's ``guidance``
  backend does with a GBNF grammar);
- xgrammar (``XGRAMMAR``), vLLM's and SGLang's default backend: its compiled
  matcher, the Lark files through ``Grammar.from_lark`` and the GBNF files
  through ``Grammar.from_ebnf``. Its Python layer imports torch and
  transformers only for tensor and tokenizer helpers these tests do not use:
  the pinned wheel is installed without them and gets empty stand-ins while it
  is imported (masks are NumPy arrays, which its matcher reads through DLPack);
- llama.cpp's reading of GBNF (``llama_gbnf_to_lark``): a port of
  llama.cpp's grammar parser (``src/llama-grammar.cpp``: escapes, classes,
  repetitions, comments) that writes what it read as Lark for llguidance, so
  the corpus checks the language llama.cpp reads from the file.
"""

from __future__ import annotations

import ctypes
import json
import os
import random
import subprocess
import sys
import tarfile
import types
from pathlib import Path
from typing import Any, Protocol

import llguidance
from llguidance.gbnf_to_lark import gbnf_to_lark

EOS = 256
VOCAB = [bytes([i]) for i in range(256)] + [b"<eos>"]


class Matcher(Protocol):
    """One matcher state: the tokens it allows next, and moves."""

    def allowed(self) -> int: ...

    def consume(self, token: int) -> bool: ...


class Engine(Protocol):
    """An engine: compiles a grammar text of a dialect; ``fresh`` gives a
    matcher at the start of the grammar."""

    name: str

    def compile(self, text: str, dialect: str) -> Any: ...

    def fresh(self, compiled: Any) -> Matcher: ...


class _ByteTokens:
    def __init__(self) -> None:
        self.tokens = list(VOCAB)
        self.eos_token_id = EOS
        self.bos_token_id = None
        self.special_token_ids = [EOS]

    def __call__(self, s: str | bytes) -> list[int]:
        return list(s.encode("utf-8") if isinstance(s, str) else s)


LLG_TOKENIZER = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokens()))


class _LlgMatcher:
    def __init__(self, m: Any) -> None:
        self.m = m

    def allowed(self) -> int:
        return int.from_bytes(self.m.compute_bitmask(), "little")

    def consume(self, token: int) -> bool:
        return bool(self.m.consume_token(token))


class Llguidance:
    name = "llguidance"

    def compile(self, text: str, dialect: str) -> Any:
        lark = gbnf_to_lark(text) if dialect == "gbnf" else text
        is_error, messages = llguidance.LLMatcher.validate_grammar_with_warnings(llguidance.LLMatcher.grammar_from_lark(lark), LLG_TOKENIZER)
        if is_error or messages:
            raise ValueError(f"llguidance: {messages}")
        m = llguidance.LLMatcher(LLG_TOKENIZER, lark, log_level=0)
        if m.is_error():
            raise ValueError(m.get_error())
        return m

    def fresh(self, compiled: Any) -> Matcher:
        return _LlgMatcher(compiled.deep_copy())


def _import_xgrammar() -> Any:
    """xgrammar's module, its torch and transformers imports met by empty
    stand-ins that are removed again once it is imported."""
    import numpy  # noqa: F401  (xgrammar's masks)
    import tvm_ffi  # noqa: F401  (imported before the stand-ins: it probes torch)

    added = []
    for name in ("torch", "transformers"):
        try:
            __import__(name)
        except ImportError:
            stub = types.ModuleType(name)

            def __getattr__(attr: str, _stub: types.ModuleType = stub) -> Any:
                if attr.startswith("__"):
                    raise AttributeError(attr)
                value = type(attr, (), {})
                setattr(_stub, attr, value)
                return value

            stub.__getattr__ = __getattr__  # type: ignore[method-assign]
            stub.tensor = lambda *a, **k: None  # type: ignore[attr-defined]
            stub.full = lambda *a, **k: None  # type: ignore[attr-defined]
            sys.modules[name] = stub
            added.append(name)
    try:
        import xgrammar
    finally:
        for name in added:
            del sys.modules[name]
    return xgrammar


class _XgMatcher:
    def __init__(self, xg: Any, m: Any) -> None:
        import numpy

        self.m = m
        self.mask = numpy.zeros((1, (len(VOCAB) + 31) // 32), dtype=numpy.int32)

    def allowed(self) -> int:
        self.m.fill_next_token_bitmask(self.mask)
        return int.from_bytes(self.mask.tobytes(), "little")

    def consume(self, token: int) -> bool:
        return bool(self.m.accept_token(token))


class Xgrammar:
    name = "xgrammar"

    def __init__(self) -> None:
        self.xg = _import_xgrammar()
        info = self.xg.TokenizerInfo(VOCAB, vocab_type=self.xg.VocabType.RAW, vocab_size=len(VOCAB), stop_token_ids=[EOS])
        self.compiler = self.xg.GrammarCompiler(info, cache_enabled=False)

    def compile(self, text: str, dialect: str) -> Any:
        grammar = self.xg.Grammar.from_lark(text) if dialect == "lark" else self.xg.Grammar.from_ebnf(text)
        return self.compiler.compile_grammar(grammar)

    def fresh(self, compiled: Any) -> Matcher:
        return _XgMatcher(self.xg, self.xg.GrammarMatcher(compiled))


# llama.cpp's grammar engine, built from the sources that the pinned
# llama-cpp-python source package ships (its `vendor/llama.cpp`): the
# grammar unit and `llama_grammar/driver.cpp`, compiled once into `.tools/`.
LLAMA_CPP_PYTHON = "0.3.36"
_HERE = Path(__file__).resolve().parent
TOOLS = _HERE.parents[1] / ".tools" / "llama-grammar"


def build_llama_grammar() -> Path:
    """The path of the built engine library, building it when missing:
    ``pip download`` of the pinned source package (no binary, no
    dependencies), its llama.cpp sources extracted, one C++ compile.
    Raises RuntimeError saying which step failed."""
    lib = TOOLS / f"libllama_grammar-{LLAMA_CPP_PYTHON}.so"
    if lib.exists():
        return lib
    TOOLS.mkdir(parents=True, exist_ok=True)
    name = f"llama_cpp_python-{LLAMA_CPP_PYTHON}"
    archive = TOOLS / f"{name}.tar.gz"
    if not archive.exists():
        cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--quiet", "--no-deps"]
        cmd += ["--no-binary", "llama-cpp-python", f"llama-cpp-python=={LLAMA_CPP_PYTHON}", "-d", str(TOOLS)]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0 or not archive.exists():
            raise RuntimeError(f"pip download llama-cpp-python=={LLAMA_CPP_PYTHON}: {done.stderr[-800:]}")
    src = TOOLS / name
    wanted = ("vendor/llama.cpp/src/", "vendor/llama.cpp/include/", "vendor/llama.cpp/ggml/include/")
    with tarfile.open(archive) as tar:
        members = [m for m in tar.getmembers() if m.name.removeprefix(name + "/").startswith(wanted) and m.isfile()]
        tar.extractall(TOOLS, members=members, filter="data")
    root = src / "vendor" / "llama.cpp"
    cxx = os.environ.get("CXX", "c++")
    tmp = lib.with_suffix(".tmp")
    cmd = [cxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-w", f"-I{root / 'src'}", f"-I{root / 'include'}", f"-I{root / 'ggml' / 'include'}"]
    cmd += [str(_HERE / "llama_grammar" / "driver.cpp"), "-o", str(tmp)]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise RuntimeError(f"no C++ compiler ({cxx}): {e}") from e
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {done.stderr[-1500:]}")
    tmp.rename(lib)
    return lib


class _LlamaMatcher:
    def __init__(self, lib: Any, handle: int) -> None:
        self.lib = lib
        self.handle = handle
        self.buf = (ctypes.c_ubyte * (EOS + 1))()

    def __del__(self) -> None:
        self.lib.lg_free(self.handle)

    def allowed(self) -> int:
        self.lib.lg_mask(self.handle, self.buf)
        return sum(1 << t for t in range(EOS + 1) if self.buf[t])

    def consume(self, token: int) -> bool:
        return token == EOS or bool(self.lib.lg_accept(self.handle, token))


class _LlamaGrammar:
    def __init__(self, lib: Any, handle: int) -> None:
        self.lib = lib
        self.handle = handle

    def __del__(self) -> None:
        self.lib.lg_free(self.handle)


class LlamaCpp:
    """llama.cpp's grammar parser and matcher (GBNF only), byte tokens."""

    name = "llama.cpp"

    def __init__(self) -> None:
        lib = ctypes.CDLL(str(build_llama_grammar()))
        lib.lg_new.restype = ctypes.c_void_p
        lib.lg_new.argtypes = [ctypes.c_char_p]
        lib.lg_clone.restype = ctypes.c_void_p
        lib.lg_clone.argtypes = [ctypes.c_void_p]
        lib.lg_free.argtypes = [ctypes.c_void_p]
        lib.lg_mask.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ubyte)]
        lib.lg_accept.argtypes = [ctypes.c_void_p, ctypes.c_int]
        self.lib = lib

    def compile(self, text: str, dialect: str) -> Any:
        if dialect != "gbnf":
            raise ValueError("llama.cpp reads GBNF only")
        handle = self.lib.lg_new(text.encode("utf-8"))
        if not handle:
            raise ValueError("llama.cpp refuses the grammar")
        return _LlamaGrammar(self.lib, handle)

    def fresh(self, compiled: Any) -> Matcher:
        return _LlamaMatcher(self.lib, self.lib.lg_clone(compiled.handle))


def accepts(engine: Engine, compiled: Any, text: str) -> bool:
    """True when ``text`` is a whole text of the grammar: every byte
    allowed, then the end token."""
    m = engine.fresh(compiled)
    for b in text.encode("utf-8"):
        if not m.allowed() >> b & 1 or not m.consume(b):
            return False
    return bool(m.allowed() >> EOS & 1)


def sample(engine: Engine, compiled: Any, rng: random.Random, limit: int = 80, cap: int = 400, steer: bytes = b"") -> bytes | None:
    """A random "model": each step a token drawn uniformly from those the
    engine's mask allows (256 bytes and the end token). Past ``limit`` bytes
    it winds down: the end token whenever allowed, else the next byte of
    ``steer`` (from its start again when one is refused: a reply's verdict
    line) or a closing byte where allowed, else a uniform draw. The bytes of
    a finished text, or None when ``cap`` bytes pass without an end."""
    m = engine.fresh(compiled)
    out = bytearray()
    at = 0
    while len(out) < cap:
        mask = m.allowed()
        choices = [t for t in range(EOS + 1) if mask >> t & 1]
        if not choices:
            return None
        if len(out) < limit:
            t = rng.choice(choices)
        elif mask >> EOS & 1:
            t = EOS
        elif at < len(steer) and mask >> steer[at] & 1:
            t = steer[at]
            at += 1
        else:
            at = 0
            closing = [b for b in CLOSERS if mask >> b & 1]
            t = rng.choice(closing) if closing and rng.random() < 0.5 else rng.choice(choices)
        if t == EOS:
            return bytes(out)
        assert m.consume(t), (engine.name, bytes(out), t)
        out.append(t)
    return None


# Bytes that close a part of a text (a string, an object, a bracket, a fence).
CLOSERS = sorted(set(b'"}]`\n'))


class GbnfError(ValueError):
    """llama.cpp's parser would refuse the text."""


def _is_word(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "-")


def llama_gbnf_to_lark(text: str) -> str:
    """The GBNF ``text`` read the way llama.cpp's grammar parser reads it,
    written as Lark (code points as ``\\u{…}``), or GbnfError where
    llama.cpp refuses it. Rule names keep their spelling, ``-`` as ``_``."""
    src = text
    pos = 0

    def at(i: int = 0) -> str:
        return src[pos + i] if pos + i < len(src) else ""

    def space(newline_ok: bool) -> None:
        nonlocal pos
        while at() in (" ", "\t", "#") or (newline_ok and at() in ("\r", "\n")):
            if at() == "#":
                while at() and at() not in "\r\n":
                    pos += 1
            else:
                pos += 1

    def name() -> str:
        nonlocal pos
        start = pos
        while at() and _is_word(at()):
            pos += 1
        if pos == start:
            raise GbnfError(f"expecting name at {src[pos:pos + 20]!r}")
        return src[start:pos]

    def hexdigits(size: int) -> int:
        nonlocal pos
        digits = src[pos : pos + size]
        if len(digits) != size or any(c not in "0123456789abcdefABCDEF" for c in digits):
            raise GbnfError(f"expecting {size} hex chars at {src[pos:pos + 20]!r}")
        pos += size
        return int(digits, 16)

    def char() -> int:
        nonlocal pos
        if at() == "\\":
            c = at(1)
            pos += 2
            if c in "xuU":
                return hexdigits({"x": 2, "u": 4, "U": 8}[c])
            named = {"t": 9, "r": 13, "n": 10}
            if c in named:
                return named[c]
            if c in '\\"[]-':
                return ord(c)
            raise GbnfError(f"unknown escape \\{c}")
        if not at():
            raise GbnfError("unexpected end of input")
        pos += 1
        return ord(src[pos - 1])

    def lark_cp(cp: int) -> str:
        return f"\\u{{{cp:x}}}"

    def sequence(nested: bool) -> str:
        nonlocal pos
        items: list[str] = []
        while at():
            c = at()
            if c == '"':
                pos += 1
                cps = []
                while at() != '"':
                    if not at():
                        raise GbnfError("unexpected end of input")
                    cps.append(char())
                pos += 1
                items.append(json.dumps("".join(map(chr, cps)), ensure_ascii=False) if cps else '""')
                space(nested)
            elif c == "[":
                pos += 1
                neg = at() == "^"
                if neg:
                    pos += 1
                ranges = []
                while at() != "]":
                    if not at():
                        raise GbnfError("unexpected end of input")
                    lo = char()
                    hi = lo
                    if at() == "-" and at(1) != "]":
                        pos += 1
                        hi = char()
                    ranges.append((lo, hi))
                pos += 1
                body = "".join(lark_cp(a) if a == b else f"{lark_cp(a)}-{lark_cp(b)}" for a, b in ranges)
                if any(a > b for a, b in ranges):
                    # llama.cpp reads an empty range and matches nothing there.
                    body = "".join(lark_cp(a) if a == b else f"{lark_cp(a)}-{lark_cp(b)}" for a, b in ranges if a <= b)
                items.append(f"/[{'^' if neg else ''}{body}]/" if body else ("/[\\s\\S]/" if neg else '/[^\\s\\S]/'))
                space(nested)
            elif _is_word(c):
                items.append(name().replace("-", "_").upper())
                space(nested)
            elif c == "(":
                pos += 1
                space(True)
                inner = alternates(True)
                if at() != ")":
                    raise GbnfError(f"expecting ')' at {src[pos:pos + 20]!r}")
                pos += 1
                items.append(f"({inner})")
                space(nested)
            elif c in "*+?":
                if not items:
                    raise GbnfError("expecting preceding item to */+/?")
                items[-1] += c
                pos += 1
                space(nested)
            elif c == "{":
                pos += 1
                space(nested)
                start = pos
                while at().isdigit():
                    pos += 1
                if pos == start:
                    raise GbnfError("expecting an int")
                lo_s = src[start:pos]
                space(nested)
                if at() == "}":
                    rep = f"{{{lo_s}}}"
                elif at() == ",":
                    pos += 1
                    space(nested)
                    start = pos
                    while at().isdigit():
                        pos += 1
                    hi_s = src[start:pos]
                    space(nested)
                    if at() != "}":
                        raise GbnfError("expecting '}'")
                    rep = f"{{{lo_s},{hi_s}}}"
                else:
                    raise GbnfError("expecting ','")
                pos += 1
                space(nested)
                if not items:
                    raise GbnfError("expecting preceding item to {")
                items[-1] = f"({items[-1]}){rep}"
            else:
                break
        return " ".join(items) if items else '""'

    def alternates(nested: bool) -> str:
        nonlocal pos
        alts = [sequence(nested)]
        while at() == "|":
            pos += 1
            space(True)
            alts.append(sequence(nested))
        return " | ".join(alts)

    rules: list[str] = []
    space(True)
    while at():
        rule = name()
        space(False)
        if src[pos : pos + 3] != "::=":
            raise GbnfError(f"expecting ::= at {src[pos:pos + 20]!r}")
        pos += 3
        space(True)
        body = alternates(False)
        if at() == "\r":
            pos += 2 if at(1) == "\n" else 1
        elif at() == "\n":
            pos += 1
        elif at():
            raise GbnfError(f"expecting newline or end at {src[pos:pos + 20]!r}")
        space(True)
        lark_name = "start" if rule == "root" else rule.replace("-", "_").upper()
        rules.append(f"{lark_name}: {body}")
    out = "\n".join(rules)
    return out.replace(" ROOT", " start")
