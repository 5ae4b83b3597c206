//! Scans one hostile input many times (for profiling): `one_flood UNIT BYTES ROUNDS`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let unit = args.get(1).map_or("[TOOL op {", String::as_str);
    let bytes: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2 << 20);
    let rounds: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20);
    let text = unit.repeat(bytes / unit.len());
    let mut n = 0;
    for _ in 0..rounds {
        n += agent_sentences::scan::scan(&text).len();
    }
    println!("{n}");
}
