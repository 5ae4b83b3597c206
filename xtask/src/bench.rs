//! `cargo xtask bench`: the Rust scanner (criterion), the generated Python
//! package and the seed approach in Python, on one corpus in one run, printed
//! as one table.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::Value;

const CORPUS: &str = "target/bench/corpus.json";
/// Seconds a hostile case may take in Python before it is reported as a timeout.
const PY_TIMEOUT: &str = "20";

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

fn run(cmd: &mut Command) -> Result<(), String> {
    eprintln!("== {cmd:?}");
    let status = cmd.status().map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{cmd:?} failed: {status}"))
    }
}

/// Mean time in seconds of one criterion benchmark.
fn criterion_mean(id: &str) -> Result<f64, String> {
    let path = Path::new("target/criterion").join(id).join("new/estimates.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    v["mean"]["point_estimate"].as_f64().map(|ns| ns / 1e9).ok_or_else(|| format!("{}: no mean", path.display()))
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

fn growth(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if a > 0.0 => format!("×{:.2}", b / a),
        _ => "–".to_owned(),
    }
}

/// Runs everything and prints the table; returns it.
pub fn run_all(python: &Path) -> Result<String, String> {
    // Wall time of the main job, after build.
    run(cargo().args(["build", "--quiet", "-p", "xtask"]))?;
    let t = Instant::now();
    run(Command::new("target/debug/xtask").args(["gen"]))?;
    let gen_secs = t.elapsed().as_secs_f64();
    // A clean build of the generated crate with its default features.
    let clean = Path::new("target/bench/clean-build");
    let _ = std::fs::remove_dir_all(clean);
    run(cargo().args(["fetch", "--quiet"]))?;
    let t = Instant::now();
    run(cargo().args(["build", "--quiet", "--offline", "-p", "agent-sentences", "--target-dir"]).arg(clean))?;
    let build_secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(clean);

    std::fs::create_dir_all("target/bench").map_err(|e| e.to_string())?;
    run(cargo().args(["run", "--quiet", "--release", "-p", "agent-sentences-bench", "--bin", "corpus", "--", CORPUS]))?;
    run(cargo().args(["bench", "-p", "agent-sentences-bench", "--bench", "scan", "--", "--warm-up-time", "1", "--measurement-time", "3"]))?;
    eprintln!("== python bench (generated package and seed approach, {PY_TIMEOUT} s per hostile case)");
    let out = Command::new(python)
        .args(["bench/python/bench.py", CORPUS, "schema", "generated/python", PY_TIMEOUT])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !out.status.success() {
        return Err(format!("the Python bench failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    let py: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("the Python bench printed no JSON: {e}"))?;

    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(CORPUS).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let messages = corpus["realistic"].as_array().map_or(0, Vec::len) as f64;
    let bytes = py["realistic_bytes"].as_f64().unwrap_or(0.0);
    let prose_bytes = py["generated"]["prose_bytes"].as_f64().unwrap_or(0.0);
    let rust = criterion_mean("realistic/scan")?;
    let rust_prose = criterion_mean("prose/scan")?;
    let gen_py = py["generated"]["realistic_seconds"].as_f64().unwrap_or(f64::NAN);
    let seed_py = py["seed"]["realistic_seconds"].as_f64().unwrap_or(f64::NAN);

    let mut t = String::new();
    let _ = writeln!(t, "Realistic corpus: {messages} messages, {:.2} MB (Python {})\n", bytes / 1e6, py["python"].as_str().unwrap_or("?"));
    let _ = writeln!(t, "| implementation | messages/s | MB/s | prose MB/s | time ÷ Rust time |");
    let _ = writeln!(t, "| --- | ---: | ---: | ---: | ---: |");
    let prose_of = |k: &str| py[k]["prose_seconds"].as_f64().unwrap_or(f64::NAN);
    for (name, secs, prose) in [
        ("Rust scanner (generated crate)", rust, rust_prose),
        ("Python, generated package", gen_py, prose_of("generated")),
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
    let _ = writeln!(t, "\nHostile inputs: milliseconds at each size, and the growth factor per doubling (≈2 is linear)\n");
    let _ = writeln!(t, "| input | implementation | 256 KiB | 512 KiB | 1 MiB | 2 MiB | growth |");
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
        for (label, key) in [("Rust", "rust"), ("Python generated", "generated"), ("Python seed", "seed")] {
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
    let _ = writeln!(t, "\n`cargo xtask gen` (after build): {:.3} s; clean build of the generated crate (default features): {:.1} s", gen_secs, build_secs);
    println!("{t}");
    std::fs::write("target/bench/report.md", &t).map_err(|e| e.to_string())?;
    Ok(t)
}
