//! `cargo xtask bench`: the Rust scanner (criterion), the generated Python
//! package (through its native module: `scan` in a loop and `scan_many`), the
//! pure-Python scanner it replaced and the seed approach in Python, on one
//! corpus in one run, printed as tables; and the peak memory of a Python scan
//! of one 16 MiB text; and the harvest (`bench/python/harvest_bench.py`):
//! throughput against `scan_many` on the same texts, peak memory from 100 MB
//! to 1 GB of input (`HARVEST_SIZES=100,1000` in MB); and the decoding
//! grammar (`bench/python/grammar_bench.py`): llguidance's compile time of
//! each generated grammar, the time to check the corpus's found items, each
//! engine's (llguidance, xgrammar, llama.cpp) compile and per-token mask time,
//! and the wall time of the grammar test file; and the ratios that must hold
//! on a loaded machine (realistic scan ÷ the strong baseline, Markdown-rich
//! scan ÷ the readers' bare parses, a byte-at-a-time stream ÷ batch), by
//! thread CPU time in interleaved rounds (`bench/src/bin/ratios.rs`), with
//! how promptly a stream commits (`bench/src/bin/stream_latency.rs`).
//!
//! The report goes to `target/bench/report.md`; with `--record`, also to
//! `bench/runs/<date>-<commit>/report.md`, the project's record of runs
//! (BENCHMARKS.md summarises the latest).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

mod scanner;
use scanner::{cpu_ratios_and_streaming, markdown_context};

const CORPUS: &str = "target/bench/corpus.json";
/// The last commit whose Python package scanned in pure Python: the baseline
/// the native-backed package is measured against, extracted from git.
const PURE_PYTHON_COMMIT: &str = "33c3e85";
/// Where the baseline package is extracted, as `agent_sentences_pure`.
const BASELINE_DIR: &str = "target/bench/baseline";
/// Seconds a hostile case may take in Python before it is reported as a timeout.
const PY_TIMEOUT: &str = "20";

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("== {cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {status}"))
    }
}

/// Mean time in seconds of one criterion benchmark.
fn criterion_mean(id: &str) -> Result<f64, String> {
    let path = Path::new("target/criterion")
        .join(id)
        .join("new/estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    v["mean"]["point_estimate"]
        .as_f64()
        .map(|ns| ns / 1e9)
        .ok_or_else(|| format!("{}: no mean", path.display()))
}

fn mb_s(bytes: f64, secs: f64) -> String {
    format!("{:.1}", bytes / secs / 1e6)
}

fn ms(secs: Option<f64>) -> String {
    match secs {
        Some(s) => format!("{:.2}", s * 1e3),
        None => "timeout".to_owned(),
    }
}

/// The geometric mean of the growth per doubling from the first size to the
/// last (`times` at sizes that double), as `×g`; `–` when one timed out.
fn mean_growth(times: &[Option<f64>]) -> String {
    match (times.first(), times.last()) {
        (Some(Some(a)), Some(Some(b)))
            if *a > 0.0 && times.len() > 1 && times.iter().all(Option::is_some) =>
        {
            format!("×{:.2}", (b / a).powf(1.0 / (times.len() - 1) as f64))
        }
        _ => "–".to_owned(),
    }
}

fn growth(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => format!("×{:.2}", b / a),
        _ => "–".to_owned(),
    }
}

/// Extracts the pure-Python package of [`PURE_PYTHON_COMMIT`] into
/// [`BASELINE_DIR`] as `agent_sentences_pure` (its imports are relative, so it
/// runs under that name beside the installed package).
fn extract_baseline() -> Result<(), String> {
    let dest = Path::new(BASELINE_DIR);
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).map_err(|e| e.to_string())?;
    let tar = dest.join("pure.tar");
    run(Command::new("git")
        .args(["archive", "--format=tar", "-o"])
        .arg(&tar)
        .args([PURE_PYTHON_COMMIT, "generated/python/agent_sentences"]))
    .map_err(|e| format!("{e} (the baseline needs the repository's history: a full clone)"))?;
    run(Command::new("tar").arg("-xf").arg(&tar).arg("-C").arg(dest))?;
    std::fs::rename(
        dest.join("generated/python/agent_sentences"),
        dest.join("agent_sentences_pure"),
    )
    .map_err(|e| e.to_string())?;
    Ok(())
}

