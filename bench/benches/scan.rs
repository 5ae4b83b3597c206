//! The Rust side of `cargo xtask bench`: the scanner and the parsers on the
//! shared corpus (criterion; results land in target/criterion/).
//!
//! Every row is timed by the thread's CPU time ([`ThreadCpu`]), so that what
//! other processes do on a shared machine is not counted, except
//! `realistic-all-cores/scan`, which runs on every core and is timed by the
//! wall clock. Estimates stay in nanoseconds.

use agent_sentences::loops;
use agent_sentences::scan::scan;
use agent_sentences::Sentence;
use agent_sentences_bench::{
    conversation, hostile, long_reply, markdown_hostile, markdown_rich, prose_only, realistic,
    Baseline, Hostile,
};
use agent_sentences_runtime::context::{bare_parse, reader_names};
use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{criterion_group, criterion_main, BenchmarkId, Throughput};

/// The criterion of every row timed by CPU time.
type Criterion = criterion::Criterion<ThreadCpu>;
/// A group of rows timed by CPU time.
type Group<'a> = criterion::BenchmarkGroup<'a, ThreadCpu>;

fn realistic_corpus(c: &mut Criterion) {
    let corpus = realistic(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("realistic");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| corpus.iter().map(|m| scan(&m.text).len()).sum::<usize>())
    });
    candidates(&mut g, &corpus);
    // Issues 12 and 24: each reader's bare parse (the scanner's options,
    // nothing else), and the strong baseline without context.
    readers_and_baseline(&mut g, &corpus);
    let sentences: Vec<String> = agent_sentences::SentenceKind::ALL
        .iter()
        .map(|k| k.example_sentence().to_owned())
        .collect();
    g.throughput(Throughput::Elements(sentences.len() as u64));
    g.bench_function("parse-examples", |b| {
        b.iter(|| {
            sentences
                .iter()
                .filter(|s| s.parse::<Sentence>().is_ok())
                .count()
        })
    });
    g.finish();
    let prose = prose_only(1 << 20);
    let mut g = c.benchmark_group("prose");
    g.throughput(Throughput::Bytes(prose.len() as u64));
    g.bench_function("scan", |b| b.iter(|| scan(&prose).len()));
    g.finish();
}

/// Issue 27: the candidate work apart from the context: the scan of each
/// text with its Markdown context forced trivial (each paragraph one run of
/// text, no reader run), so a regression in either part shows.
fn candidates(g: &mut Group<'_>, corpus: &[agent_sentences_bench::Message]) {
    use agent_sentences::scan::scan_context_forced_trivial;
    g.bench_function("candidates", |b| {
        b.iter(|| {
            corpus
                .iter()
                .map(|m| scan_context_forced_trivial(&m.text).0.len())
                .sum::<usize>()
        })
    });
}

/// The bare parse of each CommonMark reader (the scanner's list of readers,
/// each row named after its reader) and the strong baseline, on one corpus.
fn readers_and_baseline(g: &mut Group<'_>, corpus: &[agent_sentences_bench::Message]) {
    for (k, name) in reader_names().into_iter().enumerate() {
        g.bench_function(name, |b| {
            b.iter(|| corpus.iter().map(|m| bare_parse(k, &m.text)).sum::<usize>())
        });
    }
    let baseline = Baseline::new();
    g.bench_function("baseline", |b| {
        b.iter(|| corpus.iter().map(|m| baseline.scan(&m.text)).sum::<usize>())
    });
}

/// Issue 24's second corpus: Markdown-rich agent replies, where the readers
/// must run: the scan beside each reader's bare parse and the baseline.
fn markdown_rich_corpus(c: &mut Criterion) {
    let corpus = markdown_rich(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("markdown-rich");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| corpus.iter().map(|m| scan(&m.text).len()).sum::<usize>())
    });
    candidates(&mut g, &corpus);
    readers_and_baseline(&mut g, &corpus);
    g.finish();
}

