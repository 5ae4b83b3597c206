//! The scanner's sections of the bench report: the Markdown context (both
//! corpora beside the readers' bare parses and the strong baseline, the
//! Markdown-stressing hostile inputs and their peak memory), and the ratios
//! by thread CPU time with the stream's promptness.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::{
    cargo, criterion_bytes, criterion_mean, growth, mb_s, mean_growth, ms, run, BytesSecs,
};

/// Builds the bench crate's binary `name` (release) and gives its path.
fn bench_bin(name: &str) -> Result<std::path::PathBuf, String> {
    run(cargo().args([
        "build",
        "--quiet",
        "--release",
        "-p",
        "agent-sentences-bench",
        "--bin",
        name,
    ]))?;
    Ok(Path::new("target/release").join(name))
}

/// Rounds of the `ratios` binary: each round runs every row once.
const RATIO_ROUNDS: &str = "31";

/// The ratios that hold on a loaded machine (issues 35 and 37): the
/// `ratios` binary of the bench crate times every row by the thread's CPU
/// time, in interleaved rounds with the order rotated, and gives each
/// ratio's median and p10–p90 over the rounds, with the load average when
/// it started; the table puts them beside their targets. Then how promptly
/// a stream commits (the `stream_latency` binary).
pub(super) fn cpu_ratios_and_streaming(t: &mut String) -> Result<(), String> {
    let ratios = bench_bin("ratios")?;
    eprintln!("== ratios by thread CPU time ({RATIO_ROUNDS} interleaved rounds)");
    let out = Command::new(&ratios)
        .arg(RATIO_ROUNDS)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "ratios failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("ratios: {e}"))?;
    let _ = writeln!(
        t,
        "\nRatios by thread CPU time: {} interleaved rounds, the order rotated each round, each ratio taken within a round (median, p10–p90); load average {} when the run started\n",
        v["rounds"],
        v["load_average_before"]
    );
    let _ = writeln!(t, "| ratio | median | p10–p90 | target |");
    let _ = writeln!(t, "| --- | ---: | ---: | --- |");
    for (key, name, target) in [
        (
            "realistic_speed_vs_baseline",
            "realistic corpus: the scan's speed ÷ the strong baseline's",
            "≥ 0.5× (issue 35), ≥ 0.8× (issue 37)",
        ),
        (
            "markdown_rich_vs_bare_parses",
            "Markdown-rich corpus: the scan's CPU time ÷ the readers' bare parses",
            "≤ 1.3× (issue 35), ≤ 1.2× (issue 37)",
        ),
        (
            "stream_bytes_vs_batch",
            "1 MiB reply fed one byte at a time ÷ scanned whole",
            "≤ 3×",
        ),
    ] {
        let r = &v[key];
        let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            t,
            "| {name} | {:.2} | {:.2}–{:.2} | {target} |",
            f("median"),
            f("p10"),
            f("p90")
        );
    }
    let _ = writeln!(
        t,
        "\nThe readers read {:.2} bytes per byte of the Markdown-rich corpus at commit points when it is scanned whole (P270), before `finish`'s one reading of each open section.",
        v["markdown_rich_commit_readings_per_byte"].as_f64().unwrap_or(f64::NAN)
    );
    let by_size = &v["stream_one_byte_at_a_time_by_size"];
    let growth: Vec<String> = by_size["growth_per_doubling"]
        .as_array()
        .map(|g| {
            g.iter()
                .map(|x| format!("×{:.2}", x.as_f64().unwrap_or(f64::NAN)))
                .collect()
        })
        .unwrap_or_default();
    let _ = writeln!(
        t,
        "\nA reply fed one byte at a time, 64 KiB to 4 MiB: CPU time per doubling {} (target about ×2).",
        growth.join(", ")
    );
    let mut peaks = Vec::new();
    for mode in ["batch", "stream"] {
        let out = Command::new(&ratios)
            .args(["--peak", mode])
            .output()
            .map_err(|e| e.to_string())?;
        let p: Value = serde_json::from_slice(&out.stdout)
            .map_err(|e| format!("ratios --peak {mode}: {e}"))?;
        peaks.push(p["peak_above_before"].as_f64().unwrap_or(f64::NAN));
    }
    let _ = writeln!(
        t,
        "\nPeak memory of one scan of a 4 MiB reply (VmHWM above VmRSS before, each in a process of its own): batch {:.1} MB, a stream fed 64-byte pieces by a caller holding one message at a time {:.1} MB ({:.2}× batch; target ≤ 1×).",
        peaks[0] / 1e6,
        peaks[1] / 1e6,
        peaks[1] / peaks[0]
    );
    let stream_latency = bench_bin("stream_latency")?;
    let out = Command::new(&stream_latency)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "stream_latency failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = writeln!(
        t,
        "\nStreaming promptness (issue 35; each message fed one byte at a time; latency: the bytes that arrived after an item's end before it was committed):\n"
    );
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let _ = writeln!(t, "- {line}");
    }
    Ok(())
}