/// Writes the bench's corpus to [`CORPUS`] (the `corpus` binary of the
/// bench crate, release build).
fn write_corpus() -> Result<(), String> {
    std::fs::create_dir_all("target/bench").map_err(|e| e.to_string())?;
    run(cargo().args([
        "run",
        "--quiet",
        "--release",
        "-p",
        "agent-sentences-bench",
        "--bin",
        "corpus",
        "--",
        CORPUS,
    ]))
}

/// Runs everything and prints the table; returns it.
pub fn run_all(python: &Path) -> Result<String, String> {
    // Wall time of the main job, after build (with the profile the
    // `cargo xtask` alias builds with).
    let mut build = cargo();
    for opt in crate::steps::GEN_OPT {
        build.args(["--config", opt]);
    }
    run(build.args(["build", "--quiet", "-p", "xtask"]))?;
    let t = Instant::now();
    run(Command::new("target/debug/xtask").args(["gen"]))?;
    let gen_secs = t.elapsed().as_secs_f64();
    // A clean build of the generated crate with its default features.
    let clean = Path::new("target/bench/clean-build");
    let _ = std::fs::remove_dir_all(clean);
    run(cargo().args(["fetch", "--quiet"]))?;
    let t = Instant::now();
    run(cargo()
        .args([
            "build",
            "--quiet",
            "--offline",
            "-p",
            "agent-sentences",
            "--target-dir",
        ])
        .arg(clean))?;
    let build_secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(clean);

    write_corpus()?;
    run(cargo().args([
        "bench",
        "-p",
        "agent-sentences-bench",
        "--bench",
        "scan",
        "--",
        "--warm-up-time",
        "1",
        "--measurement-time",
        "3",
    ]))?;
    if !crate::python::install_package(python) {
        return Err("the generated package did not build".into());
    }
    extract_baseline()?;
    eprintln!("== python bench (installed package, pure-Python baseline, seed approach, {PY_TIMEOUT} s per hostile case)");
    let out = Command::new(python)
        .args([
            "bench/python/bench.py",
            CORPUS,
            "schema",
            BASELINE_DIR,
            PY_TIMEOUT,
        ])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the Python bench failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let py: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("the Python bench printed no JSON: {e}"))?;

    let corpus: Value =
        serde_json::from_str(&std::fs::read_to_string(CORPUS).map_err(|e| e.to_string())?)
            .map_err(|e| e.to_string())?;
    let messages = corpus["realistic"].as_array().map_or(0, Vec::len) as f64;
    let bytes = py["realistic_bytes"].as_f64().unwrap_or(0.0);
    let prose_bytes = py["generated"]["prose_bytes"].as_f64().unwrap_or(0.0);
    let rust = criterion_mean("realistic/scan")?;
    let rust_prose = criterion_mean("prose/scan")?;
    let gen_py = py["generated"]["realistic_seconds"]
        .as_f64()
        .unwrap_or(f64::NAN);
    let seed_py = py["seed"]["realistic_seconds"].as_f64().unwrap_or(f64::NAN);
    let pure_py = py["pure"]["realistic_seconds"].as_f64().unwrap_or(f64::NAN);
    let many_py = py["scan_many"]["realistic_seconds"]
        .as_f64()
        .unwrap_or(f64::NAN);

    let mut t = String::new();
    let _ = writeln!(
        t,
        "Realistic corpus: {messages} messages, {:.2} MB (Python {}; the Python rows: the median of {} rounds by the thread's CPU time, each round running every Python implementation once, the order rotated each round; `scan_many`, which works on every core, by wall time)\n",
        bytes / 1e6,
        py["python"].as_str().unwrap_or("?"),
        py["scan_many"]["rounds"].as_u64().unwrap_or(0)
    );
    let _ = writeln!(
        t,
        "| implementation | messages/s | MB/s | prose MB/s | time ÷ Rust time |"
    );
    let _ = writeln!(t, "| --- | ---: | ---: | ---: | ---: |");
    let prose_of = |k: &str| py[k]["prose_seconds"].as_f64().unwrap_or(f64::NAN);
    for (name, secs, prose) in [
        ("Rust scanner (generated crate)", rust, rust_prose),
        (
            "Python, generated package: `scan` in a loop (native)",
            gen_py,
            prose_of("generated"),
        ),
        (
            "Python, generated package: `scan_many` (native, all cores)",
            many_py,
            f64::NAN,
        ),
        (
            &format!("Python, the pure-Python scanner it replaced ({PURE_PYTHON_COMMIT})"),
            pure_py,
            prose_of("pure"),
        ),
        ("Python, seed approach", seed_py, prose_of("seed")),
    ] {
        let _ = writeln!(
            t,
            "| {name} | {:.0} | {} | {} | {:.1} |",
            messages / secs,
            mb_s(bytes, secs),
            mb_s(prose_bytes, prose),
            secs / rust
        );
    }
    let ratio = |k: &str| {
        let r = &py["ratios"][k];
        let q = |n: &str| r[n].as_f64().unwrap_or(f64::NAN);
        format!(
            "{:.2}× (p10–p90 {:.2}–{:.2})",
            q("median"),
            q("p10"),
            q("p90")
        )
    };
    let _ = writeln!(
        t,
        "\nPer round, by the thread's CPU time: Python `scan` {} the pure-Python scanner's speed, {} the seed approach's. By wall time, `scan_many` on {} cores: {} `[scan(t) for t in texts]`'s speed, its whole result kept\n",
        ratio("scan_vs_pure"),
        ratio("scan_vs_seed"),
        py["scan_many"]["cores"].as_u64().unwrap_or(0),
        ratio("scan_many_vs_loop")
    );
    let kept = |name: &str, what: &str| py["kept"][name][what].as_f64().unwrap_or(f64::NAN);
    let _ = writeln!(
        t,
        "Each call timed to its return alone (medians, wall time): `scan_many` {:.2}× the loop ({:.2} ms against {:.2} ms); freeing the loop's result then took {:.2} ms and `scan_many`'s {:.2} ms, on the interpreter's thread alone\n",
        kept("loop", "call_seconds") / kept("scan_many", "call_seconds"),
        kept("scan_many", "call_seconds") * 1e3,
        kept("loop", "call_seconds") * 1e3,
        kept("loop", "free_seconds") * 1e3,
        kept("scan_many", "free_seconds") * 1e3
    );
    if let Ok(all_cores) = criterion_mean("realistic-all-cores/scan") {
        let _ = writeln!(
            t,
            "The Rust scan alone on every core (rayon, as `scan_many` runs it, no Python objects): {:.2}× the Rust scan in a loop, the ceiling of `scan_many`'s speed-up on this machine\n",
            rust / all_cores
        );
    }
    if let (Ok(track), Ok(scan_only)) =
        (criterion_mean("loops/track"), criterion_mean("loops/scan"))
    {
        let _ = writeln!(
            t,
            "Loop tracker (Rust) over the corpus as a conversation of 500 loops (bench/src/lib.rs `conversation`): {:.2} ms, scanning the same texts alone {:.2} ms: the tracker runs at {:.2}× the scan's speed\n",
            track * 1e3,
            scan_only * 1e3,
            scan_only / track
        );
    }
    if let (Ok(resolve), Ok(both), Ok(scan_only)) = (
        criterion_mean("ops/resolve"),
        criterion_mean("ops/scan+resolve"),
        criterion_mean("realistic/scan"),
    ) {
        let _ = writeln!(
            t,
            "`ops::resolve` (Rust) on every directive of the corpus: {:.2} ms for all of them; scanning the corpus and resolving what it finds {:.2} ms, against {:.2} ms for the scan alone (which never resolves)\n",
            resolve * 1e3,
            both * 1e3,
            scan_only * 1e3
        );
    }
    let _ = writeln!(t, "Peak memory of one Python `scan` of a 16 MiB text (RSS above the process's before the scan)\n");
    let _ = writeln!(
        t,
        "| text | items | seconds | peak above before | ÷ input | kept by the result |"
    );
    let _ = writeln!(t, "| --- | ---: | ---: | ---: | ---: | ---: |");
    for m in py["memory"].as_array().cloned().unwrap_or_default() {
        let input = m["input_bytes"].as_f64().unwrap_or(f64::NAN);
        let peak = m["peak_above_before"].as_f64().unwrap_or(f64::NAN);
        let _ = writeln!(
            t,
            "| {} | {} | {:.3} | {:.1} MB | {:.2} | {:.1} MB |",
            m["case"].as_str().unwrap_or("?"),
            m["found"],
            m["seconds"].as_f64().unwrap_or(f64::NAN),
            peak / 1e6,
            peak / input,
            m["kept"].as_f64().unwrap_or(f64::NAN) / 1e6
        );
    }
    let _ = writeln!(t, "\nHostile inputs: milliseconds at each size, and the growth factor per doubling (≈2 is linear)\n");
    let _ = writeln!(
        t,
        "| input | implementation | 256 KiB | 512 KiB | 1 MiB | 2 MiB | growth |"
    );
    let _ = writeln!(t, "| --- | --- | ---: | ---: | ---: | ---: | --- |");
    let rows = py["hostile"].as_array().cloned().unwrap_or_default();
    let mut kinds: Vec<String> = Vec::new();
    for r in &rows {
        let k = r["kind"].as_str().unwrap_or("").to_owned();
        if !kinds.contains(&k) {
            kinds.push(k);
        }
    }
    for kind in &kinds {
        let of = |impl_: &str| -> Vec<Option<f64>> {
            rows.iter()
                .filter(|r| r["kind"] == kind.as_str())
                .map(|r| {
                    if impl_ == "rust" {
                        criterion_mean(&format!("hostile/{kind}/{}", r["size"])).ok()
                    } else {
                        r[impl_].as_f64()
                    }
                })
                .collect()
        };
        for (label, key) in [
            ("Rust", "rust"),
            ("Python generated", "generated"),
            ("Python seed", "seed"),
        ] {
            let v = of(key);
            let g: Vec<String> = v.windows(2).map(|w| growth(w[0], w[1])).collect();
            let _ = writeln!(
                t,
                "| {kind} | {label} | {} | {} |",
                v.iter().map(|x| ms(*x)).collect::<Vec<_>>().join(" | "),
                g.join(" ")
            );
        }
    }
    markdown_context(&mut t)?;
    cpu_ratios_and_streaming(&mut t)?;
    grammar(python, &mut t)?;
    // Issue 17: the harvest against `scan_many` on the same texts, and its
    // peak memory from 100 MB to 1 GB of input (HARVEST_SIZES overrides).
    let sizes = std::env::var("HARVEST_SIZES").unwrap_or_else(|_| "100,1000".to_owned());
    eprintln!("== harvest bench (bench/python/harvest_bench.py --sizes {sizes})");
    let out = Command::new(python)
        .args(["bench/python/harvest_bench.py", "--sizes", &sizes])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the harvest bench failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = writeln!(t, "\n{}", String::from_utf8_lossy(&out.stdout).trim_end());
    let _ = writeln!(t, "\n`cargo xtask gen` (after build): {:.3} s; clean build of the generated crate (default features): {:.1} s", gen_secs, build_secs);
    println!("{t}");
    std::fs::write("target/bench/report.md", &t).map_err(|e| e.to_string())?;
    Ok(t)
}

