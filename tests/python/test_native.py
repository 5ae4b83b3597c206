"""The native module behind the package: the Python objects are Rust's values
(compared in process with the Rust crate's own serde JSON, for every scan vector
and for random texts), ``scan_many`` is ``scan`` of each text in order, the
scan runs with the interpreter released, and the types the package declares
are the ones mypy sees."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import agent_sentences as A
import scan_props
import vectors
from agent_sentences import _native

RANDOM_TEXTS = 3000
SEED = 20261202
MIB = 1 << 20


def python_answer(text: str) -> dict[str, Any]:
    found, skipped = A.scan_with_diagnostics(text)
    return {"found": [f.to_dict() for f in found], "skipped": [s.to_dict() for s in skipped]}


def rust_answer(text: str) -> dict[str, Any]:
    answer: dict[str, Any] = json.loads(_native.scan_json(text))
    return answer


def random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = [scan_props.random_text(rng) if i % 2 else scan_props.mutated_message(rng) for i in range(n)]
    return [t for t in texts if not any("\ud800" <= c <= "\udfff" for c in t)]


@pytest.mark.parametrize("case", [c for _, c in vectors.load("scan")], ids=[n for n, _ in vectors.load("scan")])
def test_python_objects_are_rusts_values_for_every_vector(case: dict[str, Any]) -> None:
    assert python_answer(case["input"]) == rust_answer(case["input"])


def test_python_objects_are_rusts_values_for_random_texts() -> None:
    texts = random_texts(RANDOM_TEXTS, SEED)
    items = 0
    for text in texts:
        rust = rust_answer(text)
        assert python_answer(text) == rust, text
        items += len(rust["found"]) + len(rust["skipped"])
    # The texts hold many items of both kinds.
    assert items > len(texts), items


def test_a_wrong_conversion_would_be_seen() -> None:
    # The comparison reads every field: a sentence with one field changed differs.
    text = "[TOOL x.y {\"n\": 18446744073709551615, \"f\": -0.0}] [RESULT a1] OK done"
    got, want = python_answer(text), rust_answer(text)
    assert got == want
    got["found"][1]["value"]["status"] = "FAIL"
    assert got != want
    # Integers beyond i64 and negative zero keep their value and type.
    call = A.scan(text)[0].item
    assert isinstance(call, A.ToolDirective)
    args = call.args
    assert isinstance(args, dict) and args["n"] == 2**64 - 1 and str(args["f"]) == "-0.0"


def test_sentences_are_the_package_dataclasses() -> None:
    found = A.scan("[NUDGE 7f] [nudge 1/3] Deadline 19:45\n[WO:7fce46e0] [from super] Audit — check endpoints")
    assert [type(f.item) for f in found] == [A.Nudge, A.WorkOrder]
    assert found[1].item == A.WorkOrder.parse("[WO:7fce46e0] [from super] Audit — check endpoints")
    nudge = found[0].item
    assert isinstance(nudge, A.Nudge) and (nudge.count, nudge.max_nudges) == (1, 3)
    with pytest.raises(AttributeError):
        nudge.count = 2  # type: ignore[misc]  # frozen, as parse() builds it
    # Every structure's example, scanned, is the parsed sentence.
    for kind in A.KINDS:
        if kind.key in A.SCAN_SOURCES:
            (f,) = A.scan(kind.example_sentence)
            assert f.item == A.PARSERS[kind.key](kind.example_sentence), kind.key


def test_results_are_plain_lists_of_the_package_dataclasses() -> None:
    # P253: no lazy sequence; what the signatures say, and every list operation.
    text = "[CLAIM 1] then [DM {}]"
    found = A.scan(text)
    assert type(found) is list and [type(f) for f in found] == [A.Found, A.Found]
    assert [type(f.span) for f in found] == [A.Span, A.Span] and type(found[1].item) is A.ToolDirective
    assert found == A.scan(text) and found + [] == found and found[::-1][0] == found[1]
    many = A.scan_many([text, ""])
    assert type(many) is list and [type(x) for x in many] == [list, list] and many == [found, []]
    items, skipped = A.scan_with_diagnostics("[TOOL a.b {]")
    assert (type(items), type(skipped), [type(s) for s in skipped]) == (list, list, [A.Skipped])


def test_scan_many_is_scan_of_each_text_in_order() -> None:
    texts = random_texts(800, SEED + 1) + ["", "[CLAIM 1]", "é" * 1000 + "[ACK 7f]"]
    many = A.scan_many(texts)
    assert [[f.to_dict() for f in found] for found in many] == [[f.to_dict() for f in A.scan(t)] for t in texts]
    with_diagnostics = A.scan_many_with_diagnostics(texts)
    assert [(len(f), len(s)) for f, s in with_diagnostics] == [(len(f), len(s)) for f, s in map(A.scan_with_diagnostics, texts)]
    assert A.scan_many(iter(["[CLAIM 1]"]))[0][0].item == A.Claim(job_id="1")
    assert A.scan_many([]) == []


def test_scan_many_reports_the_first_text_with_a_lone_surrogate() -> None:
    with pytest.raises(A.ParseError) as e:
        A.scan_many(["[CLAIM 1]", "é [CLAIM 1] \udc00", "\ud800"])
    assert (e.value.structure, e.value.offset) == (None, 13)
    assert e.value.__notes__ == ["in texts[1]"]
    with pytest.raises(TypeError):
        A.scan_many(["ok", b"bytes"])  # type: ignore[list-item]


def _runs_another_thread(call: Any, attempts: int = 20) -> bool:
    """Whether another Python thread, waiting for the interpreter, gets it while
    ``call`` runs (up to ``attempts`` calls). The switch interval is made so
    long that the interpreter changes hands only where it is released: the
    waiting thread then runs only inside a call that releases it, since nothing
    else this thread does between the calls releases it."""
    ready, go, ran = threading.Event(), threading.Event(), threading.Event()

    def wait_then_run() -> None:
        ready.set()
        go.wait()
        ran.set()

    old = sys.getswitchinterval()
    thread = threading.Thread(target=wait_then_run)
    thread.start()
    ready.wait()  # Now the thread waits for `go`, the interpreter released.
    sys.setswitchinterval(1000.0)
    try:
        go.set()  # The thread now waits for the interpreter.
        for _ in range(attempts):
            call()
            if ran.is_set():
                break
        return ran.is_set()
    finally:
        sys.setswitchinterval(old)
        thread.join()


def test_the_scan_releases_the_interpreter() -> None:
    # A long nudge deadline takes Rust's slowest capture engine a while: the
    # waiting thread is handed the interpreter while it runs.
    text = "[NUDGE a] [nudge 1/3] Deadline " + "a " * (4 * MIB)
    assert _runs_another_thread(lambda: A.scan(text))
    assert _runs_another_thread(lambda: A.scan_many([text, text]))
    # The check itself: a call that holds the interpreter runs no other thread.
    big = "a" * (64 * MIB)
    assert not _runs_another_thread(lambda: big.count("b"), attempts=3)


def test_parse_object_is_the_rust_reader() -> None:
    # The scanner's reader and parse_object agree on every candidate object.
    rng = random.Random(SEED + 2)
    pieces = ['"a"', '"b"', "1", "-0", "1e400", "01", "[", "]", "{", "}", ",", ":", " ", '"\\u00e9"', '"\\ud800"', "true", "nul"]
    agreed = accepted = 0
    for _ in range(5000):
        body = "{" + "".join(rng.choice(pieces) for _ in range(rng.randrange(8))) + "}"
        try:
            value: dict[str, Any] | None = A.parse_object(body, max_bytes=A.LIMITS.max_bytes)
        except A.JsonError:
            value = None
        call = f"[TOOL a.b {body}]"
        found = A.scan(call)
        whole = len(found) == 1 and (found[0].span.start, found[0].span.end) == (0, len(call.encode("utf-8")))
        scanned = found[0].item.args if whole and isinstance(found[0].item, A.ToolDirective) else None
        assert value == scanned, body
        agreed += 1
        accepted += value is not None
    assert agreed == 5000 and 100 < accepted < 4900, accepted
    with pytest.raises(A.JsonError) as e:
        A.parse_object('{"a": 1, "a": 2}')
    assert e.value.message.startswith("duplicate key `a`")
    with pytest.raises(A.JsonError, match="surrogate"):
        A.parse_object('{"a": "\ud800"}')
    with pytest.raises(A.JsonError, match="longer than 10 bytes"):
        A.parse_object('{"a": "0123456789"}', max_bytes=10)
    assert A.parse_object('{"a": [[1]]}', max_depth=3) == {"a": [[1]]}
    with pytest.raises(A.JsonError):
        A.parse_object('{"a": [[1]]}', max_depth=2)


def test_the_declared_types_are_what_mypy_checks() -> None:
    """The package's types are real: mypy --strict rejects misuse of what scan returns."""
    mypy_api = pytest.importorskip("mypy.api")
    code = (
        "from agent_sentences import scan, scan_many, parse_object\n"
        "n: int = scan('x')\n"
        "s: str = scan_many(['x'])[0][0].span.start\n"
        "d: list[int] = parse_object('{}')\n"
        "ok: int = scan('x')[0].span.char_end\n"
    )
    out, _, status = mypy_api.run(["--strict", "--no-incremental", "-c", code])
    assert status == 1 and out.count("error:") == 3, out
    assert all(f"<string>:{line}:" in out for line in (2, 3, 4)), out