/// The loop tracker over the corpus as a conversation, beside scanning the
/// same texts alone.
fn loop_tracker(c: &mut Criterion) {
    let corpus = realistic(2000);
    let talk = conversation(&corpus);
    let bytes: usize = talk.iter().map(|(_, _, t)| t.len()).sum();
    let start = loops::Timestamp::from_second(1_796_000_000).unwrap();
    let times: Vec<loops::Timestamp> = talk
        .iter()
        .map(|(s, _, _)| start.checked_add(jiff_seconds(*s)).unwrap())
        .collect();
    let mut g = c.benchmark_group("loops");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| talk.iter().map(|(_, _, t)| scan(t).len()).sum::<usize>())
    });
    g.bench_function("track", |b| {
        b.iter(|| {
            let mut t = loops::tracker(loops::default_config())
                .expect("the spec's SLA defaults pass the check");
            for ((_, from, text), at) in talk.iter().zip(&times) {
                loops::feed(&mut t, *at, from, text);
            }
            t.state().loops.len()
        })
    });
    g.finish();
}

/// `resolve` on every directive the corpus holds, beside scanning the
/// corpus alone: resolution is a separate call, so `realistic/scan` does not
/// pay for it.
fn resolve_calls(c: &mut Criterion) {
    use agent_sentences::ops;
    use agent_sentences::scan::Item;
    let corpus = realistic(2000);
    let directives: Vec<_> = corpus
        .iter()
        .flat_map(|m| scan(&m.text))
        .filter_map(|f| match f.item {
            Item::Directive { directive } => Some(directive),
            Item::Sentence { .. } => None,
        })
        .collect();
    let _ = ops::resolve(&directives[0]); // the validators are built once, on first use
    let mut g = c.benchmark_group("ops");
    g.throughput(Throughput::Elements(directives.len() as u64));
    g.bench_function("resolve", |b| {
        b.iter(|| {
            directives
                .iter()
                .filter(|d| ops::resolve(d).is_ok())
                .count()
        })
    });
    g.bench_function("scan+resolve", |b| {
        b.iter(|| {
            corpus
                .iter()
                .flat_map(|m| scan(&m.text))
                .filter(|f| matches!(&f.item, Item::Directive { directive } if ops::resolve(directive).is_ok()))
                .count()
        })
    });
    g.finish();
}

fn jiff_seconds(s: i64) -> std::time::Duration {
    std::time::Duration::from_secs(s as u64)
}

/// Seconds one run of a hostile input may take before its kind is left out
/// at that size and every larger one (reported as a timeout), so that a
/// superlinear case does not stall the benchmark.
const PROBE_LIMIT_SECS: f64 = 5.0;

/// True when criterion runs each benchmark once to check that it runs (as
/// `cargo test --all-targets` runs this file: no `--bench` argument, or
/// `--test`), not to measure it.
fn test_mode() -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench")
}

/// Benchmarks `run` on every input of `inputs` in one group, sizes in
/// ascending order, after one timed probe run: a kind whose probe takes
/// longer than [`PROBE_LIMIT_SECS`] is left out from that size on. In
/// [`test_mode`] only the smallest size of each kind runs, once, unprobed:
/// the check that the code runs, not a measurement (a debug build of every
/// reader on every size to 4 MiB took minutes of the test command).
fn capped_group(c: &mut Criterion, name: &str, inputs: &[Hostile], run: &dyn Fn(&str) -> usize) {
    let mut g = c.benchmark_group(name);
    g.sample_size(10);
    let testing = test_mode();
    let mut seen: Vec<&str> = Vec::new();
    let mut slow: Vec<&str> = Vec::new();
    for h in inputs {
        if testing {
            if seen.contains(&h.kind) {
                continue;
            }
            seen.push(h.kind);
            g.bench_with_input(BenchmarkId::new(h.kind, h.size), &h.text, |b, text| {
                b.iter(|| run(text))
            });
            continue;
        }
        if slow.contains(&h.kind) {
            continue;
        }
        let t = std::time::Instant::now();
        std::hint::black_box(run(&h.text));
        if t.elapsed().as_secs_f64() > PROBE_LIMIT_SECS {
            eprintln!(
                "{name}/{}/{}: one run over {PROBE_LIMIT_SECS} s, left out from this size on",
                h.kind, h.size
            );
            slow.push(h.kind);
            continue;
        }
        g.throughput(Throughput::Bytes(h.size as u64));
        g.bench_with_input(BenchmarkId::new(h.kind, h.size), &h.text, |b, text| {
            b.iter(|| run(text))
        });
    }
    g.finish();
}

