"""Harvest message logs into a Parquet table: every sentence and tool directive
the scanner finds, one row each.

``python -m agent_sentences.harvest LOGS... --out OUT.parquet`` reads JSON Lines
messages (``{"at": …, "from": …, "text": …}``, one per line; ``.jsonl`` and
``.jsonl.gz``), scans every text with the Rust scanner on all cores, in batches
(streaming: memory does not grow with the input), and writes one Parquet file.
With ``--workers N`` (a local Dask cluster) or ``--scheduler ADDRESS`` (a
running one) the same runs on Dask distributed, one task per ``.gz`` file and
per :data:`CHUNK_BYTES` of a plain file, and ``--out`` is a directory of
``part-NNNNN.parquet`` files, one per task, in input order.

Needs the optional dependencies: ``pip install "agent-sentences[harvest]"``
(PyArrow; Dask distributed for a cluster). The core package never imports them.

The table (:data:`COLUMNS`, :func:`schema`), one row per found item, in file
order, then line order, then text order:

============  ========  =====================================================
column        type      value
============  ========  =====================================================
file          string    the input file, as given
line          int64     1-based line number in the (decompressed) file
at            string    the message's ``at``, as written (null when absent)
sender        string    the message's ``from`` (null when absent)
kind          string    ``sentence``, ``directive``, or ``skipped``
span_start    int64     UTF-8 byte offset in ``text`` where the item starts
span_end      int64     UTF-8 byte offset just past its end
structure     string    a sentence's structure key (``ack``, ``result``, …)
op            string    a directive's op, aliases resolved
fields        string    JSON: a sentence's fields (``to_dict()``); a
                        directive's ``form``, ``engine``, ``op``, ``written_op``
args          string    JSON: a directive's arguments
reason        string    a skipped candidate's reason (``--diagnostics``)
message       string    a skipped candidate's message (``--diagnostics``)
============  ========  =====================================================

JSON columns are written as ``json.dumps(value, ensure_ascii=False)`` writes
them (the package's canonical rendering). Skipped rows appear only with
``--diagnostics``; the schema is the same with or without it.
"""

from __future__ import annotations

import argparse
import errno
import gzip
import hashlib
import importlib
import io
import json
import logging
import os
import shutil
import signal
import sys
import threading
import time
import traceback
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TextIO

from . import scanner as _scanner  # noqa: F401  First: registers the result classes, or says how to build the package.
from . import _native

__all__ = [
    "COLUMNS",
    "SCHEMA_VERSION",
    "SPARK_SCHEMA",
    "BATCH_BYTES",
    "BATCH_LINES",
    "CHUNK_BYTES",
    "MAX_LINE_BYTES",
    "MAX_GUNZIP_BYTES",
    "MAX_BAD_LINES",
    "CLOSE_SECONDS",
    "READ_BYTES",
    "EXIT_OK",
    "EXIT_BAD_LINES",
    "EXIT_USAGE",
    "EXIT_FAILED",
    "EXIT_SIGNALLED",
    "chunks",
    "FileReport",
    "schema",
    "scan_batch",
    "harvest_arrow",
    "harvest_file",
    "harvest",
    "task_key",
    "main",
]

SCHEMA_VERSION: Final = 1
"""Bumped whenever :data:`COLUMNS` changes (stored in the Parquet metadata as
``agent_sentences.harvest.schema_version``)."""

COLUMNS: Final[tuple[tuple[str, str, bool], ...]] = (
    ("file", "string", False),
    ("line", "int64", True),
    ("at", "string", True),
    ("sender", "string", True),
    ("kind", "string", False),
    ("span_start", "int64", False),
    ("span_end", "int64", False),
    ("structure", "string", True),
    ("op", "string", True),
    ("fields", "string", True),
    ("args", "string", True),
    ("reason", "string", True),
    ("message", "string", True),
)
"""``(name, Arrow type, nullable)`` of every column, in order."""

SPARK_SCHEMA: Final = ", ".join(f"{name} {'bigint' if kind == 'int64' else 'string'}" for name, kind, _ in COLUMNS)
""":data:`COLUMNS` as a Spark DDL schema, for ``DataFrame.mapInArrow``."""

BATCH_BYTES: Final = 8 << 20
"""Lines are read and scanned in batches of about this many bytes, or of
about :data:`BATCH_LINES` lines, whichever comes first."""

BATCH_LINES: Final = 1 << 16
"""The most lines in a batch (plus those of one read): a batch of very short
lines, each a Python object and, when bad, a report, stays small."""

CHUNK_BYTES: Final = 256 << 20
"""On Dask, a plain ``.jsonl`` file is split into tasks of about this many bytes
(at line ends); a ``.jsonl.gz`` file is one task (a gzip stream cannot be split)."""

MAX_LINE_BYTES: Final = 8 << 20
"""A line longer than this many bytes (its line break included) is a bad line:
it is skipped as it is read, never held whole, so memory is bounded by the
batch and this limit, not by the longest line."""