def test_the_private_module_matches_its_stub() -> None:
    stub = (Path(A.__file__).parent / "_native.pyi").read_text(encoding="utf-8")
    public = sorted(name for name in dir(_native) if not name.startswith("_"))
    declared = sorted({line.split("(")[0].split(":")[0].split()[-1] for line in stub.splitlines() if line.startswith(("def ", "class ", "LIMITS"))})
    assert public == declared
    assert _native.LIMITS == (A.LIMITS.max_depth, A.LIMITS.max_bytes)


def test_scan_many_works_in_a_process_forked_after_a_batch() -> None:
    # The rayon threads of the parent do not exist in a forked child: the child
    # makes its own pool instead of waiting on them forever.
    A.scan_many(["[CLAIM 1]"] * 10)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover  (the child)
        try:
            import signal

            signal.alarm(20)
            n = sum(len(f) for f in A.scan_many(["[CLAIM 1]"] * 100))
            os.write(write, str(n).encode())
        finally:
            os._exit(0)
    os.close(write)
    _, status = os.waitpid(pid, 0)
    assert os.read(read, 100) == b"100" and status == 0


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_scan_many_is_scan_of_each_text_with_any_pool_size(threads: int) -> None:
    # The calling thread scans beside the pool's threads but one: with one pool
    # thread it scans every chunk itself; with more threads than cores, chunks
    # finish out of order and each is still built at its texts' places.
    child = (
        "import json, sys\n"
        "import agent_sentences as A\n"
        "texts = json.load(sys.stdin)\n"
        "print(json.dumps([[f.to_dict() for f in found] for found in A.scan_many(texts)]))\n"
    )
    # Texts of very different lengths, so that chunks take very different times.
    texts = random_texts(600, SEED + 5) + ["[CLAIM 9] " * 5000] + random_texts(600, SEED + 6)
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, "-c", child], input=json.dumps(texts), capture_output=True, text=True, env=env, check=True, timeout=120)
    assert json.loads(out.stdout) == [[f.to_dict() for f in A.scan(t)] for t in texts]