/// The hostile inputs (issue 11's), then the Markdown-stressing ones (issue
/// 12's and 25's, to 4 MiB): one group each, 10 samples a size; then the bare
/// parse of each reader on the Markdown-stressing inputs, how much of the
/// scanner's growth per doubling is the readers' own.
fn hostile_inputs(c: &mut Criterion) {
    let sorted = |mut v: Vec<Hostile>| {
        v.sort_by_key(|h| h.size);
        v
    };
    let markdown = sorted(markdown_hostile());
    capped_group(c, "hostile", &sorted(hostile()), &|t| scan(t).len());
    capped_group(c, "markdown-hostile", &markdown, &|t| scan(t).len());
    for (k, name) in reader_names().into_iter().enumerate() {
        capped_group(c, &format!("markdown-hostile-{name}"), &markdown, &|t| {
            bare_parse(k, t)
        });
    }
}

/// Issue 35: the stream. The realistic corpus fed in 16-byte chunks, and a
/// 1 MiB reply (realistic messages, blank lines between) fed whole and one
/// byte at a time: the cost of streaming against batch on the same text.
fn streaming(c: &mut Criterion) {
    use agent_sentences::scan::Stream;
    let corpus = realistic(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("stream");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("realistic-16-byte-chunks", |b| {
        b.iter(|| {
            let mut n = 0;
            for m in &corpus {
                let mut s = Stream::new();
                for chunk in m.text.as_bytes().chunks(16) {
                    n += s.push_bytes(chunk).expect("UTF-8").len();
                }
                n += s.finish().expect("UTF-8").len();
            }
            n
        })
    });
    let reply = long_reply(1 << 20);
    g.throughput(Throughput::Bytes(reply.len() as u64));
    g.sample_size(10);
    g.bench_function("1mib-batch", |b| b.iter(|| scan(&reply).len()));
    g.bench_function("1mib-one-byte-at-a-time", |b| {
        b.iter(|| {
            let mut s = Stream::new();
            let mut n = 0;
            for byte in reply.as_bytes() {
                n += s
                    .push_bytes(std::slice::from_ref(byte))
                    .expect("UTF-8")
                    .len();
            }
            n + s.finish().expect("UTF-8").len()
        })
    });
    g.finish();
}

/// Issue 11: the realistic corpus's scans on every core (rayon, as
/// `scan_many` runs them), with no Python objects: the ceiling of
/// `scan_many`'s speed-up. Wall time: the work is on other threads.
fn all_cores(c: &mut criterion::Criterion<WallTime>) {
    use rayon::prelude::*;
    let corpus = realistic(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("realistic-all-cores");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| {
            corpus
                .par_iter()
                .map(|m| scan(&m.text).len())
                .sum::<usize>()
        })
    });
    g.finish();
}

/// The calling thread's CPU time as a criterion measurement, in
/// nanoseconds ([`agent_sentences_bench::thread_cpu`]).
struct ThreadCpu;

impl Measurement for ThreadCpu {
    type Intermediate = f64;
    type Value = f64;
    fn start(&self) -> f64 {
        agent_sentences_bench::thread_cpu()
    }
    fn end(&self, start: f64) -> f64 {
        (agent_sentences_bench::thread_cpu() - start) * 1e9
    }
    fn add(&self, a: &f64, b: &f64) -> f64 {
        a + b
    }
    fn zero(&self) -> f64 {
        0.0
    }
    fn to_f64(&self, ns: &f64) -> f64 {
        *ns
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &Nanoseconds
    }
}

/// Formats CPU nanoseconds as criterion formats wall time.
struct Nanoseconds;

impl ValueFormatter for Nanoseconds {
    fn scale_values(&self, ns: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match ns {
            ns if ns < 1e3 => (1.0, "ns"),
            ns if ns < 1e6 => (1e-3, "µs"),
            ns if ns < 1e9 => (1e-6, "ms"),
            _ => (1e-9, "s"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, _: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let (per, unit) = match *t {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => (n as f64 / 1e6, "MB/s"),
            Throughput::Elements(n) => (n as f64, "elem/s"),
        };
        values.iter_mut().for_each(|v| *v = per * 1e9 / *v);
        unit
    }

    fn scale_for_machines(&self, _: &mut [f64]) -> &'static str {
        "ns"
    }
}

criterion_group!(wall, all_cores);
criterion_group!(
    name = benches;
    config = criterion::Criterion::default().with_measurement(ThreadCpu);
    targets =
    realistic_corpus,
    streaming,
    markdown_rich_corpus,
    loop_tracker,
    resolve_calls,
    hostile_inputs
);
criterion_main!(benches, wall);
