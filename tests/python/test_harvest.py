"""`agent_sentences.harvest`: message logs to Parquet, on one machine and on a
local Dask cluster, against what `scan` finds (issue 17)."""

from __future__ import annotations

import errno
import gzip
import io
import json
import os
import pty
import re
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_sentences import ToolDirective, scan, scan_with_diagnostics
from agent_sentences import harvest as hv
from harvest_logs import messages, write_log

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
ds = pytest.importorskip("pyarrow.dataset")

ROOT = Path(__file__).resolve().parents[2]
ROW = ("file", "line", "at", "sender", "kind", "span_start", "span_end", "structure", "op", "fields", "args", "reason", "message")


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def expected_rows(file: str, texts: list[tuple[int, dict[str, Any]]], diagnostics: bool = False) -> list[tuple[Any, ...]]:
    """The rows the harvest must write for `texts` (line, message), from `scan` /
    `scan_with_diagnostics`, one message at a time."""
    rows: list[tuple[Any, ...]] = []
    for line, m in texts:
        text = m["text"]
        found, skipped = scan_with_diagnostics(text) if diagnostics else (scan(text), [])
        items: list[tuple[int, int, tuple[Any, ...]]] = []
        for f in found:
            it = f.item
            if isinstance(it, ToolDirective):
                d = it.to_dict()
                args = d.pop("args")
                items.append((f.span.start, 0, ("directive", f.span.start, f.span.end, None, it.op, dumps(d), dumps(args), None, None)))
            else:
                key = it.to_sentence_dict()["structure"]
                items.append((f.span.start, 0, ("sentence", f.span.start, f.span.end, key, None, dumps(it.to_dict()), None, None, None)))
        for s in skipped:
            items.append((s.span.start, 1, ("skipped", s.span.start, s.span.end, None, None, None, None, s.reason, s.message)))
        items.sort(key=lambda x: (x[0], x[1]))
        rows.extend((file, line, m.get("at"), m.get("from"), *row) for _, _, row in items)
    return rows


def table_rows(table: Any) -> list[tuple[Any, ...]]:
    cols = table.to_pydict()
    return list(zip(*(cols[c] for c in ROW)))


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agent_sentences.harvest", *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_the_core_package_imports_without_pyarrow_or_dask() -> None:
    code = "import sys, agent_sentences, agent_sentences.harvest; sys.exit(any(m in sys.modules for m in ('pyarrow', 'dask', 'distributed')))"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_the_harvest_extra_is_declared() -> None:
    pyproject = (ROOT / "generated/python/pyproject.toml").read_text()
    assert '[project.optional-dependencies]\n' in pyproject
    assert 'harvest = ["pyarrow>=16", "dask>=2024.8", "distributed>=2024.8"]' in pyproject
    assert "dependencies = []\n" in pyproject


def test_the_schema_is_the_documented_one() -> None:
    s = hv.schema()
    assert tuple(s.names) == ROW == tuple(c[0] for c in hv.COLUMNS)
    assert s.metadata == {b"agent_sentences.harvest.schema_version": b"1"}
    doc = hv.__doc__ or ""
    readme = (ROOT / "docs" / "guide" / "harvest.md").read_text()
    for name, kind, _ in hv.COLUMNS:
        assert f"\n{name:<12}  {kind:<8}  " in doc, name
        assert f"| `{name}` | {kind} |" in readme, name
    assert hv.SPARK_SCHEMA.startswith("file string, line bigint, at string, sender string, kind string, span_start bigint")