def test_a_long_batch_gives_other_python_threads_their_turns() -> None:
    # The calling thread builds every object, holding the interpreter; with more
    # scan threads than it can keep up with, the built chunks queue and it builds
    # them back to back. It must still let another Python thread run every few
    # switch intervals (it blocked one for 0.96 s of a 1.1 s call, and for
    # 0.26 s when it released the interpreter after every chunk: too often for
    # a waiting thread to ask for it). Counted in objects, not seconds: the other
    # thread notes the interpreter's allocated blocks at each of its turns, and
    # the most built between two turns must be a small part of the batch's
    # objects (a slower or busier machine builds fewer objects a switch
    # interval, so load only makes it smaller).
    tiny = ["", "x", "[CLAIM 1]", "\u00e9[CLAIM 1]", "[ACK 7f] \u00e9 [CLAIM 7f]", "hello world"]
    copies = 1_000_000 // len(tiny)
    child = (
        "import gc, sys, threading\n"
        "import agent_sentences as A\n"
        "gc.disable()\n"
        "sys.setswitchinterval(0.005)\n"
        f"tiny = {tiny!r}\n"
        f"texts = tiny * {copies}\n"
        "gap, stop, turns, started = [0], threading.Event(), [0], threading.Event()\n"
        "def tick():\n"
        "    last = sys.getallocatedblocks(); started.set()\n"
        "    while not stop.is_set():\n"
        "        now = sys.getallocatedblocks(); gap[0] = max(gap[0], now - last); last = now; turns[0] += 1\n"
        "t = threading.Thread(target=tick); t.start(); started.wait()\n"
        "before = sys.getallocatedblocks(); found = A.scan_many(texts); built = sys.getallocatedblocks() - before\n"
        "stop.set(); t.join()\n"
        "print(gap[0], built, sum(map(len, found)))\n"
    )
    env = dict(os.environ, RAYON_NUM_THREADS="7")
    out = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, check=True, timeout=120)
    gap, built, found = map(int, out.stdout.split())
    assert found == copies * sum(len(A.scan(t)) for t in tiny)
    assert built > 2 * found, "the batch built its objects"
    assert gap < built // 7, (gap, built)


