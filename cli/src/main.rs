//! `box-docs`: look up, test and parse the agent messaging protocol's
//! sentences from a shell.
//!
//! Everything it knows comes from the generated `agent-sentences` crate
//! (structures, patterns, examples, the scanner); nothing is written here a
//! second time. A `box docs …` front end hands its arguments straight to it.
//!
//! `parse --stream` scans standard input as it arrives (`stream.rs`).
//!
//! Exit status: 0 success, 1 no match (`regex NAME --test`, `parse`; `loops`:
//! a rejected line: not a message, or an event that was not applied), 2 usage
//! error (bad arguments, unknown name, unreadable input). Data goes to stdout,
//! errors to stderr.

#![forbid(unsafe_code)]

mod conformance;
mod help;
mod input;
mod lookup;
mod near_miss;
mod stream;
mod text;
mod verbs;

use std::io::Write;
use std::process::ExitCode;
use std::sync::LazyLock;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

/// The `--version` text: this tool's version and the spec's.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (spec \"{}\" {})",
        env!("CARGO_PKG_VERSION"),
        agent_sentences::SPEC_TITLE,
        agent_sentences::SPEC_VERSION
    )
});

/// The command line.
#[derive(Parser)]
#[command(
    name = "box-docs",
    version = VERSION.as_str(),
    about = "Look up, test and parse the agent messaging protocol's sentences.",
    long_about = "Look up, test and parse the agent messaging protocol's sentences.\n\n\
        Everything shown comes from the generated agent-sentences crate, that is from schema/. \
        Spans are byte offsets, half-open. TEXT `-` reads standard input (one trailing line break removed).\n\n\
        Exit status: 0 success, 1 no match, 2 usage error (unknown name, bad arguments, unreadable input).",
    after_help = help::top(),
)]
struct Cli {
    /// Print one JSON document instead of text (errors become JSON on stderr).
    #[arg(long, global = true)]
    json: bool,
    /// The verb.
    #[command(subcommand)]
    command: Command,
}

/// The verbs.
#[derive(Subcommand)]
enum Command {
    /// List every sentence structure, or show one in full.
    #[command(after_help = help::sentence())]
    Sentence {
        /// A structure key; without it, every structure, one per line.
        name: Option<String>,
    },
    /// List the patterns, show one, or test a text against one.
    #[command(after_help = help::regex())]
    Regex {
        /// A pattern key; without it, the pattern directory.
        name: Option<String>,
        /// Test TEXT against the pattern: the whole TEXT must match (exit 0), else exit 1.
        #[arg(long, value_name = "TEXT", requires = "name")]
        test: Option<String>,
        /// With --test: find the first match anywhere in TEXT instead of matching all of it.
        #[arg(long, requires = "test")]
        search: bool,
    },
    /// Scan TEXT for every sentence and tool directive, with byte spans (exit 1 when none; then each near miss: where a structure's marker starts but the text does not fit it, the byte and what was expected there).
    #[command(after_help = help::parse())]
    Parse {
        /// The text to scan; `-` reads standard input.
        #[arg(required_unless_present = "stream")]
        text: Option<String>,
        /// Read standard input as it arrives and print one JSON line per event the moment the scanner makes it final (`{"event": "found", …}` or `{"event": "skipped", …}`); the summary goes to stderr. TEXT, if given, must be `-`.
        #[arg(long)]
        stream: bool,
        /// Also show every skipped directive candidate and why it was skipped.
        #[arg(long)]
        diagnostics: bool,
        /// Also resolve every directive against the op catalogue: the typed call, or why it would not run.
        #[arg(long)]
        resolve: bool,
    },
    /// The op catalogue as `tools.list` returns it: every op with its side_effecting flag, or one op in full.
    #[command(after_help = help::tools())]
    Tools {
        /// An op name (or alias); without it, every op, one per line.
        name: Option<String>,
        /// Print the catalogue as an agent API's tool list instead (JSON): the runnable ops under their native names.
        #[arg(long, value_enum, conflicts_with = "name")]
        format: Option<ToolsFormat>,
    },
    /// Track the loops of a JSON Lines log: every loop's state, owner and history, rejected events, nudges due.
    #[command(after_help = help::loops())]
    Loops {
        /// The log: one `{"at": "<RFC 3339>", "from": "<sender>", "text": "<message>"}` per line; `-` (the default) reads standard input.
        #[arg(default_value = "-")]
        file: String,
        /// List the nudges due at this time (RFC 3339), with each loop's canonical `[NUDGE …]` sentence.
        #[arg(long, value_name = "RFC 3339")]
        at: Option<String>,
        /// Drop the closed loops from the report once the log is read (the report says how many).
        #[arg(long)]
        prune: bool,
    },
    /// Print a completion script for SHELL (bash, zsh, fish, elvish, powershell) to standard output.
    #[command(
        after_help = "Examples:\n  box-docs completions bash > ~/.local/share/bash-completion/completions/box-docs\n  box-docs completions zsh > ~/.zfunc/_box-docs\n  box-docs completions fish > ~/.config/fish/completions/box-docs.fish"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Run the conformance suite against an implementation: CMD reads one request a line on stdin and writes one answer a line (exit 1 on a MUST failure); `--serve` answers as this build.
    #[command(
        after_help = "Examples:\n  box-docs conformance --serve                         # this build, as an implementation\n  box-docs conformance box-docs conformance --serve    # score this build\n  box-docs conformance python3 conformance/adapters/python_package.py\n\nThe suite, the protocol and the levels: docs/guide/conformance.md."
    )]
    Conformance {
        /// Answer the kit's requests on standard input with this build's crate, instead of running a suite.
        #[arg(long, conflicts_with = "cmd")]
        serve: bool,
        /// A suite file to run instead of the one this build embeds (`conformance/suite.jsonl`).
        #[arg(long, value_name = "FILE")]
        suite: Option<String>,
        /// The implementation under test: a command and its arguments.
        #[arg(
            trailing_var_arg = true,
            allow_hyphen_values = true,
            required_unless_present = "serve"
        )]
        cmd: Vec<String>,
    },
    /// Print the raw spec entry of a structure or pattern as JSON.
    #[command(after_help = help::get())]
    Get {
        /// The spec table.
        #[arg(value_enum)]
        table: Table,
        /// The entry's key.
        name: String,
    },
}

