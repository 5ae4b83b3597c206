//! `box-docs parse --stream`: standard input read as it arrives, one JSON
//! line per event the moment the scanner makes it final, and its exits.

mod common;

use common::{ok, run_with, spawn};
use serde_json::{json, Value};
use std::io::Write;

/// The events of a `--stream` run as JSON values, in a canonical order (a
/// stream commits in its own order).
fn sorted_events(mut events: Vec<Value>) -> Vec<Value> {
    events.sort_by_key(|e| (e["span"]["start"].as_u64(), e.to_string()));
    events
}

/// `parse --stream` reads standard input as it arrives: after each piece is
/// written, every event the scanner makes final with that piece is printed
/// before more input comes (the test reads those lines back before writing the
/// next piece: it waits on the events, never on time), and in all it prints
/// the batch scan's items and skips, one JSON line each.
#[test]
fn parse_stream_prints_each_event_once_the_input_makes_it_final() {
    use std::io::{BufRead, BufReader};
    use std::sync::{mpsc, Arc, Mutex};

    use agent_sentences::scan::{scan_with_diagnostics, Event, Stream};

    let pieces = [
        "On it [CLAIM 7fce",
        "46e0]\n\n",
        "[TOOL health.check {\"node\": \"warp-dev\"}]\n",
        "\n[TOOL a.b {\"x\": 1,}]\n\n[RESULT 7fce46e0] OK first\n\n[RESULT 8a12bc44] OK ",
        "second\n\n[WO:7fce46e0] [from super] Audit — check",
        " endpoints\n",
    ];
    let mut child = spawn(&["parse", "--stream"]);
    let mut input = child.stdin.take().expect("stdin is piped");
    let mut output = BufReader::new(child.stdout.take().expect("stdout is piped"));
    // A run that waits for input it already has would block this test for
    // good: past a generous bound the child is killed, and the read fails.
    let child = Arc::new(Mutex::new(child));
    let (done, watch) = mpsc::channel::<()>();
    let watchdog = {
        let child = Arc::clone(&child);
        std::thread::spawn(move || {
            if watch
                .recv_timeout(std::time::Duration::from_secs(300))
                .is_err()
            {
                let _ = child.lock().unwrap().kill();
            }
        })
    };
    let mut reference = Stream::new();
    let mut lines: Vec<Value> = Vec::new();
    for piece in pieces {
        input.write_all(piece.as_bytes()).unwrap();
        input.flush().unwrap();
        for _ in &reference.push(piece) {
            let mut line = String::new();
            output.read_line(&mut line).unwrap();
            assert!(
                line.ends_with('\n'),
                "the run ended before its event: {line:?}"
            );
            lines.push(serde_json::from_str(&line).unwrap());
        }
    }
    drop(input);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut output, &mut rest).unwrap();
    lines.extend(
        rest.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap()),
    );
    let status = child.lock().unwrap().wait().unwrap();
    let _ = done.send(());
    watchdog.join().unwrap();
    let mut stderr = String::new();
    let taken = child.lock().unwrap().stderr.take();
    std::io::Read::read_to_string(&mut taken.unwrap(), &mut stderr).unwrap();

    let text = pieces.concat();
    let (found, skipped) = scan_with_diagnostics(&text);
    let batch: Vec<Value> = found
        .into_iter()
        .map(Event::Found)
        .chain(skipped.into_iter().map(Event::Skipped))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(sorted_events(lines), sorted_events(batch.clone()));
    let n_found = batch.iter().filter(|e| e["event"] == "found").count();
    assert_eq!(
        stderr,
        format!("{n_found} found, {} skipped\n", batch.len() - n_found)
    );
    assert!(n_found >= 4, "{batch:?}");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn parse_stream_exits_as_parse_does() {
    let r = run_with(&["parse", "--stream", "--json"], Some(b"no markers here\n"));
    assert_eq!((r.code, r.stdout.as_str(), r.stderr.as_str()), (1, "", ""));
    // With --resolve, a directive's line holds what `parse --resolve` says of it.
    let call = "[DM {\"to\": \"646\", \"text\": \"hi\"}]";
    let r = run_with(
        &["parse", "--stream", "-", "--resolve"],
        Some(call.as_bytes()),
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v: Value = serde_json::from_str(r.stdout.trim_end()).unwrap();
    let mut resolved = ok(&["parse", "--resolve", "--json", call]).json()["resolved"][0].take();
    resolved.as_object_mut().unwrap().shift_remove("span");
    assert_eq!(
        (&v["event"], &v["op"], &v["resolved"]),
        (&json!("found"), &json!("dm.send"), &resolved)
    );
    // Bytes that are not UTF-8 end the run: a usage error, nothing after them read.
    let r = run_with(
        &["parse", "--stream"],
        Some(b"[CLAIM 7f]\n\n\xff [CLAIM 8a]\n"),
    );
    assert_eq!(r.code, 2);
    assert_eq!(
        r.stderr,
        "error: standard input is not UTF-8 (invalid byte at offset 12)\n"
    );
    assert!(!r.stdout.contains("8a"), "{}", r.stdout);
    let r = run_with(&["parse", "--stream", "[CLAIM 7f]"], None);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (
            2,
            "error: --stream reads standard input: give `-` or no TEXT\n"
        )
    );
}
