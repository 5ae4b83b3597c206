//! The Rust side of `cargo xtask bench`: the scanner and the parsers on the
//! shared corpus (criterion; results land in target/criterion/).

use agent_sentences::loops;
use agent_sentences::scan::scan;
use agent_sentences::Sentence;
use agent_sentences_bench::{
    conversation, hostile, markdown_hostile, prose_only, realistic, Baseline,
};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn realistic_corpus(c: &mut Criterion) {
    let corpus = realistic(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("realistic");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| corpus.iter().map(|m| scan(&m.text).len()).sum::<usize>())
    });
    // Issue 11: the same scans on every core (rayon, as `scan_many` runs
    // them), with no Python objects: the ceiling of `scan_many`'s speed-up.
    g.bench_function("scan-all-cores", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            corpus
                .par_iter()
                .map(|m| scan(&m.text).len())
                .sum::<usize>()
        })
    });
    // Issue 12: a bare pulldown-cmark parse (the offset iterator, nothing
    // else, the scanner's options), and the strong baseline without context.
    let options =
        pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH;
    g.bench_function("pulldown-cmark", |b| {
        b.iter(|| {
            corpus
                .iter()
                .map(|m| {
                    pulldown_cmark::Parser::new_ext(&m.text, options)
                        .into_offset_iter()
                        .count()
                })
                .sum::<usize>()
        })
    });
    let baseline = Baseline::new();
    g.bench_function("baseline", |b| {
        b.iter(|| corpus.iter().map(|m| baseline.scan(&m.text)).sum::<usize>())
    });
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

/// The hostile inputs (issue 11's), then the Markdown-stressing ones (issue
/// 12's, to 4 MiB): one group each, 10 samples a size.
fn hostile_inputs(c: &mut Criterion) {
    for (name, inputs) in [
        ("hostile", hostile()),
        ("markdown-hostile", markdown_hostile()),
    ] {
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        for h in inputs {
            g.throughput(Throughput::Bytes(h.size as u64));
            g.bench_with_input(BenchmarkId::new(h.kind, h.size), &h.text, |b, text| {
                b.iter(|| scan(text).len())
            });
        }
        g.finish();
    }
    // The bare pulldown-cmark parse of the Markdown-stressing inputs: how much
    // of the scanner's growth per doubling is the parser's own.
    let options =
        pulldown_cmark::Options::ENABLE_TABLES | pulldown_cmark::Options::ENABLE_STRIKETHROUGH;
    let mut g = c.benchmark_group("markdown-hostile-parse");
    g.sample_size(10);
    for h in markdown_hostile() {
        g.throughput(Throughput::Bytes(h.size as u64));
        g.bench_with_input(BenchmarkId::new(h.kind, h.size), &h.text, |b, text| {
            b.iter(|| {
                pulldown_cmark::Parser::new_ext(text, options)
                    .into_offset_iter()
                    .count()
            })
        });
    }
    g.finish();
}

criterion_group!(
    benches,
    realistic_corpus,
    loop_tracker,
    resolve_calls,
    hostile_inputs
);
criterion_main!(benches);