MAX_GUNZIP_BYTES: Final = 64 << 30
"""A ``.jsonl.gz`` file that decompresses to more than this many bytes is read
up to there and reported unreadable from the line where it stopped (a gzip
bomb: a few megabytes that inflate to terabytes). Memory never depends on it
(the input is read a batch at a time); the time the harvest takes does.
``--max-gunzip-bytes`` sets it."""

MAX_BAD_LINES: Final = 1_000_000
"""A file (or a Dask task's piece of one) with more bad lines than this is
reported unreadable from the first bad line past them, its rows before that
line kept: a file of bad lines is not a message log, and a gzip of line breaks
(a thousandfold expansion, each byte a bad line) would otherwise cost time in
proportion to its decompressed size, up to :data:`MAX_GUNZIP_BYTES`. Runs of
bad lines are counted, not handled one by one. ``--max-bad-lines`` sets it
(decision P280)."""

READ_BYTES: Final = 256 << 10
"""The input is read this many bytes at a time (decompressed bytes for ``.gz``)."""

EXIT_OK: Final = 0
"""Exit status: every line harvested, the table written."""
EXIT_BAD_LINES: Final = 1
"""Exit status: a bad line, or a file unreadable (damaged, vanished) from some
line on; the table is written with every row that could be read."""
EXIT_USAGE: Final = 2
"""Exit status: a usage error found before the harvest starts; nothing written."""
EXIT_FAILED: Final = 3
"""Exit status: the harvest failed while running (the output cannot be written:
no permission, disk full; a Dask task failed); no table written."""
EXIT_SIGNALLED: Final = 128 + signal.SIGTERM
"""Exit status: stopped by ``SIGTERM`` or ``SIGHUP`` (``128 + SIGTERM``, as a
shell reports a process the signal ended; ``130`` for ``SIGINT``): what was
written under ``OUT.partial`` is removed, no table written."""

MAX_REPORTED_ERRORS: Final = 100
"""Bad lines reported one by one per file; the rest are counted."""

_HINT: Final = 'the harvest needs PyArrow (and Dask distributed for a cluster): pip install "agent-sentences[harvest]"'


def _pyarrow() -> Any:
    """The ``pyarrow`` module (untyped), or an ``ImportError`` saying what to install."""
    try:
        return importlib.import_module("pyarrow")
    except ImportError as e:
        raise ImportError(_HINT) from e


def _parquet() -> Any:
    _pyarrow()
    return importlib.import_module("pyarrow.parquet")


def schema() -> Any:
    """The table's ``pyarrow.Schema`` (:data:`COLUMNS`), with the schema version in its metadata."""
    pa = _pyarrow()
    types = {"string": pa.string(), "int64": pa.int64()}
    return pa.schema(
        [pa.field(name, types[kind], nullable=nullable) for name, kind, nullable in COLUMNS],
        metadata={"agent_sentences.harvest.schema_version": str(SCHEMA_VERSION)},
    )


def _array(column: tuple[Any, ...], n: int) -> Any:
    """An Arrow array of ``n`` values from a native column: ``("int64", values)``
    or ``("utf8", validity or None, offsets, data, null count)``, little-endian
    buffers in Arrow's layout (no Python object per value)."""
    pa = _pyarrow()
    if column[0] == "int64":
        return pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(column[1])])
    _, validity, offsets, data, nulls = column
    buffers = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.string(), n, buffers, null_count=nulls)


def _batch(n: int, cols: dict[str, tuple[Any, ...]], given: dict[str, Any]) -> Any:
    """A record batch of :func:`schema` from native columns, and arrays ``given`` by name."""
    pa = _pyarrow()
    arrays = [given[name] if name in given else _array(cols[name], n) for name, _, _ in COLUMNS]
    return pa.RecordBatch.from_arrays(arrays, schema=schema())


def scan_batch(batch: Any, *, diagnostics: bool = False) -> Any:
    """The rows of a ``pyarrow.RecordBatch`` of messages, as a record batch of
    :func:`schema`: the function the harvest runs on every batch, for engines
    that hand out Arrow batches (Spark's ``mapInArrow``, see the README).

    ``batch`` has a string column ``text`` (no nulls) and, optionally, ``file``
    (string), ``line`` (integer), ``at`` and ``sender`` (strings); a missing
    optional column is null in the rows (``file``: the empty string).
    """
    pa = _pyarrow()
    names = batch.schema.names
    if "text" not in names:
        raise ValueError("scan_batch needs a `text` column")
    text = batch.column("text")
    if text.null_count:
        raise ValueError("scan_batch: the `text` column holds nulls")
    n, cols = _native.scan_rows(text.to_pylist(), diagnostics)
    index = _array(cols["index"], n)

    def pick(name: str, kind: Any, default: Any) -> Any:
        if name in names:
            return batch.column(name).cast(kind).take(index)
        return pa.array([default] * n, kind)

    given = {"file": pick("file", pa.string(), ""), "line": pick("line", pa.int64(), None)}
    given |= {"at": pick("at", pa.string(), None), "sender": pick("sender", pa.string(), None)}
    return _batch(n, cols, given)