def test_scan_many_raises_the_error_a_loop_of_scan_would_raise_first() -> None:
    # The first bad item decides, as in [scan(t) for t in texts], and is named.
    with pytest.raises(A.ParseError) as e:
        A.scan_many(["a"] * 10 + ["\ud800"] + ["b"] * 9 + [5])  # type: ignore[list-item]
    assert e.value.__notes__ == ["in texts[10]"]
    with pytest.raises(TypeError, match="a text must be a str, not int") as t:
        A.scan_many_with_diagnostics(["a", 5, "\ud800"])  # type: ignore[list-item]
    assert t.value.__notes__ == ["in texts[1]"]
    # Bytes are not a batch of integers.
    with pytest.raises(TypeError, match="not bytes"):
        A.scan_many(b"[CLAIM 1]")  # type: ignore[arg-type]


def test_hostile_arguments_get_the_documented_errors() -> None:
    # A str is one text, not a batch of characters.
    with pytest.raises(TypeError, match="not one str"):
        A.scan_many("[CLAIM 1]")

    class Sneaky(str):
        def encode(self, *args: Any, **kwargs: Any) -> bytes:  # type: ignore[override]
            return b""

    with pytest.raises(A.ParseError) as e:
        A.scan(Sneaky("a\ud800"))
    assert e.value.offset == 1
    with pytest.raises(A.ParseError):
        A.scan_many([Sneaky("\ud800")])
    for depth in (0, -1, 128, 2**70):
        with pytest.raises(ValueError, match="max_depth must be 1 to 127"):
            A.parse_object("{}", max_depth=depth)
    with pytest.raises(ValueError, match="max_bytes"):
        A.parse_object("{}", max_bytes=-1)
    assert A.parse_object('{"a":' * 126 + "1" + "}" * 126, max_depth=127)
    # Only the package's dataclasses can be registered (objects are built
    # without __init__, so a foreign type could crash the interpreter).
    with pytest.raises(TypeError, match="not a dataclass"):
        _native.register(type, A.Found, A.ToolDirective, A.Skipped, {})
    with pytest.raises(RuntimeError, match="registered already"):
        _native.register(A.Span, A.Found, A.ToolDirective, A.Skipped, {})


def test_a_span_whose_str_indexes_are_its_byte_offsets_holds_each_int_once() -> None:
    # Before a text's first non-ASCII character a str index is its byte offset:
    # the same int object serves both (two allocations fewer per item, which is
    # most of a small call's result); after it, the indexes are their own.
    text = "x" * 300 + "[CLAIM 1] é [CLAIM 2]"
    first, second = (f.span for f in A.scan(text))
    assert (first.start, first.char_start) == (300, 300)
    assert first.char_start is first.start and first.char_end is first.end
    assert (second.start - second.char_start, second.end - second.char_end) == (1, 1)
    assert second.char_start is not second.start


