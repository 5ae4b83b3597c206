//! The Markdown-rich corpus: agent replies written in Markdown (headings,
//! nested lists, GFM tables, quotes of earlier messages, code fences, inline
//! code, links, emphasis) with calls and sentences in their text, where a
//! scanner must ask its readers: no cheap check can prove such a reply's
//! rendering trivial.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::{marker, prose, Message, SEED};

const FILES: &[&str] = &[
    "src/main.rs",
    "README.md",
    "tests/test_api.py",
    "config/app.yaml",
    "Cargo.toml",
    "scripts/deploy.sh",
];

/// A one-line marker: a marker whose text holds no line break (a sentence
/// or an inline call), so it fits in a list item or a table cell.
fn inline_marker(rng: &mut ChaCha8Rng) -> String {
    loop {
        let m = marker(rng);
        if !m.contains('\n') && !m.contains('|') {
            return m;
        }
    }
}

/// One line of prose with inline code, a link or emphasis, and sometimes a marker.
fn rich_line(rng: &mut ChaCha8Rng) -> String {
    let words = rng.gen_range(4..14);
    let mut line = prose(rng, words).replace('\n', " ");
    match rng.gen_range(0..6) {
        0 => line.push_str(&format!(" See `{}`.", FILES.choose(rng).expect("files"))),
        1 => line.push_str(" Details in [the runbook](https://example.com/runbook#deploy)."),
        2 => line.push_str(" This is **important**, *really*."),
        3 => line.push_str(&format!(" Then {}", inline_marker(rng))),
        _ => {}
    }
    line
}

fn heading(rng: &mut ChaCha8Rng, out: &mut String) {
    let level = rng.gen_range(1..=3);
    let title = ["Summary", "Plan", "Results", "Next steps", "What changed"]
        .choose(rng)
        .expect("titles");
    out.push_str(&format!("{} {title}\n\n", "#".repeat(level)));
}

fn list(rng: &mut ChaCha8Rng, out: &mut String) {
    let ordered = rng.gen_bool(0.4);
    for i in 0..rng.gen_range(2..6) {
        let bullet = if ordered {
            format!("{}. ", i + 1)
        } else {
            "- ".to_owned()
        };
        out.push_str(&format!("{bullet}{}\n", rich_line(rng)));
        if rng.gen_bool(0.35) {
            let pad = " ".repeat(bullet.len());
            for _ in 0..rng.gen_range(1..4) {
                out.push_str(&format!("{pad}- {}\n", rich_line(rng)));
            }
        }
    }
    out.push('\n');
}

fn table(rng: &mut ChaCha8Rng, out: &mut String) {
    out.push_str("| Step | Result | Notes |\n| --- | :-: | --- |\n");
    for _ in 0..rng.gen_range(2..6) {
        let note = if rng.gen_bool(0.3) {
            inline_marker(rng)
        } else {
            format!("`{}`", FILES.choose(rng).expect("files"))
        };
        let step = ["deploy", "migrate", "test", "lint", "build"]
            .choose(rng)
            .expect("steps");
        let result = ["ok", "failed", "**yes**", "2 min"]
            .choose(rng)
            .expect("results");
        out.push_str(&format!("| {step} | {result} | {note} |\n"));
    }
    out.push('\n');
}

fn quote(rng: &mut ChaCha8Rng, out: &mut String) {
    out.push_str("> You wrote:\n");
    for _ in 0..rng.gen_range(1..4) {
        out.push_str(&format!("> {}\n", rich_line(rng)));
    }
    out.push('\n');
}

fn fence(rng: &mut ChaCha8Rng, out: &mut String) {
    let lang = ["bash", "python", "json", "text"]
        .choose(rng)
        .expect("langs");
    out.push_str(&format!("```{lang}\n"));
    for _ in 0..rng.gen_range(1..6) {
        out.push_str(
            [
                "cargo test --all",
                "ls -la target/",
                "def handler(event):",
                "    return {\"ok\": True}",
                "{\"status\": \"green\", \"n\": 3}",
                "[TOOL quoted.call {}]",
            ]
            .choose(rng)
            .expect("code"),
        );
        out.push('\n');
    }
    out.push_str("```\n\n");
}

/// The Markdown-rich corpus: `count` replies of about 300–3,000 bytes, each
/// a mix of headings, paragraphs, nested lists, tables, quotes and code
/// fences around one to four markers of every kind (seeded, deterministic).
pub fn markdown_rich(count: usize) -> Vec<Message> {
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 0x6d64);
    (0..count)
        .map(|_| {
            let target = rng.gen_range(300..=3000);
            let mut text = String::new();
            let mut markers = 0;
            while text.len() < target || markers == 0 {
                match rng.gen_range(0..8) {
                    0 => heading(&mut rng, &mut text),
                    1 => list(&mut rng, &mut text),
                    2 => table(&mut rng, &mut text),
                    3 => quote(&mut rng, &mut text),
                    4 => fence(&mut rng, &mut text),
                    5 if markers < 4 => {
                        markers += 1;
                        text.push_str(&marker(&mut rng));
                        text.push_str("\n\n");
                    }
                    _ => {
                        text.push_str(&rich_line(&mut rng));
                        text.push('\n');
                        text.push_str(&rich_line(&mut rng));
                        text.push_str("\n\n");
                    }
                }
            }
            Message { text }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_markdown_rich_corpus_is_deterministic_and_holds_markdown_and_markers() {
        let a = markdown_rich(200);
        let b = markdown_rich(200);
        assert_eq!(
            a.iter().map(|m| &m.text).collect::<Vec<_>>(),
            b.iter().map(|m| &m.text).collect::<Vec<_>>()
        );
        let all: String = a.iter().map(|m| m.text.as_str()).collect();
        for construct in [
            "\n# ",
            "\n- ",
            "\n  - ",
            "| --- |",
            "\n> ",
            "```bash",
            "`src/",
            "](https://",
        ] {
            assert!(all.contains(construct), "{construct:?}");
        }
        let found: usize = a
            .iter()
            .map(|m| agent_sentences::scan::scan(&m.text).len())
            .sum();
        assert!(found >= 200, "every reply carries markers: {found}");
    }
}
