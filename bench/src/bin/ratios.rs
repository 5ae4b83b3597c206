//! The scanner's ratios against its baselines, measured so they hold on a
//! shared, loaded machine (issues 35 and 37): every row is timed by the
//! thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`), the rows of one round run
//! one after another with their order rotated each round, and each ratio is
//! taken within a round, so load that comes and goes touches both sides of
//! it alike. Prints one JSON object: per ratio its median, p10 and p90 over
//! the rounds, and the machine's load average when the run started.
//!
//! `ratios [ROUNDS]` (default 9); `ratios --only ROW ROUNDS` runs one row
//! ROUNDS times and prints nothing (for a profiler); `ratios --peak batch`
//! and `ratios --peak stream` print the peak memory of one scan of a 4 MiB
//! reply, whole or fed in 64-byte pieces by a caller that never holds the
//! whole reply (`{"mode", "bytes", "peak_above_before"}`, bytes; VmHWM
//! above VmRSS before, as `hostile_peak` reads them).
//!
//! The ratios:
//! - `realistic_speed_vs_baseline`: the strong baseline's CPU time over the
//!   exact scan's on the realistic corpus (a speed ratio: above 1 is faster).
//! - `markdown_rich_vs_bare_parses`: the exact scan's CPU time over the sum
//!   of every reader's bare parse on the Markdown-rich corpus.
//! - `stream_bytes_vs_batch`: a 1 MiB reply fed one byte at a time, over the
//!   same reply scanned whole.
//!
//! Beside them, `median_cpu_seconds` per row and
//! `markdown_rich_commit_readings_per_byte`: the bytes the readers read at
//! commit points per byte of the Markdown-rich corpus scanned whole (a
//! count, not a time).

use agent_sentences::scan::{scan_with_diagnostics, Stream};
use agent_sentences_bench::{long_reply, markdown_rich, realistic, thread_cpu, Baseline};
use agent_sentences_runtime::context::{bare_parse, reader_names};
use std::hint::black_box;

/// The thread CPU seconds `f` takes.
fn cpu<F: FnMut() -> usize>(mut f: F) -> f64 {
    let start = thread_cpu();
    black_box(f());
    thread_cpu() - start
}

