//! Writes the benchmark corpus as JSON to the path given (for the Python side
//! of `cargo xtask bench`): `{"realistic": [...], "prose": "...", "hostile": [...]}`.

fn main() {
    let path = std::env::args().nth(1).expect("usage: corpus OUT.json");
    let doc = serde_json::json!({
        "seed": agent_sentences_bench::SEED,
        "realistic": agent_sentences_bench::realistic(2000).into_iter().map(|m| m.text).collect::<Vec<_>>(),
        "prose": agent_sentences_bench::prose_only(1 << 20),
        "hostile": agent_sentences_bench::hostile(),
    });
    std::fs::write(&path, serde_json::to_vec(&doc).expect("serializes"))
        .expect("writes the corpus");
}