def harvest_arrow(batches: Iterable[Any], *, diagnostics: bool = False) -> Iterator[Any]:
    """:func:`scan_batch` of every batch: ``df.mapInArrow(harvest_arrow, SPARK_SCHEMA)``."""
    for batch in batches:
        yield scan_batch(batch, diagnostics=diagnostics)


@dataclass
class FileReport:
    """What harvesting one file did."""

    path: str
    """The file, as given."""
    messages: int = 0
    """Lines read as messages."""
    rows: int = 0
    """Rows written."""
    bad_lines: int = 0
    """Lines that are no message (reported, no row)."""
    errors: list[str] = field(default_factory=list)
    """``FILE:LINE: why`` of the first :data:`MAX_REPORTED_ERRORS` bad lines."""
    failure: str | None = None
    """Why the file could not be read to its end (its rows up to there are kept)."""
    bytes_read: int = 0
    """Bytes of the file read (compressed bytes for ``.gz``)."""

    @property
    def ok(self) -> bool:
        """No bad line and read to the end."""
        return self.bad_lines == 0 and self.failure is None


def _open(path: str) -> tuple[io.BufferedIOBase, io.BufferedIOBase]:
    """``(raw file, line stream)``: the stream is the raw file, or a gzip reader over it."""
    raw = open(path, "rb")
    if path.endswith(".gz"):
        return raw, gzip.GzipFile(fileobj=raw, mode="rb")
    return raw, raw