/// The Markdown context's section (issues 12, 24 and 25): on the realistic
/// corpus and the Markdown-rich one side by side, the scan, each reader's
/// bare parse (pulldown-cmark, comrak) and their sum, and the strong baseline
/// without context; the targets (scan ÷ the readers' parses on the
/// Markdown-rich corpus ≤ 1.3×, the realistic corpus's speed ≥ 0.4× the
/// baseline's, marker-free prose ≥ 4 GB/s); then the Markdown-stressing
/// hostile inputs (time per size, growth per doubling ≤ ×2.2, each reader's
/// mean growth, peak memory at the largest size ≤ 8× the input, from
/// `hostile_peak`) and the 32 MiB run of `[`.
pub(super) fn markdown_context(t: &mut String) -> Result<(), String> {
    let corpora = ["realistic", "markdown-rich"];
    let of = |c: &str, what: &str| criterion_mean(&format!("{c}/{what}"));
    let _ = writeln!(
        t,
        "\nThe scanner and its CommonMark readers, on the realistic corpus and the Markdown-rich one (MB/s; time ÷ the scan's)\n"
    );
    let _ = writeln!(t, "| | {} |", corpora.join(" | "));
    let _ = writeln!(t, "| --- |{}", " ---: |".repeat(corpora.len()));
    // The readers are the scanner's list (P260): a row each, and their sum.
    let readers = agent_sentences_runtime::context::reader_names();
    let readers_secs = |c: &str| -> Result<f64, String> {
        readers
            .iter()
            .map(|r| of(c, r))
            .sum::<Result<f64, String>>()
    };
    let mut rows: Vec<(String, Vec<Option<BytesSecs>>)> = Vec::new();
    let mut whats: Vec<(String, String)> = vec![
        ("scan (Markdown context)".into(), "scan".into()),
        (
            "candidate work: the scan with the context forced trivial (no reader)".into(),
            "candidates".into(),
        ),
    ];
    whats.extend(readers.iter().map(|r| {
        (
            format!("bare {r} parse (every event or node visited)"),
            (*r).to_owned(),
        )
    }));
    whats.push(("the readers' parses together".into(), "both".into()));
    whats.push((
        "strong baseline (one head regex, anchored captures, serde_json; no context)".into(),
        "baseline".into(),
    ));
    for (name, what) in whats {
        let cells = corpora
            .iter()
            .map(|c| {
                let bytes = criterion_bytes(&format!("{c}/scan")).ok()?;
                let secs = if what == "both" {
                    readers_secs(c).ok()?
                } else {
                    of(c, &what).ok()?
                };
                Some((bytes, secs))
            })
            .collect();
        rows.push((name, cells));
    }
    let scan_secs: Vec<Option<f64>> = rows[0].1.iter().map(|c| c.map(|(_, s)| s)).collect();
    for (name, cells) in &rows {
        let shown: Vec<String> = cells
            .iter()
            .zip(&scan_secs)
            .map(|(c, scan)| match (c, scan) {
                (Some((bytes, secs)), Some(scan)) => {
                    format!("{} ({:.2}×)", mb_s(*bytes, *secs), secs / scan)
                }
                _ => "–".to_owned(),
            })
            .collect();
        let _ = writeln!(t, "| {name} | {} |", shown.join(" | "));
    }
    let ratio = |num: &str, den: &str, c: &str| -> String {
        match (of(c, num), of(c, den)) {
            (Ok(a), Ok(b)) => format!("{:.2}×", b / a),
            _ => "–".to_owned(),
        }
    };
    let rich_ratio = match (of("markdown-rich", "scan"), readers_secs("markdown-rich")) {
        (Ok(s), Ok(r)) => format!("{:.2}×", s / r),
        _ => "–".to_owned(),
    };
    let prose = match (criterion_bytes("prose/scan"), criterion_mean("prose/scan")) {
        (Ok(b), Ok(s)) => format!("{:.2} GB/s", b / s / 1e9),
        _ => "–".to_owned(),
    };
    let _ = writeln!(
        t,
        "\nScan time ÷ the readers' bare parses on the Markdown-rich corpus: {rich_ratio} (target ≤ 1.3×); the realistic corpus's scan speed ÷ the strong baseline's: {} (target ≥ 0.4×; the Markdown-rich corpus: {}); marker-free prose: {prose} (target ≥ 4 GB/s)\n",
        ratio("scan", "baseline", "realistic"),
        ratio("scan", "baseline", "markdown-rich"),
    );
    // Issue 27: the candidate work apart from the context, so a regression
    // in either shows.
    let split = |c: &str| {
        match (of(c, "scan"), of(c, "candidates"), of(c, "baseline")) {
        (Ok(scan), Ok(cand), Ok(base)) => format!(
            "the candidate work {:.2}× the strong baseline's speed, {:.0}% of the scan's time; the context the other {:.0}%",
            base / cand,
            100.0 * cand / scan,
            100.0 * (scan - cand) / scan
        ),
        _ => "–".to_owned(),
    }
    };
    let _ = writeln!(
        t,
        "The scan in two parts (the candidate work measured as the scan with the context forced trivial): realistic corpus, {}; Markdown-rich corpus, {}\n",
        split("realistic"),
        split("markdown-rich"),
    );

    let hostile_peak = bench_bin("hostile_peak")?;
    let peak = hostile_peak.as_path();
    let list = Command::new(peak)
        .arg("--list")
        .output()
        .map_err(|e| e.to_string())?;
    let list: Value =
        serde_json::from_slice(&list.stdout).map_err(|e| format!("hostile_peak --list: {e}"))?;
    let sizes: Vec<u64> = list["sizes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .collect();
    let peak_of = |kind: &str, reader: Option<usize>| -> Value {
        let mut cmd = Command::new(peak);
        cmd.args(["--kind", kind]);
        if let Some(k) = reader {
            cmd.args(["--reader", &k.to_string()]);
        }
        cmd.output()
            .ok()
            .and_then(|out| serde_json::from_slice(&out.stdout).ok())
            .unwrap_or(Value::Null)
    };
    let _ = writeln!(t, "Markdown-stressing hostile inputs (Rust `scan`, the whole context: every reader): milliseconds at each size (`timeout`: one run took over 5 s, larger sizes left out), growth per doubling (target ≤ ×2.2) and its geometric mean over the sizes, each reader's bare parse's geometric mean on the same input, and peak memory of one scan at the largest size (the scan's own: in a process of its own, after the input is built, the other inputs freed and the high-water mark reset; VmHWM above VmRSS before, results included; target ≤ 8× the input), the larger of the readers' own peaks on it (each reader's bare parse, measured the same way), and the scan's peak over that (target ≤ 1.2×, issue 37)\n");
    let _ = writeln!(
        t,
        "| input | {} | growth | mean | {} | peak ÷ input | larger reader's peak ÷ input | scan's peak ÷ the larger reader's |",
        sizes
            .iter()
            .map(|s| format!("{} KiB", s >> 10))
            .collect::<Vec<_>>()
            .join(" | "),
        readers
            .iter()
            .map(|r| format!("{r}'s mean"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let _ = writeln!(
        t,
        "| --- |{} --- | ---: |{} ---: | ---: | ---: |",
        " ---: |".repeat(sizes.len()),
        " ---: |".repeat(readers.len())
    );
    let series = |group: &str, kind: &str| -> Vec<Option<f64>> {
        sizes
            .iter()
            .map(|s| criterion_mean(&format!("{group}/{kind}/{s}")).ok())
            .collect()
    };
    for kind in list["kinds"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let v = series("markdown-hostile", kind);
        let g: Vec<String> = v.windows(2).map(|w| growth(w[0], w[1])).collect();
        // Peak memory only where the largest size ran within the probe's limit.
        let (memory, readers_peak, over) = if v.last().copied().flatten().is_some() {
            let m = peak_of(kind, None);
            let size = m["size"].as_f64().unwrap_or(f64::NAN);
            let scan = m["peak_above_before"].as_f64().unwrap_or(f64::NAN);
            let larger = (0..readers.len())
                .map(|k| {
                    peak_of(kind, Some(k))["peak_above_before"]
                        .as_f64()
                        .unwrap_or(f64::NAN)
                })
                .fold(f64::NAN, f64::max);
            (
                format!("{:.1} ({} found){}", scan / size, m["found"], not_reset(&m)),
                format!("{:.1}", larger / size),
                format!("{:.2}", scan / larger),
            )
        } else {
            ("–".to_owned(), "–".to_owned(), "–".to_owned())
        };
        let _ = writeln!(
            t,
            "| {kind} | {} | {} | {} | {} | {memory} | {readers_peak} | {over} |",
            v.iter().map(|x| ms(*x)).collect::<Vec<_>>().join(" | "),
            g.join(" "),
            mean_growth(&v),
            readers
                .iter()
                .map(|r| mean_growth(&series(&format!("markdown-hostile-{r}"), kind)))
                .collect::<Vec<_>>()
                .join(" | "),
        );
    }
    for kind in list["large"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let m = peak_of(kind, None);
        let size = m["size"].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            t,
            "\n{kind} ({:.0} MiB, one scan): {:.2} s, {} found; peak memory {:.1}× the input (target ≤ 8×){}",
            size / (1 << 20) as f64,
            m["seconds"].as_f64().unwrap_or(f64::NAN),
            m["found"],
            m["peak_above_before"].as_f64().unwrap_or(f64::NAN) / size,
            not_reset(&m)
        );
    }
    Ok(())
}

/// What a `hostile_peak` report adds when the process could not reset its
/// high-water mark (its peak then includes building the input).
fn not_reset(m: &Value) -> &'static str {
    if m["high_water_mark_reset"] == Value::Bool(false) {
        " (high-water mark not reset: building the input included)"
    } else {
        ""
    }
}
