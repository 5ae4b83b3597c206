//! The Rust side of `cargo xtask bench`: the scanner and the parsers on the
//! shared corpus (criterion; results land in target/criterion/).

use agent_sentences::scan::scan;
use agent_sentences::Sentence;
use agent_sentences_bench::{hostile, prose_only, realistic};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

fn realistic_corpus(c: &mut Criterion) {
    let corpus = realistic(2000);
    let bytes: usize = corpus.iter().map(|m| m.text.len()).sum();
    let mut g = c.benchmark_group("realistic");
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("scan", |b| {
        b.iter(|| corpus.iter().map(|m| scan(&m.text).len()).sum::<usize>())
    });
    let sentences: Vec<String> = agent_sentences::SentenceKind::ALL.iter().map(|k| k.example_sentence().to_owned()).collect();
    g.throughput(Throughput::Elements(sentences.len() as u64));
    g.bench_function("parse-examples", |b| {
        b.iter(|| sentences.iter().filter(|s| s.parse::<Sentence>().is_ok()).count())
    });
    g.finish();
    let prose = prose_only(1 << 20);
    let mut g = c.benchmark_group("prose");
    g.throughput(Throughput::Bytes(prose.len() as u64));
    g.bench_function("scan", |b| b.iter(|| scan(&prose).len()));
    g.finish();
}

fn hostile_inputs(c: &mut Criterion) {
    let mut g = c.benchmark_group("hostile");
    g.sample_size(10);
    for h in hostile() {
        g.throughput(Throughput::Bytes(h.size as u64));
        g.bench_with_input(BenchmarkId::new(h.kind, h.size), &h.text, |b, text| b.iter(|| scan(text).len()));
    }
    g.finish();
}

criterion_group!(benches, realistic_corpus, hostile_inputs);
criterion_main!(benches);