class _Unreadable(Exception):
    """Reading stopped before the end of the input (``cause``: why)."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _batches(
    stream: io.BufferedIOBase, remaining: int | None, max_line: int, max_bytes: int | None = None
) -> Iterator[tuple[list[bytes], list[int]]]:
    """The complete lines of ``stream`` (at most ``remaining`` bytes of it, when
    given), in batches of about :data:`BATCH_BYTES` or :data:`BATCH_LINES`
    (at most that many and one read's): ``(lines, indices of the
    lines longer than max_line)``. An overlong line is given as ``b""`` and its
    bytes are dropped as they are read (never more than ``max_line`` of them are
    held). Reads :data:`READ_BYTES` at a time (``read1``: one decompression step
    of a gzip stream), so a damaged stream still gives every line read whole
    before the damage: the batch that holds them is yielded, then
    :class:`_Unreadable` is raised; so too past ``max_bytes`` bytes read (a
    gzip bomb): every line complete within the first ``max_bytes`` bytes is
    given, the line that the limit cuts is dropped. The last line of the input
    needs no line break."""
    step = max(1, min(READ_BYTES, max_line))  # A line inside one read is never overlong.
    pending: list[bytes] = []  # The start of the line being read.
    pending_size = 0
    overlong = False  # The line being read is past `max_line`: its bytes are dropped.
    lines: list[bytes] = []
    long: list[int] = []
    size = 0
    total = 0
    while remaining is None or remaining > 0:
        try:
            block = stream.read1(step if remaining is None else min(step, remaining))
        except (OSError, EOFError, zlib.error) as e:
            if lines:
                yield lines, long
            raise _Unreadable(e) from e
        if not block:
            break
        past = max_bytes is not None and total + len(block) > max_bytes
        if past:
            # The limit applies at its exact byte: the lines complete below it are kept.
            assert max_bytes is not None
            block = block[: max_bytes - total]
        total += len(block)
        if remaining is not None:
            remaining -= len(block)
        size += len(block)
        pieces = block.split(b"\n")
        tail = pieces.pop()  # After the block's last line break: the start of the next line.
        if pieces:
            head = pieces[0]
            if overlong or pending_size + len(head) + 1 > max_line:
                long.append(len(lines))
                pieces[0] = b""
            elif pending:
                pending.append(head)
                pieces[0] = b"".join(pending)
            pending, pending_size, overlong = [], 0, False
            lines.extend(pieces)
        if tail and not overlong:
            if pending_size + len(tail) > max_line:
                pending, pending_size, overlong = [], 0, True
            else:
                pending.append(tail)
                pending_size += len(tail)
        if past:
            if lines:
                yield lines, long
            bomb = ValueError(f"decompressed past {max_bytes} bytes (--max-gunzip-bytes; a gzip bomb?)")
            raise _Unreadable(bomb)
        if size >= BATCH_BYTES or len(lines) >= BATCH_LINES:
            yield lines, long
            lines, long, size = [], [], 0
    if overlong:
        long.append(len(lines))
        lines.append(b"")
    elif pending:
        lines.append(b"".join(pending))
    if lines:
        yield lines, long


def _harvest_into(
    path: str,
    name: str,
    write: Any,
    diagnostics: bool,
    report: FileReport,
    on_error: Any = None,
    on_progress: Any = None,
    chunk: tuple[int, int, int] | None = None,
    max_line: int = MAX_LINE_BYTES,
    max_gunzip: int = MAX_GUNZIP_BYTES,
    max_bad: int = MAX_BAD_LINES,
) -> None:
    """Reads ``path`` in batches, scans them and hands each record batch to
    ``write``; ``name`` is the file as given (in rows and reports). ``chunk``
    ``(start, end, first line)``: only the lines from byte ``start`` (a line
    start) to ``end`` (a line end) of a plain file. A ``.gz`` file is read up
    to ``max_gunzip`` decompressed bytes (:data:`MAX_GUNZIP_BYTES`); reading
    stops at the first bad line past ``max_bad`` (:data:`MAX_BAD_LINES`).

    A file that cannot be opened (it vanished), or whose reading stops early (a
    truncated or corrupt gzip, a read error), keeps the rows of every line read
    whole before, and ``report.failure`` names the file and the line where
    reading stopped: ``FILE:LINE: unreadable from this line on: why``. Errors
    of ``write`` (the output) are raised."""
    first = 1 if chunk is None else chunk[2]
    start = 0 if chunk is None else chunk[0]
    remaining = None if chunk is None else chunk[1] - chunk[0]
    try:
        raw, stream = _open(path)
    except OSError as e:
        report.failure = f"{name}:{first}: unreadable from this line on: {e.strerror or e}"
        return
    with raw, stream:
        try:
            raw.seek(start)
        except OSError as e:
            report.failure = f"{name}:{first}: unreadable from this line on: {e}"
            return
        try:
            gunzip = max_gunzip if stream is not raw else None
            at_start = start == 0  # A byte order mark there is not part of line 1.
            for lines, long in _batches(stream, remaining, max_line, gunzip):
                if at_start and lines:
                    lines[0] = lines[0].removeprefix(b"\xef\xbb\xbf")
                at_start = False
                n, cols, runs = _native.harvest_lines(lines, diagnostics, name, first)
                too_long = set(long)
                kept = len(lines)  # The lines before the first bad line past `max_bad`.
                for i, count, why in runs:
                    if report.bad_lines + count > max_bad:
                        count = max_bad - report.bad_lines
                        kept = i + count
                    report.bad_lines += count
                    # Each run is counted; only the first bad lines of a file are looked at one by one.
                    for j in range(i, i + min(count, MAX_REPORTED_ERRORS - len(report.errors))):
                        said = f"longer than {max_line} bytes (not read)" if j in too_long else why
                        text = f"{name}:{first + j}: bad line: {said}"
                        report.errors.append(text)
                        if on_error is not None:
                            on_error(text)
                    if kept < len(lines):
                        break
                if n:
                    batch = _batch(n, cols, {})
                    if kept < len(lines):  # Rows are in line order: those of the lines kept lead.
                        line = batch.column("line")
                        batch = batch.slice(0, sum(1 for v in line.to_pylist() if v < first + kept))
                    if batch.num_rows:
                        write(batch)
                    report.rows += batch.num_rows
                report.messages += kept - sum(min(i + count, kept) - i for i, count, _ in runs if i < kept)
                if kept < len(lines):
                    report.failure = (
                        f"{name}:{first + kept}: unreadable from this line on:"
                        f" more than {max_bad} bad lines (--max-bad-lines; not a message log?)"
                    )
                    report.bytes_read = raw.tell() - start
                    return
                first += len(lines)
                report.bytes_read = raw.tell() - start
                if on_progress is not None:
                    on_progress(report.bytes_read)
        except _Unreadable as e:
            report.failure = f"{name}:{first}: unreadable from this line on: {e}"


def chunks(path: str, size: int = CHUNK_BYTES) -> list[tuple[int, int, int] | None]:
    """How Dask splits ``path``: ``[None]`` (the whole file) for a ``.gz`` file or
    one of at most ``size`` bytes, else ``(start, end, first line)`` of pieces of
    about ``size`` bytes, each ending just after a line break (or at the end of
    the file). One pass over the file, counting line breaks."""
    total = os.path.getsize(path)
    if path.endswith(".gz") or total <= size:
        return [None]
    out: list[tuple[int, int, int] | None] = []
    start, first, lines, pos, target = 0, 1, 0, 0, size
    with open(path, "rb") as f:
        while block := f.read(16 << 20):
            offset = 0
            while target < pos + len(block):
                i = block.find(b"\n", max(target - pos, offset))
                if i < 0:
                    break
                end = pos + i + 1
                out.append((start, end, first))
                start, first = end, lines + block.count(b"\n", 0, i + 1) + 1
                target, offset = end + size, i + 1
            lines += block.count(b"\n")
            pos += len(block)
    if start < total:
        out.append((start, total, first))
    return out


def _writer(out: str) -> Any:
    return _parquet().ParquetWriter(out, schema(), compression="zstd")


def harvest_file(
    path: str,
    out: str,
    diagnostics: bool = False,
    name: str | None = None,
    chunk: tuple[int, int, int] | None = None,
    max_line: int = MAX_LINE_BYTES,
    max_gunzip: int = MAX_GUNZIP_BYTES,
    max_bad_lines: int = MAX_BAD_LINES,
) -> FileReport:
    """Harvests one file, or one ``chunk`` of it (see :func:`chunks`), into the
    Parquet file ``out`` (a Dask task runs this); ``name`` (default ``path``) is
    the file as the rows and reports name it. A file that vanished or is
    damaged is reported in the returned report (``failure``), with the rows read
    before written; an ``OSError`` writing ``out`` is raised."""
    report = FileReport(path if name is None else name)
    writer = _writer(out)
    try:
        _harvest_into(
            path,
            report.path,
            writer.write_batch,
            diagnostics,
            report,
            chunk=chunk,
            max_line=max_line,
            max_gunzip=max_gunzip,
            max_bad=max_bad_lines,
        )
    finally:
        writer.close()
    return report


class Progress:
    """A one-line progress display on a terminal: files and bytes done, rate."""

    def __init__(self, stream: TextIO, files: int, total_bytes: int, enabled: bool) -> None:
        self.stream = stream
        self.files = files
        self.total = total_bytes
        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def update(self, files_done: int, bytes_done: int, force: bool = False) -> None:
        """Redraws the line, at most five times a second unless ``force``; a
        stream that can no longer be written ends the display, not the harvest."""
        if not self.enabled:
            return
        try:
            self._draw(files_done, bytes_done, force)
        except (OSError, ValueError):
            self.enabled = False

    def _draw(self, files_done: int, bytes_done: int, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self.last < 0.2:
            return
        self.last = now
        rate = bytes_done / max(now - self.start, 1e-9)
        pct = 100.0 * bytes_done / self.total if self.total else 100.0
        self.stream.write(
            f"\rfiles {files_done}/{self.files}  {_size(bytes_done)}/{_size(self.total)} ({pct:.0f}%)  {_size(rate)}/s "
        )
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        """Ends the line, so that other output starts on its own line."""
        if self.shown:
            self.shown = False
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                self.enabled = False


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass
class Summary:
    """What a whole harvest did."""

    files: list[FileReport]
    out: str
    seconds: float
    duplicates: list[str] = field(default_factory=list)
    """``PATH: the same file as FIRST …`` of every input given again (by
    another name, a link, or twice): harvested once, under its first name."""

    @property
    def ok(self) -> bool:
        """Every file read to its end with no bad line."""
        return all(f.ok for f in self.files)


def _check_paths(paths: Sequence[str], out: str) -> list[int]:
    """The size of every input; ``ValueError`` for a usage error."""
    sizes = []
    for p in paths:
        if not (p.endswith(".jsonl") or p.endswith(".jsonl.gz")):
            raise ValueError(f"{p}: not a .jsonl or .jsonl.gz file")
        if not os.path.lexists(p):
            raise ValueError(f"{p}: no such file")
        if not os.path.isfile(p):
            raise ValueError(f"{p}: not a regular file (a directory, a FIFO, a device or a broken link): not read")
        sizes.append(os.path.getsize(p))
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        raise ValueError(f"{out}: no directory {parent}")
    if os.path.lexists(out):
        raise ValueError(f"{out} exists already: the harvest does not overwrite")
    if os.path.lexists(out + ".partial"):
        raise ValueError(
            f"{out}.partial exists already: another harvest is writing it, or one was killed"
            " (SIGKILL, a crash) before it could remove it; remove it if no harvest runs"
        )
    return sizes


def _distinct(paths: Sequence[str], sizes: Sequence[int]) -> tuple[list[str], list[int], list[str]]:
    """The inputs less those that are a file given before (the same device and
    inode: the same path twice, another spelling of it, a symbolic or hard
    link), their sizes, and a line saying so for each one left out."""
    seen: dict[tuple[int, int], str] = {}
    kept: list[str] = []
    kept_sizes: list[int] = []
    dropped: list[str] = []
    for p, size in zip(paths, sizes):
        try:
            st = os.stat(p)
            identity = (st.st_dev, st.st_ino)
        except OSError:  # Vanished: its harvest reports it.
            identity = (-1, len(kept))
        first = seen.get(identity)
        if first is None:
            seen[identity] = p
            kept.append(p)
            kept_sizes.append(size)
        else:
            dropped.append(f"{p}: the same file as {first} (given before): harvested once, as {first}")
    return kept, kept_sizes, dropped


def _claim(partial: str, directory: bool) -> None:
    """Creates ``partial`` (a file, or a directory), failing if it exists: two
    harvests into one ``out`` at once cannot both write it."""
    try:
        if directory:
            os.mkdir(partial)
        else:
            os.close(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    except FileExistsError:
        raise ValueError(f"{partial} exists already: another harvest writes it") from None


def _discard(partial: str) -> None:
    """Removes what a failed harvest wrote, whatever state it is in."""
    if os.path.isdir(partial) and not os.path.islink(partial):
        shutil.rmtree(partial, ignore_errors=True)
    else:
        try:
            os.remove(partial)
        except OSError:
            pass


def _report_end(report: FileReport, report_error: Any) -> None:
    """Reports a file's failure, or the count of its bad lines not reported one by one."""
    if report.failure is not None:
        report_error(report.failure)
    elif report.bad_lines > len(report.errors):
        report_error(f"{report.path}: {report.bad_lines - len(report.errors)} more bad lines")