def test_rows_hold_what_scan_finds_with_diagnostics(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    ms = list(messages(3000, seed=5))
    log.write_text("".join(dumps(m) + "\n" for m in ms))
    summary = hv.harvest([str(log)], str(tmp_path / "out.parquet"), diagnostics=True)
    assert summary.ok and summary.files[0].messages == 3000
    rows = table_rows(pq.read_table(tmp_path / "out.parquet"))
    assert rows == expected_rows(str(log), list(enumerate(ms, 1)), diagnostics=True)
    assert {r[4] for r in rows} == {"sentence", "directive", "skipped"}
    assert not (tmp_path / "out.parquet.partial").exists()


def test_a_bad_line_is_reported_and_the_rest_harvested(tmp_path: Path) -> None:
    good = [{"at": "t1", "from": "a", "text": "[CLAIM 1]"}, {"text": "[ACK 7f] é"}, {"at": None, "from": "b", "text": "[DM {}]", "extra": 1}]
    lines = [
        dumps(good[0]),
        "{not json",
        dumps(good[1]),
        '{"text": 5}',
        "",
        "[1, 2, 3]",
        '{"text": "a", "text": "b"}',
        '{"text": "\\ud800"}',
        dumps(good[2]),
    ]
    log = tmp_path / "bad.jsonl"
    log.write_bytes(("\n".join(lines) + "\n").encode() + b'{"text": "\xff"}\n' + b'{"from": "x"}\r\n')
    r = run_cli("bad.jsonl", "--out", "t.parquet", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    reported = [line.split(": bad line: ")[0] for line in r.stderr.splitlines()]
    assert reported == [f"bad.jsonl:{n}" for n in (2, 4, 5, 6, 7, 8, 10, 11)], r.stderr
    assert "duplicate field `text`" in r.stderr and "expected a string" in r.stderr
    rows = table_rows(pq.read_table(tmp_path / "t.parquet"))
    assert rows == expected_rows("bad.jsonl", [(1, good[0]), (3, good[1]), (9, good[2])])


def test_a_truncated_gzip_keeps_every_complete_line_before_the_damage_and_the_other_files(tmp_path: Path) -> None:
    # A 2,000-line file cut by 20 bytes: every line that decompresses whole is a
    # row (the whole 8 MB batch the fault fell in was lost: 0 rows), the first
    # line not read whole is named, and the other file is harvested.
    write_log(str(tmp_path / "whole.jsonl.gz"), 2000)
    blob = (tmp_path / "whole.jsonl.gz").read_bytes()
    (tmp_path / "cut.jsonl.gz").write_bytes(blob[:-20])
    readable = zlib.decompressobj(31).decompress(blob[:-20])  # Everything the cut stream still gives.
    kept = readable.count(b"\n")
    assert 1990 < kept < 2000
    write_log(str(tmp_path / "ok.jsonl"), 50, seed=2)
    r = run_cli("cut.jsonl.gz", "ok.jsonl", "--out", "t.parquet", cwd=tmp_path)
    assert r.returncode == hv.EXIT_BAD_LINES == 1, r.stderr
    assert r.stderr == f"cut.jsonl.gz:{kept + 1}: unreadable from this line on: Compressed file ended before the end-of-stream marker was reached\n"
    rows = table_rows(pq.read_table(tmp_path / "t.parquet"))
    first = list(enumerate(messages(2000), 1))[:kept]
    assert rows == expected_rows("cut.jsonl.gz", first) + expected_rows("ok.jsonl", list(enumerate(messages(50, seed=2), 1)))


def test_an_input_removed_mid_run_is_named_and_the_others_harvested(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # b.jsonl vanishes while a.jsonl is being scanned (it used to fail the whole
    # harvest with a traceback: no output for any file).
    monkeypatch.chdir(tmp_path)
    write_log("a.jsonl", 100, seed=1)
    write_log("b.jsonl", 100, seed=2)
    write_log("c.jsonl.gz", 100, seed=3)
    scan_lines = hv._native.harvest_lines

    def scan_then_remove(*args: Any) -> Any:
        if os.path.exists("b.jsonl"):
            os.remove("b.jsonl")
        return scan_lines(*args)

    monkeypatch.setattr(hv._native, "harvest_lines", scan_then_remove)
    err = io.StringIO()
    s = hv.harvest(["a.jsonl", "b.jsonl", "c.jsonl.gz"], "t.parquet", stderr=err)
    assert not os.path.exists("b.jsonl")
    assert err.getvalue() == "b.jsonl:1: unreadable from this line on: No such file or directory\n"
    assert [f.messages for f in s.files] == [100, 0, 100] and not s.ok
    rows = table_rows(pq.read_table("t.parquet"))
    assert rows == expected_rows("a.jsonl", list(enumerate(messages(100, 1), 1))) + expected_rows("c.jsonl.gz", list(enumerate(messages(100, 3), 1)))


def test_usage_errors_write_nothing(tmp_path: Path) -> None:
    write_log(str(tmp_path / "a.jsonl"), 5)
    (tmp_path / "a.txt").write_text("{}\n")
    (tmp_path / "exists.parquet").write_text("keep")
    # A directory, a FIFO (a reader would block on it) or a dangling link used to be
    # "no such file".
    (tmp_path / "dir.jsonl").mkdir()
    os.mkfifo(tmp_path / "fifo.jsonl")
    os.symlink("gone.jsonl", tmp_path / "broken.jsonl")
    for args, why in [
        (["a.txt", "--out", "o.parquet"], "a.txt: not a .jsonl or .jsonl.gz file"),
        (["missing.jsonl", "--out", "o.parquet"], "missing.jsonl: no such file"),
        (["dir.jsonl", "--out", "o.parquet"], "dir.jsonl: not a regular file (a directory, a FIFO, a device or a broken link): not read"),
        (["fifo.jsonl", "--out", "o.parquet"], "fifo.jsonl: not a regular file"),
        (["broken.jsonl", "--out", "o.parquet"], "broken.jsonl: not a regular file"),
        (["a.jsonl", "--out", "exists.parquet"], "exists.parquet exists already"),
        (["a.jsonl", "--out", "nodir/o.parquet"], "nodir/o.parquet: no directory"),
    ]:
        r = run_cli(*args, cwd=tmp_path)
        assert r.returncode == 2 and why in r.stderr, (args, r.stderr)
    assert run_cli("a.jsonl", "--out", "o", "--workers", "2", "--scheduler", "x:1", cwd=tmp_path).returncode == 2
    assert not (tmp_path / "o.parquet").exists() and (tmp_path / "exists.parquet").read_text() == "keep"


def test_quiet_in_a_pipe_and_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    write_log(str(tmp_path / "a.jsonl"), 100)
    r = run_cli("a.jsonl", "--out", "pipe.parquet", cwd=tmp_path)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    for extra, shown in [([], True), (["--quiet"], False)]:
        out = f"tty{len(extra)}.parquet"
        primary, secondary = pty.openpty()
        p = subprocess.run(
            [sys.executable, "-m", "agent_sentences.harvest", "a.jsonl", "--out", out, *extra],
            cwd=tmp_path, stderr=secondary, stdout=subprocess.DEVNULL, timeout=60,
        )
        os.close(secondary)
        text = b""
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:
                break
            if not chunk:
                break
            text += chunk
        os.close(primary)
        assert p.returncode == 0
        if shown:
            assert b"files 1/1" in text and b"/s" in text and b"1 files, 100 messages" in text, text
        else:
            assert text == b"", text


def test_scan_batch_is_the_arrow_function(tmp_path: Path) -> None:
    texts = ["[CLAIM 1] [TOOL a.b {\"k\": [1, 2.5]}]", "nothing", "é [ACK 7f]"]
    batch = pa.RecordBatch.from_pydict({"text": texts, "sender": ["x", None, "z"]})
    [out] = list(hv.harvest_arrow([batch]))
    assert out.schema == hv.schema()
    rows = table_rows(pa.Table.from_batches([out]))
    want = expected_rows("", [(0, {"text": t, "from": s}) for t, s in zip(texts, ["x", None, "z"])])
    assert rows == [(f, None, at, snd, *rest) for f, _, at, snd, *rest in want]
    with pytest.raises(ValueError, match="text"):
        hv.scan_batch(pa.RecordBatch.from_pydict({"x": [1]}))


def test_acceptance_100k_messages_on_one_machine_and_on_two_dask_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 17's acceptance: at least 100,000 messages; both tables hold exactly
    the items `scan` finds, in the same order per file."""
    files = {"a.jsonl": (60_000, 1), "b.jsonl.gz": (45_000, 2)}
    for name, (n, seed) in files.items():
        write_log(str(tmp_path / name), n, seed)
    want = {name: expected_rows(name, list(enumerate(messages(n, seed), 1))) for name, (n, seed) in files.items()}
    assert sum(n for n, _ in files.values()) >= 100_000 and sum(len(w) for w in want.values()) > 90_000
    names = list(files)
    monkeypatch.chdir(tmp_path)  # Relative paths: the rows name the files as given, on Dask too.
    one = hv.harvest(names, "one.parquet")
    # Plain files are split into chunks on Dask: 1 MB ones here, so a.jsonl (about 6 MB) is several tasks.
    dask = hv.harvest(names, "dask", workers=2, chunk_bytes=1 << 20)
    for s in (one, dask):
        assert s.ok and [f.messages for f in s.files] == [60_000, 45_000]
    single = table_rows(pq.read_table(tmp_path / "one.parquet"))
    parts = sorted(os.listdir(tmp_path / "dask"))
    chunked = hv.chunks("a.jsonl", 1 << 20)
    assert len(chunked) > 4 and parts == [f"part-{t:05d}.parquet" for t in range(len(chunked) + 1)]
    by_part = [table_rows(pq.read_table(tmp_path / "dask" / p)) for p in parts]
    assert all(by_part) and {r[0] for r in by_part[-1]} == {"b.jsonl.gz"}
    for name in names:
        assert [r for r in single if r[0] == name] == want[name]
        assert [r for rows in by_part for r in rows if r[0] == name] == want[name]
    dataset = ds.dataset(tmp_path / "dask", format="parquet")
    assert dataset.schema.remove_metadata() == hv.schema().remove_metadata()
    assert [r for rows in by_part for r in rows] == single


def test_a_local_cluster_harvest_says_nothing_a_user_need_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    # A `--workers 2` harvest of 105,000 messages printed a 30-line traceback at
    # shutdown (a worker's heartbeat: CommClosedError; "Worker process still alive
    # after 4.0 seconds, killing") after a complete table, exit status 0: a race
    # at close, so the test holds the mechanism (P286). The client closes, then
    # the cluster, each with its timeout; what they log or raise while closing
    # is not shown, and the log levels are restored after.
    import logging

    said: list[str] = []

    class Closing:
        def __init__(self, name: str) -> None:
            self.name = name

        def close(self, timeout: float) -> None:
            said.append(f"{self.name} {timeout}")
            logging.getLogger("distributed.worker").error("Failed to communicate with scheduler during heartbeat.")
            logging.getLogger("distributed.nanny").warning("Worker process still alive after 4.0 seconds, killing")
            raise TimeoutError(self.name)

    before = logging.getLogger("distributed").level
    hv._close_dask(Closing("client"), Closing("cluster"))
    assert said == [f"client {hv.CLOSE_SECONDS}", f"cluster {hv.CLOSE_SECONDS}"]
    assert capfd.readouterr().err == "" and logging.getLogger("distributed").level == before
    # The workers' own logs are silenced where they run.
    distributed = pytest.importorskip("distributed")
    made: dict[str, Any] = {}

    def cluster(**kwargs: Any) -> Any:
        made.update(kwargs)
        raise RuntimeError("no cluster in this test")

    monkeypatch.setattr(distributed, "LocalCluster", cluster)
    write_log(str(tmp_path / "a.jsonl"), 5)
    with pytest.raises(RuntimeError, match="no cluster"):
        hv.harvest([str(tmp_path / "a.jsonl")], str(tmp_path / "parts"), workers=2)
    assert made["silence_logs"] == logging.CRITICAL and made["n_workers"] == 2
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl"]


def test_chunks_cover_the_file_at_line_ends_with_their_first_line_numbers(tmp_path: Path) -> None:
    import random

    rng = random.Random(4)
    for case in range(40):
        lines = [b"x" * rng.randrange(0, 40) + b"\n" for _ in range(rng.randrange(1, 300))]
        data = b"".join(lines) + (b"tail" if case % 3 == 0 else b"")
        path = tmp_path / f"c{case}.jsonl"
        path.write_bytes(data)
        size = rng.choice([1, 7, 64, 500, len(data) - 1, len(data)])
        got = hv.chunks(str(path), max(size, 1))
        if len(data) <= size:
            assert got == [None]
            continue
        spans = [c for c in got if c is not None]
        assert len(spans) == len(got) and spans[0][0] == 0 and spans[-1][1] == len(data)
        for (s0, e0, _), (s1, _, _) in zip(spans, spans[1:]):
            assert e0 == s1 and data[e0 - 1 : e0] == b"\n"
        for s0, e0, first in spans:
            assert s0 < e0 and first == data[:s0].count(b"\n") + 1
    gz = tmp_path / "big.jsonl.gz"
    gz.write_bytes(gzip.compress(b"{}\n" * 10_000))
    assert hv.chunks(str(gz), 10) == [None]


def test_gzip_and_plain_read_the_same(tmp_path: Path) -> None:
    write_log(str(tmp_path / "p.jsonl"), 500)
    with gzip.open(tmp_path / "p.jsonl.gz", "wb") as f:
        f.write((tmp_path / "p.jsonl").read_bytes())
    hv.harvest([str(tmp_path / "p.jsonl")], str(tmp_path / "p.parquet"))
    hv.harvest([str(tmp_path / "p.jsonl.gz")], str(tmp_path / "g.parquet"))
    a, b = (table_rows(pq.read_table(tmp_path / f)) for f in ("p.parquet", "g.parquet"))
    assert [r[1:] for r in a] == [r[1:] for r in b] and len(a) > 400


def test_the_command_line_on_a_running_scheduler(tmp_path: Path) -> None:
    """`--scheduler ADDRESS`: the tasks run on that cluster's workers, the rows and
    the bad-line reports come back naming the files as given."""
    distributed = pytest.importorskip("distributed")
    write_log(str(tmp_path / "a.jsonl"), 300)
    with open(tmp_path / "a.jsonl", "a") as f:
        f.write('{"text": 1}\n')
    write_log(str(tmp_path / "b.jsonl.gz"), 200, seed=4)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None) as cluster:
        r = run_cli("a.jsonl", "b.jsonl.gz", "--out", "parts/", "--diagnostics", "--scheduler", cluster.scheduler_address, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("a.jsonl:301: bad line: invalid type: integer `1`, expected a string"), r.stderr
    assert sorted(os.listdir(tmp_path / "parts")) == ["part-00000.parquet", "part-00001.parquet"]
    for k, (name, n, seed) in enumerate([("a.jsonl", 300, 17), ("b.jsonl.gz", 200, 4)]):
        rows = table_rows(pq.read_table(tmp_path / "parts" / f"part-0000{k}.parquet"))
        assert rows == expected_rows(name, list(enumerate(messages(n, seed), 1)), diagnostics=True)


@pytest.mark.parametrize("blocked, extra", [("pyarrow", []), ("distributed", ["--workers", "1"])])
def test_without_the_extra_a_harvest_says_what_to_install(tmp_path: Path, blocked: str, extra: list[str]) -> None:
    write_log(str(tmp_path / "a.jsonl"), 5)
    code = (
        f"import sys; sys.modules[{blocked!r}] = None\n"
        "from agent_sentences.harvest import main\n"
        f"sys.exit(main(['a.jsonl', '--out', 'o', *{extra!r}]))"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, r.stderr
    assert 'pip install "agent-sentences[harvest]"' in r.stderr
    assert os.listdir(tmp_path) == ["a.jsonl"]


def test_chunk_tasks_report_bad_lines_by_their_line_in_the_file(tmp_path: Path) -> None:
    ms = list(messages(2000, seed=9))
    lines = [dumps(m) for m in ms]
    for i in (0, 333, 1000, 1999):
        lines[i] = '{"text": null}'
    log = tmp_path / "m.jsonl"
    log.write_text("\n".join(lines) + "\n")
    whole = hv.harvest_file(str(log), str(tmp_path / "whole.parquet"), name="m.jsonl")
    parts = [hv.harvest_file(str(log), str(tmp_path / f"p{t}.parquet"), False, "m.jsonl", c) for t, c in enumerate(hv.chunks(str(log), 20_000))]
    assert len(parts) > 5
    assert [e for p in parts for e in p.errors] == whole.errors == [f"m.jsonl:{i + 1}: bad line: invalid type: null, expected a string at line 1 column 13" for i in (0, 333, 1000, 1999)]
    rows = [r for t in range(len(parts)) for r in table_rows(pq.read_table(tmp_path / f"p{t}.parquet"))]
    assert rows == table_rows(pq.read_table(tmp_path / "whole.parquet"))
    assert sum(p.messages for p in parts) == whole.messages == 1996


GATE = threading.Event()
"""Holds the in-process cluster's only worker thread until the test opens it."""


def _wait_for_the_gate() -> bool:
    return GATE.wait(120)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """A Dask cluster in this process: one worker, one thread."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, protocol="tcp", dashboard_address=None) as c:
        yield c


def test_harvests_of_one_file_at_once_on_one_cluster_each_write_their_own(tmp_path: Path, cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # Three harvests of one file (another --out; with --diagnostics) queue on one
    # cluster at once: they used to share task keys, so two of them got the first's
    # running task, wrote no part file, and reported success.
    distributed = pytest.importorskip("distributed")
    write_log(str(tmp_path / "m.jsonl"), 300, seed=6)
    want = list(enumerate(messages(300, 6), 1))
    submitted = threading.Condition()
    count = [0]
    submit = distributed.Client.submit

    def counting_submit(self: Any, *args: Any, **kwargs: Any) -> Any:
        future = submit(self, *args, **kwargs)
        with submitted:
            count[0] += 1
            submitted.notify_all()
        return future

    GATE.clear()
    with distributed.Client(cluster) as client:
        blocker = client.submit(_wait_for_the_gate, pure=False)
        monkeypatch.setattr(distributed.Client, "submit", counting_submit)
        monkeypatch.chdir(tmp_path)
        runs = [("a", False), ("b", False), ("c", True)]
        # Daemon threads, not a pool: a harvest that never ends (P254) fails the
        # test after its timeout instead of holding the interpreter at exit.
        done: list[Any] = [None] * len(runs)

        def run(i: int, out: str, d: bool) -> None:
            try:
                done[i] = hv.harvest(["m.jsonl"], out, diagnostics=d, scheduler=cluster.scheduler_address, stderr=io.StringIO())
            except BaseException as e:  # re-raised below, in the test's thread
                done[i] = e

        threads = [threading.Thread(target=run, args=(i, out, d), daemon=True) for i, (out, d) in enumerate(runs)]
        try:
            for t in threads:
                t.start()
            with submitted:
                assert submitted.wait_for(lambda: count[0] == len(runs), timeout=120)
            GATE.set()  # Every task is queued behind the blocker: now they run.
            for t in threads:
                t.join(timeout=120)
            stuck = [out for (out, _), t in zip(runs, threads) if t.is_alive()]
            assert not stuck, f"harvests still running after 120 s: {stuck}"
        finally:
            GATE.set()
        for r in done:
            if isinstance(r, BaseException):
                raise r
        summaries = done
        assert blocker.result(timeout=120) is True
    for (out, d), s in zip(runs, summaries):
        assert s.ok and s.files[0].messages == 300
        assert os.listdir(tmp_path / out) == ["part-00000.parquet"], out
        assert table_rows(pq.read_table(tmp_path / out / "part-00000.parquet")) == expected_rows("m.jsonl", want, diagnostics=d)
    keys = {hv.task_key("/x.jsonl", None, f"/{o}.partial/part-00000.parquet", d, hv.MAX_LINE_BYTES) for o, d in runs}
    keys |= {hv.task_key("/x.jsonl", (0, 10, 1), "/a.partial/part-00000.parquet", False, hv.MAX_LINE_BYTES)}
    keys |= {hv.task_key("/y.jsonl", None, "/a.partial/part-00000.parquet", False, hv.MAX_LINE_BYTES)}
    keys |= {hv.task_key("/x.jsonl", None, "/a.partial/part-00000.parquet", False, 1000)}
    assert len(keys) == 6


def test_an_input_removed_mid_run_on_dask_is_named_and_the_others_harvested(tmp_path: Path, cluster: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write_log("a.jsonl", 100, seed=1)
    write_log("b.jsonl", 100, seed=2)
    write_log("c.jsonl.gz", 100, seed=3)
    split = hv.chunks

    def split_then_remove(path: str, size: int = hv.CHUNK_BYTES) -> Any:
        if os.path.exists("b.jsonl"):
            os.remove("b.jsonl")
        return split(path, size)

    monkeypatch.setattr(hv, "chunks", split_then_remove)
    err = io.StringIO()
    s = hv.harvest(["a.jsonl", "b.jsonl", "c.jsonl.gz"], "parts", scheduler=cluster.scheduler_address, stderr=err)
    assert err.getvalue() == "b.jsonl:1: unreadable from this line on: No such file or directory\n"
    assert [f.messages for f in s.files] == [100, 0, 100] and not s.ok
    parts = [table_rows(pq.read_table(tmp_path / "parts" / f"part-0000{t}.parquet")) for t in range(3)]
    assert parts == [expected_rows("a.jsonl", list(enumerate(messages(100, 1), 1))), [], expected_rows("c.jsonl.gz", list(enumerate(messages(100, 3), 1)))]


def test_a_full_disk_exits_3_with_a_message_and_writes_no_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # Exit 1 means "bad lines, the table is written"; a harvest that cannot write
    # its table used to end in a traceback with that same status.
    monkeypatch.chdir(tmp_path)
    write_log("a.jsonl", 100)

    def full(self: Any, batch: Any, *args: Any, **kwargs: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(pq.ParquetWriter, "write_batch", full)
    assert hv.main(["a.jsonl", "--out", "t.parquet", "--quiet"]) == hv.EXIT_FAILED == 3
    assert capsys.readouterr().err == "error: [Errno 28] No space left on device (no table written)\n"
    assert sorted(os.listdir(tmp_path)) == ["a.jsonl"]


def _locked_directory(tmp_path: Path) -> str:
    """A directory this process cannot create files in: a read-only one, or for
    root (who writes anywhere) sysfs, which refuses new files to everyone."""
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        return str(locked)
    try:
        os.close(os.open("/sys/probe.partial", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except PermissionError:
        return "/sys"
    os.remove("/sys/probe.partial")  # pragma: no cover
    pytest.skip("no directory refuses new files to root here")  # pragma: no cover


def test_an_unwritable_output_directory_exits_3_with_a_message(tmp_path: Path) -> None:
    locked = _locked_directory(tmp_path)
    write_log(str(tmp_path / "a.jsonl"), 20)
    before = sorted(os.listdir(locked))
    for name, extra in [("t.parquet", []), ("parts", ["--scheduler", "tcp://127.0.0.1:9"])]:
        out = os.path.join(locked, name)
        r = run_cli("a.jsonl", "--out", out, *extra, cwd=tmp_path)
        assert r.returncode == hv.EXIT_FAILED == 3, r.stderr
        assert re.fullmatch(rf"error: \[Errno \d+\] [^:\n]+: '{re.escape(out)}\.partial' \(no table written\)\n", r.stderr), r.stderr
    assert sorted(os.listdir(locked)) == before


def test_a_line_over_the_limit_is_a_bad_line_not_read_whole(tmp_path: Path) -> None:
    # Lines around a 1,000-byte limit (the line break counted), read 1,000 bytes at a time.
    limit = 1000
    good = [{"text": "[CLAIM 1] " + "x" * n} for n in range(2)]

    def line(n: int) -> bytes:  # A message line of exactly n bytes, its line break included.
        head = b'{"text": "[ACK 7f] '
        return head + b"y" * (n - len(head) - 3) + b'"}\n'

    parts = [line(999), line(1000), line(1001), (dumps(good[0]) + "\n").encode(), line(5000), line(1000), (dumps(good[1]) + "\n").encode(), line(1001), line(3000)[:-1]]
    assert [len(p) for p in parts[:3]] == [999, 1000, 1001]
    log = tmp_path / "long.jsonl"
    log.write_bytes(b"".join(parts))
    for name in ("long.jsonl", "long.jsonl.gz"):
        if name.endswith(".gz"):
            (tmp_path / name).write_bytes(gzip.compress(log.read_bytes()))
        err = io.StringIO()
        s = hv.harvest([str(tmp_path / name)], str(tmp_path / f"{name}.parquet"), stderr=err, max_line=limit)
        bad = [3, 5, 8, 9]
        assert err.getvalue() == "".join(f"{tmp_path / name}:{n}: bad line: longer than 1000 bytes (not read)\n" for n in bad), name
        assert (s.files[0].messages, s.files[0].bad_lines) == (5, 4)
        rows = table_rows(pq.read_table(tmp_path / f"{name}.parquet"))
        lines = [json.loads(p) for p in parts]
        assert rows == expected_rows(str(tmp_path / name), [(n, lines[n - 1]) for n in (1, 2, 4, 6, 7)])
        assert {r[7] for r in rows} == {"ack", "claim"}


def test_a_huge_line_or_many_tiny_ones_take_no_more_memory_than_a_batch(tmp_path: Path) -> None:
    # A 40 MB line between two messages, with the default limit (8 MiB): the
    # harvest's peak memory grows by about the limit, not the line (one 100 MB
    # line took 4.1 GB). A million bad 3-byte lines: a batch holds at most
    # BATCH_LINES lines (and one read's), so their objects and reports stay
    # small (this 3 MB file took 480 MB).
    with open(tmp_path / "big.jsonl", "wb") as f:
        f.write(b'{"text": "[CLAIM 1]"}\n{"text": "[ACK 7f] ' + b"a " * (20 << 20) + b'"}\n{"text": "[CLAIM 2]"}\n')
    (tmp_path / "tiny.jsonl").write_bytes(b"{}\n" * 1_000_000)
    write_log(str(tmp_path / "warm.jsonl"), 2000)
    code = (
        "import io, resource, sys\n"
        "from agent_sentences import harvest as hv\n"
        "def peak(): return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10\n"
        "hv.harvest(['warm.jsonl'], 'warm.parquet')\n"
        "before = peak()\n"
        "s = hv.harvest(['big.jsonl'], 'big.parquet', stderr=sys.stdout)\n"
        "print(s.files[0].messages, s.files[0].rows, peak() - before)\n"
        "before = peak()\n"
        "s = hv.harvest(['tiny.jsonl'], 'tiny.parquet', stderr=io.StringIO())\n"
        "print(s.files[0].bad_lines, len(s.files[0].errors), peak() - before)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    report, big, tiny = r.stdout.splitlines()
    assert report == f"big.jsonl:2: bad line: longer than {hv.MAX_LINE_BYTES} bytes (not read)"
    messages_, rows, grown_mib = map(int, big.split())
    assert (messages_, rows) == (2, 2)
    assert grown_mib < 3 * (hv.MAX_LINE_BYTES >> 20), grown_mib
    bad, reported, grown_mib = map(int, tiny.split())
    assert (bad, reported) == (1_000_000, hv.MAX_REPORTED_ERRORS)
    assert grown_mib < 192, grown_mib


def test_an_out_made_during_the_harvest_is_not_overwritten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    write_log("a.jsonl", 100)
    scan_lines = hv._native.harvest_lines

    def scan_and_make_out(*args: Any) -> Any:
        if not os.path.exists("t.parquet"):
            Path("t.parquet").write_text("theirs")
        return scan_lines(*args)

    monkeypatch.setattr(hv._native, "harvest_lines", scan_and_make_out)
    assert hv.main(["a.jsonl", "--out", "t.parquet", "--quiet"]) == hv.EXIT_FAILED
    assert capsys.readouterr().err == "error: [Errno 17] created during the harvest, not overwritten: 't.parquet' (no table written)\n"
    assert Path("t.parquet").read_text() == "theirs" and sorted(os.listdir(tmp_path)) == ["a.jsonl", "t.parquet"]


def test_sigterm_removes_the_partial_output_and_exits_143(tmp_path: Path) -> None:
    # SIGTERM used to end the harvest at once, leaving OUT.partial behind (and the
    # next harvest into OUT refusing to start). The signal is sent from inside the
    # harvest, once a batch was written, so it arrives mid-run every time.
    write_log(str(tmp_path / "a.jsonl"), 200)
    write_log(str(tmp_path / "b.jsonl"), 200, seed=2)
    script = (
        "import os, signal, sys\n"
        "from agent_sentences import harvest as hv\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)  # Ignored when inherited so.\n"
        "signal.signal(signal.SIGHUP, signal.SIG_DFL)\n"
        "scan = hv._native.harvest_lines\n"
        "def scan_then_stop(*args):\n"
        "    out = scan(*args)\n"
        "    if os.path.exists('t.parquet.partial') and args[2] == 'b.jsonl':\n"
        f"        os.kill(os.getpid(), signal.{{}})\n"
        "    return out\n"
        "hv._native.harvest_lines = scan_then_stop\n"
        "sys.exit(hv.main(['a.jsonl', 'b.jsonl', '--out', 't.parquet']))\n"
    )
    for name, status in [("SIGTERM", 143), ("SIGHUP", 143), ("SIGINT", 130)]:
        r = subprocess.run([sys.executable, "-c", script.format(name)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert r.returncode == status, (name, r.stderr)
        assert r.stderr.splitlines()[-1] in ("error: stopped by SIGTERM (no table written)", "error: stopped by SIGHUP (no table written)", "error: interrupted (no table written)"), r.stderr
        assert sorted(os.listdir(tmp_path)) == ["a.jsonl", "b.jsonl"], (name, os.listdir(tmp_path))
    assert hv.EXIT_SIGNALLED == 143
    # A partial output a SIGKILL left (nothing can remove it then) is refused, and said why.
    (tmp_path / "t.parquet.partial").write_bytes(b"PAR1")
    r = run_cli("a.jsonl", "--out", "t.parquet", cwd=tmp_path)
    assert r.returncode == hv.EXIT_USAGE, r.stderr
    assert "t.parquet.partial exists already: another harvest is writing it, or one was killed" in r.stderr, r.stderr
    assert (tmp_path / "t.parquet.partial").read_bytes() == b"PAR1"


def test_a_gzip_bomb_is_read_up_to_the_limit_and_reported(tmp_path: Path) -> None:
    # 1,000 good messages, then 64 MiB of one byte: 64 KiB compressed. Past the
    # limit the file is reported unreadable from the line where reading stopped,
    # the rows before it kept; memory stays that of a batch throughout.
    ms = list(messages(1000, seed=4))
    head = "".join(dumps(m) + "\n" for m in ms).encode()
    with gzip.open(tmp_path / "bomb.jsonl.gz", "wb") as f:
        f.write(head)
        for _ in range(64):
            f.write(b"a" * (1 << 20))
    limit = len(head) + (1 << 20)
    r = run_cli("bomb.jsonl.gz", "--out", "t.parquet", "--max-gunzip-bytes", str(limit), cwd=tmp_path)
    assert r.returncode == hv.EXIT_BAD_LINES, r.stderr
    assert r.stderr == f"bomb.jsonl.gz:1001: unreadable from this line on: decompressed past {limit} bytes (--max-gunzip-bytes; a gzip bomb?)\n"
    assert table_rows(pq.read_table(tmp_path / "t.parquet")) == expected_rows("bomb.jsonl.gz", list(enumerate(ms, 1)))
    # Under the limit, the same file reads to its end (one overlong line).
    r = run_cli("bomb.jsonl.gz", "--out", "u.parquet", cwd=tmp_path)
    assert r.returncode == hv.EXIT_BAD_LINES and r.stderr == f"bomb.jsonl.gz:1001: bad line: longer than {hv.MAX_LINE_BYTES} bytes (not read)\n", r.stderr
    assert hv.MAX_GUNZIP_BYTES == 64 << 30
    assert run_cli("bomb.jsonl.gz", "--out", "v.parquet", "--max-gunzip-bytes", "0", cwd=tmp_path).returncode == hv.EXIT_USAGE


def test_a_gzip_of_line_breaks_costs_counted_work_and_stops_at_the_bad_line_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # 10 messages, then 64 MiB of line breaks: 64 KiB compressed, each byte a bad
    # line. Each bad line used to be a Python object to report (0.7 s a MiB: 13
    # hours for a 64 MiB file under the default gunzip limit). Now a run of bad
    # lines is one item, and the file stops at its first bad line past the limit.
    monkeypatch.chdir(tmp_path)
    ms = list(messages(10, seed=5))
    with gzip.open("breaks.jsonl.gz", "wb") as f:
        f.write("".join(dumps(m) + "\n" for m in ms).encode())
        for _ in range(64):
            f.write(b"\n" * (1 << 20))
    scan_lines = hv._native.harvest_lines
    work = {"lines": 0, "runs": 0}
    bound = 10 + hv.MAX_BAD_LINES + hv.BATCH_LINES + hv.READ_BYTES

    def counted(lines: list[bytes], *args: Any) -> Any:
        n, cols, runs = scan_lines(lines, *args)
        work["lines"] += len(lines)
        work["runs"] += len(runs)
        assert work["lines"] <= bound, "read on past the bad-line limit"
        return n, cols, runs

    monkeypatch.setattr(hv._native, "harvest_lines", counted)
    err = io.StringIO()
    s = hv.harvest(["breaks.jsonl.gz"], "t.parquet", stderr=err)
    batches = -(-work["lines"] // hv.BATCH_LINES)
    assert work["runs"] <= batches, work  # One run a batch, not one item a line.
    stop = 10 + hv.MAX_BAD_LINES + 1
    said = err.getvalue().splitlines()
    assert said[: hv.MAX_REPORTED_ERRORS] == [f"breaks.jsonl.gz:{n}: bad line: an empty line, not a JSON object" for n in range(11, 11 + hv.MAX_REPORTED_ERRORS)]
    assert said[hv.MAX_REPORTED_ERRORS :] == [
        f"breaks.jsonl.gz:{stop}: unreadable from this line on: more than {hv.MAX_BAD_LINES} bad lines (--max-bad-lines; not a message log?)"
    ]
    f = s.files[0]
    assert (f.messages, f.bad_lines, f.ok) == (10, hv.MAX_BAD_LINES, False)
    assert table_rows(pq.read_table("t.parquet")) == expected_rows("breaks.jsonl.gz", list(enumerate(ms, 1)))
    # The limit is exact, and a good line after it is not harvested: 3 bad lines allowed, the 4th stops.
    Path("mixed.jsonl").write_text(dumps(ms[0]) + "\nx\n\n\n" + dumps(ms[1]) + "\nx\n" + dumps(ms[2]) + "\n")
    r = run_cli("mixed.jsonl", "--out", "m.parquet", "--max-bad-lines", "3", cwd=tmp_path)
    assert r.returncode == hv.EXIT_BAD_LINES
    assert r.stderr.splitlines()[-1] == "mixed.jsonl:6: unreadable from this line on: more than 3 bad lines (--max-bad-lines; not a message log?)", r.stderr
    assert table_rows(pq.read_table("m.parquet")) == expected_rows("mixed.jsonl", [(1, ms[0]), (5, ms[1])])


def test_the_gunzip_limit_keeps_every_line_complete_below_it(tmp_path: Path) -> None:
    # The limit used to be checked per 256 KiB read: a limit of 100,000 bytes
    # kept none of the lines below it.
    ms = list(messages(2000, seed=6))
    data = "".join(dumps(m) + "\n" for m in ms).encode()
    with gzip.open(tmp_path / "l.jsonl.gz", "wb") as f:
        f.write(data)
    for limit in (100_000, len(data) - 1, len(data)):
        kept = data[:limit].count(b"\n")
        r = run_cli("l.jsonl.gz", "--out", f"{limit}.parquet", "--max-gunzip-bytes", str(limit), cwd=tmp_path)
        past = f"l.jsonl.gz:{kept + 1}: unreadable from this line on: decompressed past {limit} bytes (--max-gunzip-bytes; a gzip bomb?)\n"
        assert r.stderr == ("" if limit == len(data) else past), r.stderr
        assert table_rows(pq.read_table(tmp_path / f"{limit}.parquet")) == expected_rows("l.jsonl.gz", list(enumerate(ms, 1))[:kept])
        assert kept > 0


def test_an_input_given_twice_is_harvested_once_and_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The same file by its path twice, another spelling, a symbolic and a hard link:
    # its rows used to be written once per name.
    monkeypatch.chdir(tmp_path)
    write_log("a.jsonl", 50)
    write_log("b.jsonl", 50, seed=2)
    os.symlink("a.jsonl", "link.jsonl")
    os.link("b.jsonl", "hard.jsonl")
    err = io.StringIO()
    s = hv.harvest(["a.jsonl", "b.jsonl", "./a.jsonl", "link.jsonl", "hard.jsonl", "a.jsonl"], "t.parquet", stderr=err)
    said = [
        "./a.jsonl: the same file as a.jsonl (given before): harvested once, as a.jsonl",
        "link.jsonl: the same file as a.jsonl (given before): harvested once, as a.jsonl",
        "hard.jsonl: the same file as b.jsonl (given before): harvested once, as b.jsonl",
        "a.jsonl: the same file as a.jsonl (given before): harvested once, as a.jsonl",
    ]
    assert (err.getvalue().splitlines(), s.duplicates, [f.path for f in s.files], s.ok) == (said, said, ["a.jsonl", "b.jsonl"], True)
    rows = table_rows(pq.read_table("t.parquet"))
    assert rows == expected_rows("a.jsonl", list(enumerate(messages(50), 1))) + expected_rows("b.jsonl", list(enumerate(messages(50, seed=2), 1)))
    r = run_cli("a.jsonl", "a.jsonl", "--out", "u.parquet", cwd=tmp_path)
    assert (r.returncode, r.stderr) == (0, "a.jsonl: the same file as a.jsonl (given before): harvested once, as a.jsonl\n")


def test_a_closed_stderr_stops_the_reports_not_the_harvest(tmp_path: Path) -> None:
    # `harvest … 2>&1 | head -1`: the reader of the bad-line reports went away.
    # The first report used to raise BrokenPipeError, which failed the harvest
    # and removed its table.
    good = list(messages(20))
    lines = [dumps(m) if i % 2 else "{not json" for i, m in enumerate(good)]
    (tmp_path / "bad.jsonl").write_text("\n".join(lines) + "\n")
    reader, writer = os.pipe()
    os.close(reader)
    try:
        r = subprocess.run(
            [sys.executable, "-m", "agent_sentences.harvest", "bad.jsonl", "--out", "t.parquet"],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=writer,
            timeout=120,
        )
    finally:
        os.close(writer)
    assert r.returncode == hv.EXIT_BAD_LINES
    rows = table_rows(pq.read_table(tmp_path / "t.parquet"))
    assert rows == expected_rows("bad.jsonl", [(i + 1, m) for i, m in enumerate(good) if i % 2])


def test_a_byte_order_mark_is_not_part_of_line_one(tmp_path: Path) -> None:
    # Editors on some systems start a UTF-8 file with U+FEFF: line 1 was a bad line
    # ("not a JSON object"), its rows lost. Only at the start of a file: elsewhere
    # it is the line's own.
    ms = list(messages(3, seed=9))
    body = "".join(dumps(m) + "\n" for m in ms)
    (tmp_path / "bom.jsonl").write_text("\ufeff" + body + "\ufeff" + dumps(ms[0]) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "bom.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\ufeff" + body)
    err = io.StringIO()
    s = hv.harvest([str(tmp_path / "bom.jsonl"), str(tmp_path / "bom.jsonl.gz")], str(tmp_path / "t.parquet"), stderr=err)
    assert err.getvalue() == f"{tmp_path / 'bom.jsonl'}:4: bad line: not a JSON object\n"
    assert [f.messages for f in s.files] == [3, 3]
    rows = table_rows(pq.read_table(tmp_path / "t.parquet"))
    assert rows == expected_rows(str(tmp_path / "bom.jsonl"), list(enumerate(ms, 1))) + expected_rows(str(tmp_path / "bom.jsonl.gz"), list(enumerate(ms, 1)))
