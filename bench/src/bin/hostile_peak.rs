//! Peak memory of one Rust scan of each Markdown-stressing hostile input at
//! its largest size (issue 12), for `cargo xtask bench`: one JSON line per
//! input, `{"kind", "size", "found", "peak_above_before", "seconds"}`
//! (`peak_above_before`, bytes: the process's VmHWM after the scan above its
//! VmRSS before it; `seconds`: the scan's time, one run). Run once per input
//! (`--kind K`), each in its own process; `--list` prints the kinds and the
//! sizes, and the large input of issue 25 (32 MiB of `[`) as `large`.
//! `--kind K --reader N` measures reader N's bare parse of the input instead
//! of the scan (`context::bare_parse`; its `found` is the parse's count of
//! events or nodes): issue 37 bounds the scan's peak by the larger reader's.
//!
//! The scan's own peak (issue 27): only the inputs of the largest size are
//! built, all but the one measured are dropped, the allocator gives what was
//! freed back to the system (glibc's `malloc_trim`), and the high-water mark
//! is reset (`/proc/self/clear_refs`) before VmRSS is read. Building the
//! inputs no longer counts, and the scan cannot hide its own use in memory
//! the inputs freed (resident before, so not above it).

use agent_sentences_bench::{
    large_hostile, markdown_hostile_at, LARGE_KIND, MARKDOWN_HOSTILE_SIZES,
};
use agent_sentences_runtime::context::bare_parse;

/// A `/proc/self/status` field, in bytes.
fn status_bytes(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Gives the memory the allocator holds free back to the system, where the
/// allocator is glibc's; elsewhere nothing.
fn trim_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: glibc's `malloc_trim` takes a size and touches only the
        // allocator's own free memory.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Resets the process's high-water mark (VmHWM) to its resident size;
/// whether it could.
fn reset_high_water_mark() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let largest = MARKDOWN_HOSTILE_SIZES[MARKDOWN_HOSTILE_SIZES.len() - 1];
    match args.get(1).map(String::as_str) {
        Some("--list") => println!(
            "{}",
            serde_json::json!({
                "kinds": markdown_hostile_at(largest).iter().map(|h| h.kind).collect::<Vec<_>>(),
                "sizes": MARKDOWN_HOSTILE_SIZES,
                "large": [LARGE_KIND],
            })
        ),
        Some("--kind") => {
            let want = args.get(2).expect("--kind takes a kind");
            let reader: Option<usize> =
                (args.get(3).map(String::as_str) == Some("--reader")).then(|| {
                    args.get(4)
                        .and_then(|n| n.parse().ok())
                        .expect("--reader takes a reader's index")
                });
            let h = if want == LARGE_KIND {
                large_hostile()
            } else {
                // Only this size's inputs: the others are dropped here.
                markdown_hostile_at(largest)
                    .into_iter()
                    .find(|h| h.kind == want.as_str())
                    .expect("a known kind")
            };
            trim_allocator();
            let reset = reset_high_water_mark();
            let before = status_bytes("VmRSS:").unwrap_or(0);
            let t = std::time::Instant::now();
            let found = match reader {
                Some(k) => bare_parse(k, &h.text),
                None => agent_sentences::scan::scan_with_diagnostics(&h.text)
                    .0
                    .len(),
            };
            let seconds = t.elapsed().as_secs_f64();
            let peak = status_bytes("VmHWM:").unwrap_or(0);
            println!(
                "{}",
                serde_json::json!({
                    "kind": h.kind,
                    "size": h.size,
                    "reader": reader,
                    "found": found,
                    "peak_above_before": peak.saturating_sub(before),
                    "high_water_mark_reset": reset,
                    "seconds": seconds,
                })
            );
        }
        _ => eprintln!("usage: hostile_peak --list | --kind KIND [--reader N]"),
    }
}
