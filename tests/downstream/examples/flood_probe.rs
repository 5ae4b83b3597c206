//! Times the scanner on hostile inputs at growing sizes (a quick probe; the
//! benchmark command gives the numbers that count).
use std::time::Instant;

/// A named hostile input, made at a given size in bytes.
type Maker = (&'static str, Box<dyn Fn(usize) -> String>);

fn main() {
    let units: &[Maker] = &[
        ("tool-open", Box::new(|n| "[TOOL op {".repeat(n / 10))),
        ("result-open", Box::new(|n| "[RESULT ".repeat(n / 8))),
        ("results", Box::new(|n| "[RESULT a] OK x ".repeat(n / 16))),
        (
            "wo-no-dash",
            Box::new(|n| format!("[WO:7f] [from super] {}", " word".repeat(n / 5))),
        ),
        ("brackets", Box::new(|n| "[".repeat(n))),
        ("backticks", Box::new(|n| "` `` ".repeat(n / 5))),
        (
            "deep",
            Box::new(|n| format!("[TOOL a.b {}]", "{\"a\": ".repeat(n / 6))),
        ),
        (
            "strings",
            Box::new(|n| "[TOOL op {\"a\": \"".repeat(n / 16)),
        ),
        ("fences", Box::new(|n| "```tool\n".repeat(n / 8))),
        (
            "curl",
            Box::new(|n| "curl https://h/exec -d '\n".repeat(n / 25)),
        ),
        (
            "prose",
            Box::new(|n| "plain words without markers, ".repeat(n / 29)),
        ),
        (
            "acks",
            Box::new(|n| "[ACK:7fce46e0] [from 646] ".repeat(n / 26)),
        ),
        ("footer-head", Box::new(|n| "Reply: [".repeat(n / 8))),
        (
            "directive-open",
            Box::new(|n| "[Directive: [".repeat(n / 13)),
        ),
        // Aimed at the one-pass JSON reader, the summary's plain runs and
        // the bidi search by lead bytes (P236-P238, P248).
        (
            "json-keys",
            Box::new(|n| {
                let keys: String = (0..n / 10).map(|i| format!("\"k{i}\":{i},")).collect();
                format!("[TOOL a.b {{{keys}\"z\": 0}}]")
            }),
        ),
        (
            "json-too-deep",
            Box::new(|n| {
                let one = format!("[TOOL a.b {}1{}] ", "{\"a\":".repeat(65), "}".repeat(65));
                one.repeat(n / one.len())
            }),
        ),
        (
            "summary-runs",
            Box::new(|n| format!("[RESULT a] OK {}", "abcdefg[".repeat(n / 8))),
        ),
        (
            "bidi-lead-bytes",
            Box::new(|n| format!("{} [TOOL a.b {{}}]", "—…؛".repeat(n / 8))),
        ),
    ];
    for (name, make) in units {
        let mut line = format!("{name:>15}");
        let mut prev = 0.0;
        for kib in [256usize, 512, 1024, 2048] {
            let text = make(kib * 1024);
            let t = Instant::now();
            let found = agent_sentences::scan::scan_with_diagnostics(&text);
            let secs = t.elapsed().as_secs_f64();
            std::hint::black_box(found);
            line.push_str(&format!("  {kib:>4}K {:>8.2}ms", secs * 1e3));
            if prev > 0.0 {
                line.push_str(&format!(" x{:.1}", secs / prev));
            }
            prev = secs;
        }
        println!("{line}");
    }
}