def harvest(
    paths: Sequence[str],
    out: str,
    *,
    diagnostics: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    stderr: TextIO | None = None,
    chunk_bytes: int = CHUNK_BYTES,
    max_line: int = MAX_LINE_BYTES,
    max_gunzip: int = MAX_GUNZIP_BYTES,
    max_bad_lines: int = MAX_BAD_LINES,
) -> Summary:
    """Harvests ``paths`` into ``out``: one Parquet file, or with ``workers`` (a
    local Dask cluster) or ``scheduler`` (a Dask scheduler's address) a directory
    of one ``part-NNNNN.parquet`` per task, in input order: a task per ``.gz``
    file, and per piece of about ``chunk_bytes`` of a plain file.

    Bad lines (and lines longer than ``max_line`` bytes, which are not read
    whole) are reported on ``stderr`` (``FILE:LINE: bad line: why``) and in the
    summary; every other line is harvested. A file that vanished or cannot be
    read to its end keeps the rows of every line read whole before and is
    reported as ``FILE:LINE: unreadable from this line on: why``; the other
    files are harvested; a ``.gz`` file is read up to ``max_gunzip``
    decompressed bytes, and reported unreadable from there; a file (or a Dask
    task's piece of one) is read up to its first bad line past
    ``max_bad_lines``, and reported unreadable from there. An input that is
    a file given before (the same file by another path or link, or the same
    path twice) is harvested once, under its first name, and said on
    ``stderr`` and in :attr:`Summary.duplicates`. The output is written under
    ``OUT.partial`` and renamed to ``out`` once complete; an exception
    (``KeyboardInterrupt``, and ``SIGTERM`` in :func:`main`, included) leaves
    no ``out`` and no ``OUT.partial``. Raises ``ValueError`` for an input that is not a
    ``.jsonl`` or ``.jsonl.gz`` file or does not exist, and when ``out`` or
    ``OUT.partial`` exists or its directory does not; ``OSError`` when the
    output cannot be written.
    """
    err = stderr if stderr is not None else sys.stderr
    out = os.path.normpath(out)  # `harvest/` names the directory `harvest`.
    sizes = _check_paths(paths, out)
    paths, sizes, duplicates = _distinct(paths, sizes)
    _pyarrow()
    total = sum(sizes)
    bar = Progress(err, len(paths), total, progress)
    start = time.monotonic()
    partial = out + ".partial"

    unheard = False  # The reader of `err` went away: the harvest goes on, unreported.

    def report_error(text: str) -> None:
        nonlocal unheard
        if unheard:
            return
        try:
            bar.clear()
            err.write(text + "\n")
            err.flush()
        except (OSError, ValueError):  # A closed pipe or stream (`2>&1 | head`): the table still matters.
            unheard = True
            bar.enabled = False

    for text in duplicates:
        report_error(text)

    if workers is None and scheduler is None:
        reports: list[FileReport] = []
        done_bytes = 0
        _claim(partial, directory=False)
        try:
            writer = _writer(partial)
            try:
                for p, size in zip(paths, sizes):
                    report = FileReport(p)
                    before = done_bytes
                    _harvest_into(
                        p,
                        p,
                        writer.write_batch,
                        diagnostics,
                        report,
                        report_error,
                        lambda b: bar.update(len(reports), before + b),
                        max_line=max_line,
                        max_gunzip=max_gunzip,
                        max_bad=max_bad_lines,
                    )
                    _report_end(report, report_error)
                    done_bytes += size
                    reports.append(report)
                    bar.update(len(reports), done_bytes)
            finally:
                writer.close()
        except BaseException:
            _discard(partial)
            raise
    else:
        reports = _harvest_dask(
            paths,
            sizes,
            partial,
            diagnostics,
            workers,
            scheduler,
            bar,
            report_error,
            chunk_bytes,
            max_line,
            max_gunzip,
            max_bad_lines,
        )
    try:
        if os.path.lexists(out):  # Made meanwhile: the harvest does not overwrite.
            raise FileExistsError(errno.EEXIST, "created during the harvest, not overwritten", out)
        os.replace(partial, out)
    except BaseException:
        _discard(partial)
        raise
    bar.update(len(paths), total, force=True)
    bar.clear()
    return Summary(reports, out, time.monotonic() - start, duplicates)


