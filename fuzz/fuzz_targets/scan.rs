//! Fuzz target: `agent_sentences::scan::scan_with_diagnostics` on any UTF-8
//! input never panics, and its answer holds every scan invariant
//! (`downstream_example::scan_invariants`: spans non-empty, in range, on
//! character boundaries, ordered and disjoint; found sentences and calls read
//! back as themselves). Run with `cargo +nightly fuzz run scan` from the
//! repository root; the seed corpus is `fuzz/corpus/scan` (the shared scanner
//! vectors' inputs, written there by `fuzz/seed.sh`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Err(broken) = downstream_example::scan_invariants(text) {
        panic!("{broken}");
    }
});