/// The agent APIs whose tool list `tools --format` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ToolsFormat {
    /// OpenAI-style `tools`: `[{"type": "function", "function": {…}}]`.
    #[value(name = "openai")]
    OpenAi,
    /// Anthropic-style `tools`: `[{"name", "description", "input_schema"}]`.
    #[value(name = "anthropic")]
    Anthropic,
    /// The MCP `tools/list` result: `{"tools": [{"name", "inputSchema", "annotations", …}]}`.
    #[value(name = "mcp")]
    Mcp,
}

/// The spec tables `get` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Table {
    /// `schema/structures.json` `/structures`.
    #[value(name = "structures")]
    Structures,
    /// `schema/regex_patterns.json` `/patterns`.
    #[value(name = "regex_patterns")]
    RegexPatterns,
}

/// Why a verb could not run: a usage error (exit 2).
#[derive(Debug)]
pub enum Error {
    /// A structure or pattern key that does not exist.
    UnknownName(Box<lookup::UnknownName>),
    /// TEXT could not be read.
    Input(String),
}

impl Error {
    /// The error as text for stderr.
    fn human(&self) -> String {
        match self {
            Error::UnknownName(u) => u.human(),
            Error::Input(message) => format!("error: {message}\n"),
        }
    }

    /// The error as one JSON document for stderr.
    fn json(&self) -> serde_json::Value {
        match self {
            Error::UnknownName(u) => serde_json::json!({ "error": u.json() }),
            Error::Input(message) => {
                serde_json::json!({ "error": { "kind": "input", "message": message } })
            }
        }
    }
}

/// What a verb produced.
pub struct Output {
    /// The text for stdout.
    pub stdout: String,
    /// False when the verb looked for something and found nothing (exit 1).
    pub matched: bool,
}

fn run(cli: &Cli) -> Result<Output, Error> {
    let json = cli.json;
    match &cli.command {
        Command::Sentence { name: None } => Ok(verbs::sentence_list(json)),
        Command::Sentence { name: Some(name) } => verbs::sentence(name, json),
        Command::Regex { name: None, .. } => Ok(verbs::regex_list(json)),
        Command::Regex {
            name: Some(name),
            test: None,
            ..
        } => verbs::regex(name, json),
        Command::Regex {
            name: Some(name),
            test: Some(text),
            search,
        } => verbs::regex_test(name, &input::text(text)?, *search, json),
        Command::Parse {
            text,
            diagnostics,
            resolve,
            ..
        } => Ok(verbs::parse(
            &input::text(text.as_deref().unwrap_or("-"))?,
            *diagnostics,
            *resolve,
            json,
        )),
        Command::Tools {
            format: Some(format),
            ..
        } => Ok(verbs::native_tools(*format)),
        Command::Tools { name: None, .. } => Ok(verbs::tools_list(json)),
        Command::Tools {
            name: Some(name), ..
        } => verbs::tool(name, json),
        Command::Get { table, name } => verbs::get(*table, name),
        Command::Loops { file, at, prune } => {
            verbs::loops(&input::bytes(file)?, at.as_deref(), *prune, json)
        }
        Command::Conformance { serve: true, .. } => Ok(conformance::serve()),
        Command::Conformance { cmd, suite, .. } => {
            let suite = match suite {
                Some(path) => std::fs::read_to_string(path)
                    .map_err(|e| Error::Input(format!("cannot read {path}: {e}")))?,
                None => conformance::SUITE.to_owned(),
            };
            conformance::run(cmd, &suite, json)
        }
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(*shell, &mut Cli::command(), "box-docs", &mut script);
            Ok(Output {
                stdout: String::from_utf8_lossy(&script).into_owned(),
                matched: true,
            })
        }
    }
}

/// Writes `text`; a closed pipe (`box-docs … | head`) is not an error.
fn emit(mut to: impl Write, text: &str) -> bool {
    match to.write_all(text.as_bytes()).and_then(|()| to.flush()) {
        Ok(()) => true,
        Err(e) => e.kind() == std::io::ErrorKind::BrokenPipe,
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Parse {
        text,
        stream: true,
        resolve,
        ..
    } = &cli.command
    {
        if text.as_deref().is_some_and(|t| t != "-") {
            let e = Error::Input("--stream reads standard input: give `-` or no TEXT".into());
            let text = if cli.json {
                format!("{:#}\n", e.json())
            } else {
                e.human()
            };
            emit(std::io::stderr().lock(), &text);
            return ExitCode::from(2);
        }
        return ExitCode::from(stream::parse(
            std::io::stdin().lock(),
            std::io::stdout().lock(),
            std::io::stderr().lock(),
            *resolve,
            cli.json,
        ));
    }
    match run(&cli) {
        Ok(out) => {
            if !emit(std::io::stdout().lock(), &out.stdout) {
                return ExitCode::from(2);
            }
            ExitCode::from(if out.matched { 0 } else { 1 })
        }
        Err(e) => {
            let text = if cli.json {
                format!("{:#}\n", e.json())
            } else {
                e.human()
            };
            emit(std::io::stderr().lock(), &text);
            ExitCode::from(2)
        }
    }
}