def task_key(
    path: str,
    chunk: tuple[int, int, int] | None,
    part: str,
    diagnostics: bool,
    max_line: int,
    max_gunzip: int = MAX_GUNZIP_BYTES,
    max_bad_lines: int = MAX_BAD_LINES,
) -> str:
    """The Dask key of the task that harvests ``chunk`` of the file ``path``
    into the part file ``part`` (absolute paths): a digest of everything that
    makes the task distinct (the input and its chunk, the output, the options,
    the schema version), so two harvests of one file at once on one scheduler
    (another ``--out``, or another option) never share a task. Two harvests
    cannot have one output at once (``OUT.partial`` is created exclusively)."""
    what = json.dumps([SCHEMA_VERSION, path, chunk, part, diagnostics, max_line, max_gunzip, max_bad_lines])
    return f"agent-sentences-harvest-{hashlib.sha256(what.encode()).hexdigest()[:32]}"


_CLIENTS: Final = threading.Lock()
"""Held while a harvest connects its Dask client to a scheduler and while it
closes it: harvests started at once from threads of one process connect and
close one at a time (decision P254; concurrent connections lost a harvest's
task results, which then waited for ever)."""


CLOSE_SECONDS: Final = 30
"""How long closing the Dask client, then the local cluster, may each take at
the end of a harvest (the results are in by then)."""


