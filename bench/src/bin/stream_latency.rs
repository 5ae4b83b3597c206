//! How soon a stream commits what it finds, in bytes, not time: each corpus
//! message fed one byte at a time, each found item's latency the bytes that
//! arrived after its end before it was committed, and the share committed
//! only when the stream finished (issue 35's promptness target). Also the
//! bytes a stream's readings read, per byte of text, for a 1 MiB reply fed
//! one byte at a time.

use agent_sentences::scan::{Event, Stream};
use agent_sentences_bench::{long_reply, markdown_rich, realistic, Message};

/// The latencies of every found item of `corpus`, and how many were
/// committed only at the end.
fn latencies(corpus: &[Message]) -> (Vec<usize>, usize) {
    let mut out = Vec::new();
    let mut at_finish = 0;
    for m in corpus {
        let mut stream = Stream::new();
        for (i, b) in m.text.bytes().enumerate() {
            for e in stream.push_bytes(&[b]).expect("UTF-8") {
                if let Event::Found(f) = e {
                    out.push(i + 1 - f.span.end);
                }
            }
        }
        for e in stream.finish().expect("UTF-8") {
            if let Event::Found(_) = e {
                at_finish += 1;
            }
        }
    }
    out.sort_unstable();
    (out, at_finish)
}

fn report(name: &str, corpus: &[Message]) {
    let (lat, at_finish) = latencies(corpus);
    let p = |q: f64| {
        lat.get(((lat.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or(0)
    };
    let total = lat.len() + at_finish;
    println!(
        "{name}: {total} items; committed before the end: {} (latency in bytes p50 {}, p90 {}, p99 {}, max {}); at finish only: {} ({:.1}%)",
        lat.len(),
        p(0.5),
        p(0.9),
        p(0.99),
        lat.last().copied().unwrap_or(0),
        at_finish,
        100.0 * at_finish as f64 / total.max(1) as f64
    );
}

fn main() {
    report("realistic", &realistic(2000));
    report("markdown-rich", &markdown_rich(300));
    let reply = long_reply(1 << 20);
    let mut stream = Stream::new();
    for b in reply.bytes() {
        stream.push_bytes(&[b]).expect("UTF-8");
    }
    println!(
        "1 MiB reply ({} bytes) fed one byte at a time: readings read {} bytes ({:.2} per byte)",
        reply.len(),
        stream.bytes_read(),
        stream.bytes_read() as f64 / reply.len() as f64
    );
}
