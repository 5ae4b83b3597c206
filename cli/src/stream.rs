//! `box-docs parse --stream`: standard input scanned as it arrives, one JSON
//! line per event, each flushed as soon as the scanner makes it final.
//!
//! Each read takes whatever the pipe holds (never waiting for a line or the
//! end) and pushes it to the generated crate's `scan::Stream`; the events a
//! push returns are printed at once. The stream is the bytes as they come:
//! unlike `parse -`, no trailing line break is removed (a stream's end is
//! known only when it comes).

use std::io::{ErrorKind, Read, Write};

use agent_sentences::scan::{Event, Item, Stream};
use serde_json::Value;

use crate::verbs;

/// How many bytes one read asks for.
const READ_BYTES: usize = 64 << 10;

/// What a streamed parse found, for its summary and exit status.
#[derive(Default)]
struct Counts {
    found: usize,
    skipped: usize,
}

/// One event as its JSON line: the event's serde JSON (`"event": "found"` or
/// `"skipped"`, then the item's fields as `parse --json` writes them), with
/// `resolve`, a directive's resolution under `"resolved"`.
fn line(event: &Event, resolve: bool) -> String {
    let mut value = serde_json::to_value(event).expect("an event serializes");
    if let (Event::Found(f), true) = (event, resolve) {
        if let Item::Directive { directive } = &f.item {
            let mut resolved = serde_json::to_value(verbs::resolve_one(f.span.clone(), directive))
                .expect("a resolution serializes");
            if let Value::Object(map) = &mut resolved {
                map.shift_remove("span");
            }
            if let Value::Object(map) = &mut value {
                map.insert("resolved".into(), resolved);
            }
        }
    }
    let mut text = value.to_string();
    text.push('\n');
    text
}

/// Scans `input` as it arrives and prints each event to `out` (flushed per
/// event); the summary (unless `json`) and any error go to `err`. Returns
/// the exit status: 0 when something was found, 1 when nothing was, 2 when
/// the input could not be read or is not UTF-8 (the events printed before
/// stand; the stream is not finished, so nothing of a cut text is committed
/// as if it had ended). A closed `out` ends the run quietly.
pub fn parse(
    mut input: impl Read,
    mut out: impl Write,
    mut err: impl Write,
    resolve: bool,
    json: bool,
) -> u8 {
    let mut stream = Stream::new();
    let mut counts = Counts::default();
    let mut buf = vec![0; READ_BYTES];
    let fail = |err: &mut dyn Write, message: String| -> u8 {
        let text = if json {
            format!(
                "{:#}\n",
                serde_json::json!({ "error": { "kind": "input", "message": message } })
            )
        } else {
            format!("error: {message}\n")
        };
        let _ = err.write_all(text.as_bytes());
        2
    };
    // Prints the events; false when stdout is closed.
    let mut print = |events: Vec<Event>, counts: &mut Counts| -> bool {
        for event in &events {
            match event {
                Event::Found(_) => counts.found += 1,
                Event::Skipped(_) => counts.skipped += 1,
            }
            let text = line(event, resolve);
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return false;
            }
        }
        true
    };
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return fail(&mut err, format!("cannot read standard input: {e}")),
        };
        match stream.push_bytes(&buf[..n]) {
            Ok(events) => {
                if !print(events, &mut counts) {
                    return status(&counts);
                }
            }
            Err(e) => {
                return fail(
                    &mut err,
                    format!(
                        "standard input is not UTF-8 (invalid byte at offset {})",
                        e.at
                    ),
                )
            }
        }
    }
    match stream.finish() {
        Ok(events) => {
            if !print(events, &mut counts) {
                return status(&counts);
            }
        }
        Err(e) => {
            return fail(
                &mut err,
                format!(
                    "standard input is not UTF-8 (it ends inside a character at offset {})",
                    e.at
                ),
            )
        }
    }
    if !json {
        let found = match counts.found {
            0 => "nothing found".to_owned(),
            1 => "1 found".to_owned(),
            n => format!("{n} found"),
        };
        let _ = writeln!(err, "{found}, {} skipped", counts.skipped);
    }
    status(&counts)
}

fn status(counts: &Counts) -> u8 {
    if counts.found > 0 {
        0
    } else {
        1
    }
}