def _close_dask(client: Any, cluster: Any) -> None:
    """Closes ``client``, then the local ``cluster`` (``None`` for a running
    scheduler's), each with :data:`CLOSE_SECONDS` to do it, with Dask's own
    shutdown logging silenced: workers killed after their grace period and
    connections closed under a pending heartbeat are not for a user to read
    (decision P286; a ``--workers 2`` harvest printed a 30-line traceback
    after a complete table). A close that fails or times out is passed over:
    every result was received before it, and the worker processes end with
    this one."""
    distributed_log = logging.getLogger("distributed")
    level = distributed_log.level
    distributed_log.setLevel(logging.CRITICAL + 1)
    try:
        with _CLIENTS:
            try:
                client.close(timeout=CLOSE_SECONDS)
            except Exception:  # noqa: BLE001  The results are in; see above.
                pass
        if cluster is not None:
            try:
                cluster.close(timeout=CLOSE_SECONDS)
            except Exception:  # noqa: BLE001
                pass
    finally:
        distributed_log.setLevel(level)


def _harvest_dask(
    paths: Sequence[str],
    sizes: Sequence[int],
    partial: str,
    diagnostics: bool,
    workers: int | None,
    scheduler: str | None,
    bar: Progress,
    report_error: Any,
    chunk_bytes: int,
    max_line: int,
    max_gunzip: int,
    max_bad_lines: int,
) -> list[FileReport]:
    """One Dask task per file or chunk (:func:`chunks`), task ``t`` writing
    ``partial/part-NNNNN.parquet`` with ``NNNNN`` = ``t``, in input order, under
    the key :func:`task_key`."""
    try:
        distributed = importlib.import_module("distributed")
    except ImportError as e:
        raise ImportError(_HINT) from e
    _claim(partial, directory=True)
    try:
        if scheduler is not None:
            with _CLIENTS:
                client = distributed.Client(scheduler)
            cluster = None
        else:
            # The workers' own logs are silenced (the nanny's, in this process,
            # while closing: `_close_dask`); a task's failure reaches the
            # harvest as its exception.
            cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.CRITICAL,
            )
            client = distributed.Client(cluster)
        try:
            # Workers may run elsewhere: they get absolute paths (a shared file system).
            tasks: list[tuple[int, tuple[int, int, int] | None]] = []
            for k, p in enumerate(paths):
                try:
                    tasks.extend((k, c) for c in chunks(p, chunk_bytes))
                except OSError:
                    tasks.append((k, None))  # Vanished: its task reports it.
            futures = []
            for t, (k, c) in enumerate(tasks):
                path = os.path.abspath(paths[k])
                part_file = os.path.abspath(os.path.join(partial, f"part-{t:05d}.parquet"))
                futures.append(
                    client.submit(
                        harvest_file,
                        path,
                        part_file,
                        diagnostics,
                        paths[k],
                        c,
                        max_line,
                        max_gunzip,
                        max_bad_lines,
                        key=task_key(path, c, part_file, diagnostics, max_line, max_gunzip, max_bad_lines),
                        pure=False,
                    )
                )
            results: list[FileReport | None] = [None] * len(tasks)
            index = {f.key: t for t, f in enumerate(futures)}
            done_bytes = 0
            left = [0] * len(paths)
            for k, _ in tasks:
                left[k] += 1
            for fut in distributed.as_completed(futures):
                t = index[fut.key]
                r: FileReport = fut.result()
                results[t] = r
                k, c = tasks[t]
                done_bytes += sizes[k] if c is None else c[1] - c[0]
                left[k] -= 1
                bar.update(sum(n == 0 for n in left), done_bytes)
        finally:
            _close_dask(client, cluster)
    except BaseException:
        _discard(partial)
        raise
    out = [FileReport(p) for p in paths]
    for (k, _), part in zip(tasks, results):
        if part is None:  # pragma: no cover  (every future was awaited)
            raise RuntimeError("a harvest task returned nothing")
        r = out[k]
        r.messages += part.messages
        r.rows += part.rows
        r.bad_lines += part.bad_lines
        r.bytes_read += part.bytes_read
        r.errors.extend(part.errors[: MAX_REPORTED_ERRORS - len(r.errors)])
        if r.failure is None:
            r.failure = part.failure
    for r in out:
        for text in r.errors:
            report_error(text)
        _report_end(r, report_error)
    return out