def test_scanning_a_large_non_ascii_text_leaves_no_copy_in_it() -> None:
    # CPython caches a str's UTF-8 inside the str once asked for it; past 1 Mi
    # characters the scanner encodes a temporary copy instead (P115), so a
    # large scanned text costs no more memory afterwards.
    import gc
    import tracemalloc

    text = "é [CLAIM 1] " * (1 << 19)  # 6.3 Mi characters, 6.8 MB of UTF-8
    tracemalloc.start()
    try:
        found = A.scan(text)
        del found
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert current < 1 << 20, current


def test_ctrl_c_stops_a_batch_between_chunks() -> None:
    import _thread
    import signal

    # Python's own SIGINT handler, whatever a test before installed.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        _ctrl_c_stops_a_batch(_thread.interrupt_main)
    finally:
        signal.signal(signal.SIGINT, previous)


def _ctrl_c_stops_a_batch(interrupt_main: Any) -> None:
    # Counted in objects, not seconds: a watching thread sends the interrupt once
    # the batch has built one text's objects, and notes the most objects alive
    # until the batch stops. Interrupted, it stops once the chunk being built or
    # scanned here is done (a chunk is 3000 / (16 x cores) texts), far short of
    # the whole batch, which would build every text's objects (then raise).
    texts = ['[DM {"to": "x"}] ' * 500] * 3000
    before = sys.getallocatedblocks()
    sample = A.scan_many(texts[:60])
    per_text = (sys.getallocatedblocks() - before) // 60
    del sample
    assert per_text > 500, per_text
    stop, watching = threading.Event(), threading.Event()
    peak, sent = [0], [False]

    def watch() -> None:
        base = sys.getallocatedblocks()
        watching.set()
        while not stop.is_set():
            grown = sys.getallocatedblocks() - base
            peak[0] = max(peak[0], grown)
            if not sent[0] and grown > per_text:
                sent[0] = True
                interrupt_main()

    thread = threading.Thread(target=watch)
    thread.start()
    watching.wait()
    try:
        with pytest.raises(KeyboardInterrupt):
            A.scan_many(texts)
    finally:
        stop.set()
        thread.join()
    assert sent[0]
    assert peak[0] < per_text * len(texts) // 2, (peak[0], per_text)


def test_a_str_subclass_runs_none_of_its_own_methods_when_scanned() -> None:
    # The scanner reads a text through CPython's own str functions, so a
    # subclass's __len__ or isascii never runs, and scan_many's first error is
    # the loop's (a raising __len__ used to come before an int at texts[1]).
    class Loud(str):
        def __len__(self) -> int:
            raise ValueError("__len__ called")

        def isascii(self) -> bool:
            raise ValueError("isascii called")

    small = Loud("[CLAIM 1] é")
    # Past the cached-UTF-8 limit, where the scanner asks whether it is ASCII.
    big = Loud("x" * (1 << 20) + " [CLAIM 2]")
    assert [f.span.char_start for f in A.scan(small)] == [0]
    assert [f.span.char_start for f in A.scan(big)] == [(1 << 20) + 1]
    assert A.scan_many([small, big] * 3) == [A.scan(small), A.scan(big)] * 3
    with pytest.raises(TypeError, match="not int") as e:
        A.scan_many([small, 5])  # type: ignore[list-item]
    assert e.value.__notes__ == ["in texts[1]"]


def test_a_batch_survives_an_infinite_switch_interval() -> None:
    # The interval is read from sys.getswitchinterval(), which code may patch.
    texts = ["[CLAIM 1] " * 100] * 100
    original = sys.getswitchinterval
    try:
        for interval in (float("inf"), float("nan"), -1.0):
            sys.getswitchinterval = lambda interval=interval: interval  # type: ignore[assignment]
            assert A.scan_many(texts) == [A.scan(t) for t in texts]
    finally:
        sys.getswitchinterval = original  # type: ignore[assignment]
