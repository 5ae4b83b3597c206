//! The Markdown context (`runtime/src/context`): its trivial-text path gives
//! the readers' own context (P174), top-level fences included (P272), and it
//! holds no hand-written rule that re-derives block structure from raw bytes
//! (P170).

use std::path::{Path, PathBuf};

use agent_sentences_runtime::context::{both_paths, is_trivial, is_trivial_with_fence};
use serde_json::Value;

/// The directive fences' info words (the spec's `/fences`; any words serve
/// the comparison, which is about the context alone).
const FENCES: &[&str] = &["tool", "exec", "box"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Compares the two paths on `text`; returns whether the trivial one was taken.
fn same_on(text: &str) -> bool {
    let [read, quick] = both_paths(text, FENCES);
    assert_eq!(
        read, quick,
        "the trivial path differs from the readers on {text:?}"
    );
    is_trivial(text)
}

#[test]
fn the_trivial_path_is_the_readers_context_on_every_scan_vector() {
    let dir = repo().join("tests/vectors/scan");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("the scan vectors") {
        let path = entry.expect("an entry").path();
        let case: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("a vector")).expect("JSON");
        let text = case["input"].as_str().expect("an input");
        same_on(text);
        n += 1;
    }
    assert!(n >= 180, "{n} vectors");
}

/// A small deterministic generator (xorshift): texts from the scan pool's
/// tokens, pieces and separators, and prose texts made mostly of what the
/// trivial path accepts with a risky byte now and then.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[(self.next() % items.len() as u64) as usize]
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_owned())
        .collect()
}

#[test]
fn the_trivial_path_is_the_readers_context_on_generated_texts() {
    let pool: Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("tests/scan_pool.json")).expect("the scan pool"),
    )
    .expect("JSON");
    let tokens = strings(&pool["tokens"]);
    let pieces = strings(&pool["pieces"]);
    let separators = strings(&pool["separators"]);
    let prose: Vec<String> = [
        "word ",
        "Done",
        "the run ",
        "[TOOL a.b {}]",
        "[CLAIM 1]",
        "[DM {\"to\": \"x\"}]",
        "\n",
        "\n\n",
        "  \n",
        " ",
        "(see above)",
        "\"quoted\" ",
        "in_m ",
        "\u{dc}ber ",
        "x | y ",
        "\u{2713} ",
        "{\"k\": [1, 2]}",
        "é ",
        "— ",
        "x: y ",
        "100% ",
        "#tag ",
        "a-b ",
        "1. ",
        "2) ",
        "- ",
        "+ ",
        "= ",
        "--- ",
        "    ",
        "\t",
        "*",
        "_",
        "~",
        "`",
        "<b>",
        "&amp;",
        "\\",
        "|",
        "![i]",
        "[r]: /u",
        "](u)",
        "[a][b]",
        "\r",
        "\u{feff}",
        "> ",
        "#",
        "```",
        "~~~tool\n",
        "curl ",
        "Reply: ",
        "[",
        "]",
        "a_ ",
        " _b",
        "_x_ ",
        "a__b ",
        "\u{a0}",
        "\u{3000}",
        "- | -\n",
        "a\n--- | ---\n",
        "\n\u{feff}x",
    ]
    .iter()
    .map(|s| (*s).to_owned())
    .collect();
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    let mut trivial = 0;
    let mut texts = 0;
    for _ in 0..4000 {
        let mut text = String::new();
        for _ in 0..(g.next() % 24) {
            match g.next() % 3 {
                0 => text.push_str(g.pick(&tokens)),
                1 => text.push_str(g.pick(&pieces)),
                _ => text.push_str(g.pick(&separators)),
            }
        }
        same_on(&text);
        texts += 1;
    }
    for _ in 0..20000 {
        let mut text = String::new();
        // Mostly safe prose: the first 20 items; now and then any item.
        for _ in 0..(g.next() % 30) {
            let k = if g.next() % 12 == 0 {
                g.next() as usize % prose.len()
            } else {
                g.next() as usize % 20
            };
            text.push_str(&prose[k]);
        }
        trivial += usize::from(same_on(&text));
        texts += 1;
    }
    // Replies with top-level fences (P272): prose lines, fence lines of
    // every kind, and bodies that hold what prose may not.
    let fenced: Vec<&str> = vec![
        "```tool\n",
        "```\n",
        "~~~tool\n",
        "~~~~ tool x\n",
        "````\n",
        "```tool exec\n",
        "``` tool\n",
        "```to`ol\n",
        "```t&#111;ol\n",
        "fs.read {\"path\": \"a\"}\n",
        "{\"a\": \"<b>*x* & \\\\ `y`\"}\n",
        "  ```\n",
        "   ~~~\n",
        "```  \n",
        "~~~\n",
        "    indented\n",
        "\tx\n",
        "> q\n",
        "- item\n",
        "\n",
        "\n\n",
        "word [TOOL a.b {}] ",
        "Done.",
        "x\r\n",
        "[r]: /u\n",
        // Lines that start with a fence's character inside its body but
        // cannot close it, and lines that could (P360).
        "``` ",
        "`` x\n",
        "```` done\n",
        "```\t\n",
        " ``` x\n",
        "~~~ ~\n",
    ];
    let mut with_fence = 0;
    for _ in 0..3000 {
        let mut text = String::new();
        for _ in 0..(g.next() % 16) {
            let k = if g.next() % 10 == 0 {
                g.next() as usize % fenced.len()
            } else {
                g.next() as usize % 11
            };
            text.push_str(fenced[k]);
            if g.next() % 3 == 0 {
                text.push_str(&prose[g.next() as usize % 20]);
            }
        }
        same_on(&text);
        with_fence += usize::from(is_trivial_with_fence(&text, FENCES));
        texts += 1;
    }
    assert!(
        with_fence > 400,
        "{with_fence} texts with a fence took the trivial path"
    );
    // The comparison proves something only if both paths were taken often.
    assert!(
        trivial > 2000,
        "{trivial} of {texts} texts took the trivial path"
    );
    assert!(
        texts - trivial > 3000,
        "{} of {texts} texts went to the readers",
        texts - trivial
    );
}

/// The guards that re-derived Markdown block structure from raw bytes beside
/// pulldown-cmark (P150, P159–P167) are gone, and nothing like them is in
/// the context: where readers differ, their disagreement removes the text.
#[test]
fn the_context_holds_no_block_structure_rules() {
    assert!(
        !repo().join("runtime/src/markdown.rs").exists(),
        "markdown.rs is deleted"
    );
    let banned = [
        "without_tabbed_prefixes",
        "without_lines_after_quotes",
        "container_prefix",
        "doubtful_lazy_line",
        "without_doubtful_containers",
        "setext_definition",
        "definition_lines",
        "recheck_after_definitions",
        "without_reference_texts",
        "label_key",
        "single_tilde",
        "without_cdata",
        "interrupts_paragraph",
        "open_container",
        "table_broken",
        "lazy",
        "tab stop",
        "list width",
    ];
    let dir = repo().join("runtime/src/context");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("runtime/src/context") {
        let path = entry.expect("an entry").path();
        let source = std::fs::read_to_string(&path).expect("a source file");
        for word in banned {
            assert!(
                !source.contains(word),
                "{} holds `{word}`: a block-structure rule beside the readers",
                path.display()
            );
        }
        files += 1;
    }
    assert!(files >= 6, "{files} files in runtime/src/context");
}