class _Signalled(BaseException):
    """Raised in the main thread when ``SIGTERM`` or ``SIGHUP`` arrives, so that
    the harvest unwinds (removing ``OUT.partial``) as on ``KeyboardInterrupt``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_signalled(signum: int, frame: Any) -> None:
    # Once: a second signal does not cut short the removal of OUT.partial.
    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) is _raise_signalled:
            signal.signal(s, signal.SIG_IGN)
    raise _Signalled(signum)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line. Exit status: :data:`EXIT_OK` (0) when every line was
    harvested; :data:`EXIT_BAD_LINES` (1) when a line was bad or a file
    unreadable from some line on (the table is written with every row that
    could be read); :data:`EXIT_USAGE` (2) on a usage error (nothing written);
    :data:`EXIT_FAILED` (3) when the harvest failed while running, the output
    not writable (no permission, disk full) or a Dask task failed: one line
    ``error: …`` on stderr, and no table written; :data:`EXIT_SIGNALLED`
    (143) when stopped by ``SIGTERM`` or ``SIGHUP``, and 130 by ``SIGINT``
    (Ctrl-C): ``OUT.partial`` removed, no table written. (``SIGKILL`` cannot be
    caught: its ``OUT.partial`` stays, and the next harvest into that ``OUT``
    refuses to start until it is removed.)"""
    parser = argparse.ArgumentParser(
        prog="python -m agent_sentences.harvest",
        description="Scan JSON Lines message logs ({at, from, text}; .jsonl, .jsonl.gz) into a Parquet table, a row per found sentence or tool directive.",
        epilog="exit status: 0 every line harvested; 1 bad lines or an unreadable file (the table is written); 2 usage error (nothing written); 3 failed while running, e.g. output not writable or disk full (no table written)",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a .jsonl or .jsonl.gz file")
    parser.add_argument("--out", required=True, help="the Parquet file (a directory of part files with Dask)")
    parser.add_argument("--diagnostics", action="store_true", help="also a row per skipped directive candidate, with its reason")
    cluster = parser.add_mutually_exclusive_group()
    cluster.add_argument("--workers", type=int, metavar="N", help="run on a local Dask cluster of N worker processes")
    cluster.add_argument("--scheduler", metavar="ADDRESS", help="run on the Dask cluster at ADDRESS (workers must see the files)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no summary")
    parser.add_argument(
        "--max-gunzip-bytes",
        type=int,
        default=MAX_GUNZIP_BYTES,
        metavar="N",
        help=f"read a .jsonl.gz file up to N decompressed bytes, and report it unreadable past them (default {MAX_GUNZIP_BYTES})",
    )
    parser.add_argument(
        "--max-bad-lines",
        type=int,
        default=MAX_BAD_LINES,
        metavar="N",
        help=f"stop reading a file at its first bad line past N, and report it unreadable from there (default {MAX_BAD_LINES})",
    )
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        parser.error("--workers needs at least 1")
    if args.max_gunzip_bytes < 1:
        parser.error("--max-gunzip-bytes needs at least 1")
    if args.max_bad_lines < 0:
        parser.error("--max-bad-lines needs at least 0")
    show = not args.quiet and sys.stderr.isatty()
    # Signal handlers can be set from the main thread only; a signal ignored
    # when the harvest starts (`nohup`) stays ignored.
    caught = (signal.SIGTERM, signal.SIGHUP) if threading.current_thread() is threading.main_thread() else ()
    previous = {s: signal.signal(s, _raise_signalled) for s in caught if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        summary = harvest(
            args.logs,
            args.out,
            diagnostics=args.diagnostics,
            workers=args.workers,
            scheduler=args.scheduler,
            progress=show,
            max_gunzip=args.max_gunzip_bytes,
            max_bad_lines=args.max_bad_lines,
        )
    except _Signalled as e:
        print(f"error: stopped by {e} (no table written)", file=sys.stderr)
        return EXIT_SIGNALLED
    except KeyboardInterrupt:
        print("error: interrupted (no table written)", file=sys.stderr)
        return 128 + signal.SIGINT
    except (ValueError, ImportError) as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"error: {e} (no table written)", file=sys.stderr)
        return EXIT_FAILED
    except Exception as e:  # A failed Dask task, a bug: said, with where it came from.
        traceback.print_exc(file=sys.stderr)
        print(f"error: {type(e).__name__}: {e} (no table written)", file=sys.stderr)
        return EXIT_FAILED
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if show:
        messages = sum(f.messages for f in summary.files)
        rows = sum(f.rows for f in summary.files)
        bad = sum(f.bad_lines for f in summary.files)
        print(
            f"{len(summary.files)} files, {messages} messages, {rows} rows, {bad} bad lines in {summary.seconds:.1f} s -> {summary.out}",
            file=sys.stderr,
        )
    return EXIT_OK if summary.ok else EXIT_BAD_LINES


if __name__ == "__main__":
    sys.exit(main())
