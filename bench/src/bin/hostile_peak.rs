//! Peak memory of one Rust scan of each Markdown-stressing hostile input at
//! its largest size (issue 12), for `cargo xtask bench`: one JSON line per
//! input, `{"kind", "size", "found", "peak_above_before"}` (bytes: the
//! process's VmHWM after the scan above its VmRSS before it, the input
//! already built; `seconds`: the scan's time, one run). Run once per input
//! (`--kind K`), so each reads its own high-water mark; `--list` prints the
//! kinds and the sizes, and the large input of issue 25 (32 MiB of `[`) as
//! `large`.

use agent_sentences_bench::{large_hostile, markdown_hostile, MARKDOWN_HOSTILE_SIZES};

/// A `/proc/self/status` field, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let largest = MARKDOWN_HOSTILE_SIZES[MARKDOWN_HOSTILE_SIZES.len() - 1];
    let mut kinds: Vec<_> = markdown_hostile()
        .into_iter()
        .filter(|h| h.size == largest)
        .collect();
    let large = large_hostile();
    match args.get(1).map(String::as_str) {
        Some("--list") => println!(
            "{}",
            serde_json::json!({
                "kinds": kinds.iter().map(|h| h.kind).collect::<Vec<_>>(),
                "sizes": MARKDOWN_HOSTILE_SIZES,
                "large": [large.kind],
            })
        ),
        Some("--kind") => {
            let want = args.get(2).expect("--kind takes a kind");
            kinds.push(large);
            let h = kinds
                .iter()
                .find(|h| h.kind == want.as_str())
                .expect("a known kind");
            let before = status_bytes("VmRSS:").unwrap_or(0);
            let t = std::time::Instant::now();
            let found = agent_sentences::scan::scan_with_diagnostics(&h.text);
            let seconds = t.elapsed().as_secs_f64();
            let peak = status_bytes("VmHWM:").unwrap_or(0);
            println!(
                "{}",
                serde_json::json!({
                    "kind": h.kind,
                    "size": h.size,
                    "found": found.0.len(),
                    "peak_above_before": peak.saturating_sub(before),
                    "seconds": seconds,
                })
            );
        }
        _ => eprintln!("usage: hostile_peak --list | --kind KIND"),
    }
}
