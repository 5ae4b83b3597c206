//! Running the `box-docs` binary, shared by the CLI's test files.
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::process::{Child, Command, Stdio};

/// What one run printed and how it exited.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}):\n{}", self.stdout))
    }
}

/// `box-docs` started with `args`, its standard streams piped.
pub fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_box-docs"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("box-docs runs")
}

pub fn run_with(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = spawn(args);
    let mut input = child.stdin.take().expect("stdin is piped");
    if let Some(bytes) = stdin {
        input.write_all(bytes).unwrap();
    }
    drop(input);
    let out = child.wait_with_output().unwrap();
    Run {
        code: out.status.code().expect("exited"),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

pub fn run(args: &[&str]) -> Run {
    run_with(args, None)
}

/// Runs and expects success with nothing on stderr.
pub fn ok(args: &[&str]) -> Run {
    let r = run(args);
    assert_eq!(
        (r.code, r.stderr.as_str()),
        (0, ""),
        "box-docs {args:?}\nstdout:\n{}",
        r.stdout
    );
    r
}