/// The decoding grammar's rows (issues 26, 36): llguidance's compile time of
/// each generated grammar and the time to check the corpus's found items,
/// each engine's compile and per-token mask time
/// (`bench/python/grammar_bench.py`), and the wall time of the whole
/// grammar test file, whose target is under 60 s on 2 cores.
fn grammar(python: &Path, t: &mut String) -> Result<(), String> {
    eprintln!("== grammar bench (bench/python/grammar_bench.py)");
    let out = Command::new(python)
        .args(["bench/python/grammar_bench.py", CORPUS])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!(
            "the grammar bench failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let _ = writeln!(t, "\n{}", String::from_utf8_lossy(&out.stdout).trim_end());
    eprintln!("== grammar test file (pytest tests/python/test_grammar.py)");
    let start = Instant::now();
    let status = Command::new(python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg("tests/python/test_grammar.py")
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot run pytest: {e}"))?;
    let secs = start.elapsed().as_secs_f64();
    let _ = writeln!(
        t,
        "\nThe grammar test file (`pytest tests/python/test_grammar.py`, every sample included): {secs:.1} s wall ({}; target under 60 s on 2 cores)",
        if status.success() { "passed" } else { "FAILED" }
    );
    Ok(())
}

/// `cargo xtask bench --grammar`: only the decoding grammar's rows, on the
/// realistic corpus (written first), against the installed package; the
/// report goes to target/bench/grammar-report.md.
pub fn run_grammar(python: &Path) -> Result<String, String> {
    write_corpus()?;
    if !crate::python::install_package(python) {
        return Err("the generated package did not build".into());
    }
    let mut t = String::new();
    grammar(python, &mut t)?;
    println!("{t}");
    std::fs::write("target/bench/grammar-report.md", &t).map_err(|e| e.to_string())?;
    Ok(t)
}

/// Bytes per iteration and mean seconds of one benchmark.
type BytesSecs = (f64, f64);

/// The bytes per iteration of one criterion benchmark (its throughput).
fn criterion_bytes(id: &str) -> Result<f64, String> {
    let path = Path::new("target/criterion")
        .join(id)
        .join("new/benchmark.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    v["throughput"]["Bytes"]
        .as_f64()
        .ok_or_else(|| format!("{}: no byte throughput", path.display()))
}

/// `cargo xtask bench --scanner`: the criterion rows of the Rust scanner and
/// the readers (both corpora, prose, the Markdown-stressing hostile inputs)
/// and [`markdown_context`]'s section, printed and written to
/// target/bench/scanner-report.md.
pub fn run_scanner() -> Result<String, String> {
    run(cargo().args([
        "bench",
        "-p",
        "agent-sentences-bench",
        "--bench",
        "scan",
        "--",
        "--warm-up-time",
        "1",
        "--measurement-time",
        "3",
        "^(realistic|markdown-rich|prose|markdown-hostile)",
    ]))?;
    let mut t = String::new();
    markdown_context(&mut t)?;
    cpu_ratios_and_streaming(&mut t)?;
    println!("{t}");
    std::fs::create_dir_all("target/bench").map_err(|e| e.to_string())?;
    std::fs::write("target/bench/scanner-report.md", &t).map_err(|e| e.to_string())?;
    Ok(t)
}

/// The folder of a recorded run: `bench/runs/<YYYY-MM-DD>-<commit>`, the
/// commit suffixed `-dirty` when the tree held uncommitted changes.
pub fn run_dir(date: &str, commit: &str, dirty: bool) -> std::path::PathBuf {
    let suffix = if dirty { "-dirty" } else { "" };
    Path::new("bench/runs").join(format!("{date}-{commit}{suffix}"))
}

/// The UTC calendar date (`YYYY-MM-DD`) of a time in seconds since the Unix
/// epoch (Howard Hinnant's `civil_from_days`).
pub fn utc_date(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Keeps a run's report under `bench/runs/<date>-<commit>/report.md`, with a
/// header saying when, on which commit and with which command it ran.
pub fn record(report: &str) -> Result<(), String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("git")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!("git {} failed", args.join(" ")));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "--short=7", "HEAD"])?;
    let dirty = !git(&["status", "--porcelain", "--untracked-files=no"])?.is_empty();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| e.to_string())?;
    let date = utc_date(now.as_secs());
    let time = format!(
        "{:02}:{:02}",
        now.as_secs() / 3600 % 24,
        now.as_secs() / 60 % 60
    );
    let dir = run_dir(&date, &commit, dirty);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let sizes = std::env::var("HARVEST_SIZES").unwrap_or_else(|_| "100,1000".to_owned());
    let text = format!(
        "# Benchmark run, {date} {time} UTC, commit {commit}{}\n\n\
         `HARVEST_SIZES={sizes} cargo xtask bench --record`; its report, as printed:\n\n{}\n",
        if dirty {
            " with uncommitted changes"
        } else {
            ""
        },
        report.trim_end()
    );
    let path = dir.join("report.md");
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    eprintln!("recorded the run in {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_run_is_named_by_its_utc_date_and_commit() {
        assert_eq!(utc_date(0), "1970-01-01");
        // 2026-12-02 02:11:11 UTC, and the last second of a leap day.
        assert_eq!(utc_date(1_796_177_471), "2026-12-02");
        assert_eq!(utc_date(951_868_799), "2000-02-29");
        assert_eq!(
            run_dir("2026-12-02", "12c674d", false),
            Path::new("bench/runs/2026-12-02-12c674d")
        );
        assert_eq!(
            run_dir("2026-12-02", "12c674d", true),
            Path::new("bench/runs/2026-12-02-12c674d-dirty")
        );
    }
}