/// The `q` quantile of `v` (nearest rank).
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The one-minute load average, as the kernel reports it.
fn load() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// A `/proc/self/status` field, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The peak memory of one scan of a 4 MiB reply, whole or streamed.
fn peak(mode: &str) {
    const BYTES: usize = 4 << 20;
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_bytes("VmRSS:").unwrap_or(0);
    let n = match mode {
        "batch" => {
            let reply = long_reply(BYTES);
            scan_with_diagnostics(&reply).0.len()
        }
        "stream" => {
            // Piece by piece, as a model writes it: the caller holds one
            // message at a time.
            let mut s = Stream::new();
            let (mut sent, mut n, mut count) = (0, 0, 0);
            while sent < BYTES {
                count += 64;
                for m in realistic(count).into_iter().skip(count - 64) {
                    let text = m.text + "\n\n";
                    for piece in text.as_bytes().chunks(64) {
                        n += s.push_bytes(piece).expect("UTF-8").len();
                    }
                    sent += text.len();
                    if sent >= BYTES {
                        break;
                    }
                }
            }
            n + s.finish().expect("UTF-8").len()
        }
        _ => panic!("--peak batch|stream"),
    };
    let peak = status_bytes("VmHWM:").unwrap_or(0);
    black_box(n);
    println!(
        "{}",
        serde_json::json!({"mode": mode, "bytes": BYTES, "peak_above_before": peak.saturating_sub(before)})
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--peak") {
        return peak(args.get(1).map_or("", String::as_str));
    }
    let only = (args.first().map(String::as_str) == Some("--only")).then(|| args[1].clone());
    let rounds: usize = args
        .get(if only.is_some() { 2 } else { 0 })
        .map_or(9, |s| s.parse().expect("ROUNDS is a number"));
    let load_before = load();
    let real: Vec<String> = realistic(2000).into_iter().map(|m| m.text).collect();
    let rich: Vec<String> = markdown_rich(2000).into_iter().map(|m| m.text).collect();
    let reply = long_reply(1 << 20);
    let base = Baseline::new();
    let readers = reader_names().len();
    // One row a closure, timed once a round.
    type Row<'a> = Box<dyn FnMut() -> usize + 'a>;
    let mut rows: Vec<(&str, Row)> = vec![
        (
            "realistic_scan",
            Box::new(|| real.iter().map(|t| scan_with_diagnostics(t).0.len()).sum()),
        ),
        (
            "realistic_baseline",
            Box::new(|| real.iter().map(|t| base.scan(t)).sum()),
        ),
        (
            "rich_scan",
            Box::new(|| rich.iter().map(|t| scan_with_diagnostics(t).0.len()).sum()),
        ),
        (
            "rich_bare_parses",
            Box::new(|| {
                (0..readers)
                    .map(|k| rich.iter().map(|t| bare_parse(k, t)).sum::<usize>())
                    .sum()
            }),
        ),
        (
            "reply_batch",
            Box::new(|| scan_with_diagnostics(&reply).0.len()),
        ),
        (
            "reply_one_byte_at_a_time",
            Box::new(|| {
                let mut s = Stream::new();
                let mut n = 0;
                for b in reply.as_bytes() {
                    n += s.push_bytes(std::slice::from_ref(b)).expect("UTF-8").len();
                }
                n + s.finish().expect("UTF-8").len()
            }),
        ),
    ];
    if let Some(name) = only {
        let row = &mut rows.iter_mut().find(|r| r.0 == name).expect("a row").1;
        for _ in 0..rounds {
            black_box(row());
        }
        return;
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); rows.len()];
    for round in 0..rounds {
        for k in 0..rows.len() {
            let j = (k + round) % rows.len();
            times[j].push(cpu(&mut rows[j].1));
        }
    }
    let at = |name: &str| {
        let k = rows.iter().position(|r| r.0 == name).expect("a row");
        &times[k]
    };
    let ratio = |num: &[f64], den: &[f64]| -> serde_json::Value {
        let r: Vec<f64> = num.iter().zip(den).map(|(a, b)| a / b).collect();
        serde_json::json!({
            "median": quantile(&r, 0.5),
            "p10": quantile(&r, 0.1),
            "p90": quantile(&r, 0.9),
        })
    };
    let seconds: serde_json::Map<String, serde_json::Value> = rows
        .iter()
        .zip(&times)
        .map(|((name, _), t)| (name.to_string(), quantile(t, 0.5).into()))
        .collect();
    // A reply fed one byte at a time at each size from 64 KiB to 4 MiB,
    // the sizes interleaved over three rounds: its CPU time per doubling.
    let sizes: Vec<usize> = (16..=22).map(|k| 1usize << k).collect();
    let replies: Vec<String> = sizes.iter().map(|&n| long_reply(n)).collect();
    let mut by_size: Vec<Vec<f64>> = vec![Vec::new(); sizes.len()];
    for round in 0..3 {
        for k in 0..sizes.len() {
            let j = (k + round) % sizes.len();
            by_size[j].push(cpu(|| {
                let mut s = Stream::new();
                let mut n = 0;
                for b in replies[j].as_bytes() {
                    n += s.push_bytes(std::slice::from_ref(b)).expect("UTF-8").len();
                }
                n + s.finish().expect("UTF-8").len()
            }));
        }
    }
    let medians: Vec<f64> = by_size.iter().map(|t| quantile(t, 0.5)).collect();
    let growth: Vec<f64> = medians.windows(2).map(|w| w[1] / w[0]).collect();
    // The bytes the readers read at commit points, per byte of text, when
    // the Markdown-rich corpus is scanned whole (its blank lines are commit
    // points: P265, P270); `finish` reads the open section once more.
    let (mut read, mut bytes) = (0, 0);
    for t in &rich {
        let mut s = Stream::new();
        black_box(s.push(t));
        read += s.bytes_read();
        bytes += t.len();
        black_box(s.finish().expect("UTF-8"));
    }
    let out = serde_json::json!({
        "rounds": rounds,
        "load_average_before": load_before,
        "markdown_rich_commit_readings_per_byte": read as f64 / bytes as f64,
        "median_cpu_seconds": seconds,
        "realistic_speed_vs_baseline": ratio(at("realistic_baseline"), at("realistic_scan")),
        "markdown_rich_vs_bare_parses": ratio(at("rich_scan"), at("rich_bare_parses")),
        "stream_bytes_vs_batch": ratio(at("reply_one_byte_at_a_time"), at("reply_batch")),
        "stream_one_byte_at_a_time_by_size": {
            "bytes": sizes,
            "median_cpu_seconds": medians,
            "growth_per_doubling": growth,
        },
    });
    println!("{}", serde_json::to_string_pretty(&out).expect("JSON"));
}
