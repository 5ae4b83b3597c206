//! The generated `loops` module: the loop state machine and the glue to
//! the runtime's tracker.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::tokens::doc;
use crate::lower::{Model, SentenceIr};

/// The `loops` module: the state machine of `schema/loops.json` and the
/// structures' `lifecycle_transition`s, and the glue from scanned sentences to
/// the runtime's tracker. Nothing when the spec has no `loops.json`.
pub(super) fn loops_mod(model: &Model, crate_root: bool) -> TokenStream {
    let Some(m) = &model.machine else {
        return TokenStream::new();
    };
    let sentence_of = |key: &str| {
        model
            .sentences
            .iter()
            .find(|s| s.key == key)
            .expect("checked: the structure exists")
    };
    let field_ident = |s: &SentenceIr, name: &str| {
        let f = s
            .fields
            .iter()
            .find(|f| f.name == name)
            .expect("checked: the field exists");
        format_ident!("{}", f.rust_name)
    };
    let (opener, initial, claim) = (&m.opener, &m.initial, &m.claim);
    let states = &m.states;
    let closed = &m.closed_states;
    let rules = m.rules.iter().map(|r| {
        let (structure, from, to, closes) = (&r.structure, &r.from, &r.to, r.closes);
        quote! { EventRule { structure: #structure, from: &[#(#from),*], to: #to, closes: #closes } }
    });
    let nudge_key = &m.nudge.structure;
    let nudge_article = agent_sentences_runtime::ParseError::article(nudge_key);
    let nudge = sentence_of(nudge_key);
    let mut arms: Vec<TokenStream> = m
        .ids
        .iter()
        .map(|(key, field)| {
            let s = sentence_of(key);
            let variant = format_ident!("{}", s.type_name);
            let id = field_ident(s, field);
            quote! { Sentence::#variant(s) => Some(LoopEvent { structure: #key, id: s.#id.clone(), count: None }) }
        })
        .collect();
    let nudge_example = &nudge.example_sentence;
    let nudge_variant = format_ident!("{}", nudge.type_name);
    let nudge_type = format_ident!("{}", nudge.type_name);
    let (n_id, n_count, n_max, n_deadline) = (
        field_ident(nudge, &m.nudge.loop_id),
        field_ident(nudge, &m.nudge.count),
        field_ident(nudge, &m.nudge.max),
        field_ident(nudge, &m.nudge.deadline),
    );
    arms.push(quote! { Sentence::#nudge_variant(s) => Some(LoopEvent { structure: #nudge_key, id: s.#n_id.clone(), count: Some(s.#n_count) }) });
    let played = [
        &m.nudge.loop_id,
        &m.nudge.count,
        &m.nudge.max,
        &m.nudge.deadline,
    ];
    let others = nudge
        .fields
        .iter()
        .filter(|f| !played.contains(&&f.name))
        .map(|f| {
            let f = format_ident!("{}", f.rust_name);
            quote! { #f: None }
        });
    let per_opener = m.sla.deadline_minutes.iter().map(|(k, v)| {
        let secs = i64::from(*v) * 60;
        quote! { (#k.to_owned(), #secs) }
    });
    let default_secs = i64::from(m.sla.default_deadline_minutes) * 60;
    let every_secs = i64::from(m.sla.nudge_every_minutes) * 60;
    let max = m.sla.max_nudges;
    // The example (a doctest, in the generated crate only, P102) opens a loop
    // with the opener's own example sentence.
    let example = if crate_root {
        let sentence = format!("{:?}", sentence_of(opener).example_sentence);
        format!(
            "\n\n```\n\
             use agent_sentences::loops;\n\
             let mut t = loops::tracker(loops::default_config()).unwrap();\n\
             let at = \"2026-12-01T09:00:00Z\".parse().unwrap();\n\
             assert_eq!(loops::feed(&mut t, at, \"super\", {sentence}), 1);\n\
             let (id, l) = t.state().loops.iter().next().unwrap();\n\
             assert_eq!(l.state, loops::MACHINE.initial);\n\
             let due = t.due(l.deadline);\n\
             assert_eq!(due[0].id, *id);\n\
             assert!(due[0].sentence.as_deref().unwrap().contains(&format!(\" {{id}}]\")));\n\
             ```"
        )
    } else {
        String::new()
    };
    let mod_doc = doc(&format!(
        "The loop tracker for this spec: a [`{opener}`]({}) sentence opens a loop in state `{initial}`, \
         the other sentences move it as their `lifecycle_transition` says (`loops::MACHINE`), and loops that go quiet \
         are due {nudge_article} `{nudge_key}` (`Tracker::due`).\n\n\
         Source: `schema/loops.json` and each structure's `lifecycle_transition` in `schema/structures.json`; the rules \
         are in `agent_sentences_runtime::loops`.{example}",
        sentence_of(opener).type_name
    ));
    quote! {
        #mod_doc
        pub mod loops {
            pub use agent_sentences_runtime::loops::{
                Config, Due, EventRule, Loop, LoopError, LoopEvent, Machine, Message, Rejected, RejectedReport, Report, State, Step,
                Timestamp, Tracker, MAX_SECONDS,
            };

            use super::scan::{Found, Item};
            use super::Sentence;

            /// The state machine: states, which structure is which event, the
            /// moves each makes (`schema/loops.json`, each structure's
            /// `lifecycle_transition`).
            pub static MACHINE: Machine = Machine {
                opener: #opener,
                initial: #initial,
                states: &[#(#states),*],
                closed_states: &[#(#closed),*],
                rules: &[#(#rules),*],
                nudge: Some(#nudge_key),
                claim: Some(#claim),
            };

            /// The SLA defaults of `/sla` in `schema/loops.json`.
            pub fn default_config() -> Config {
                Config {
                    sla_seconds: [#(#per_opener),*].into_iter().collect(),
                    default_sla_seconds: #default_secs,
                    nudge_interval_seconds: #every_secs,
                    max_nudges: #max,
                }
            }

            /// The loop event of a sentence: its structure and the loop id it
            /// names; `None` for a sentence that moves no loop.
            pub fn event(sentence: &Sentence) -> Option<LoopEvent> {
                match sentence {
                    #(#arms,)*
                    _ => None,
                }
            }

            /// The loop events of a scan, in order.
            pub fn events(found: &[Found]) -> Vec<LoopEvent> {
                found
                    .iter()
                    .filter_map(|f| match &f.item {
                        Item::Sentence { value } => event(value),
                        Item::Directive { .. } => None,
                    })
                    .collect()
            }

            /// The canonical nudge sentence: `(loop id, count, max, deadline)`.
            pub fn render_nudge(id: &str, n: u32, of: u32, deadline: &str) -> String {
                super::#nudge_type { #n_id: id.to_owned(), #n_count: n, #n_max: of, #n_deadline: deadline.to_owned(), #(#others),* }.to_string()
            }

            /// True when `id` can be written back into a sentence: the nudge
            /// rendered for it reads back as one nudge of this id (a line
            /// break, a `]` or any character outside the nudge's id pattern
            /// fails).
            pub fn writable_id(id: &str) -> bool {
                super::#nudge_type::parse(&render_nudge(id, 1, 1, "1970-01-01T00:00Z")).is_ok_and(|n| n.#n_id == id)
            }

            /// True when nudges can be counted up to `max` in a sentence: the
            /// nudge `max` of `max`, rendered for the spec's example nudge,
            /// reads back with these counts (a count past the nudge's count
            /// pattern fails).
            pub fn writable_max(max: u32) -> bool {
                let Ok(example) = super::#nudge_type::parse(#nudge_example) else {
                    return true;
                };
                super::#nudge_type::parse(&render_nudge(&example.#n_id, max, max, &example.#n_deadline))
                    .is_ok_and(|n| n.#n_count == max && n.#n_max == max)
            }

            /// `config`'s `max_nudges` as [`writable_max`] checks it, the
            /// error at `pointer`.
            fn check_max(config: &Config, pointer: &str) -> Result<(), LoopError> {
                if writable_max(config.max_nudges) {
                    return Ok(());
                }
                Err(LoopError {
                    pointer: pointer.to_owned(),
                    message: format!(
                        "{} nudges cannot be counted in a nudge sentence: `{}` does not read back",
                        config.max_nudges,
                        render_nudge("…", config.max_nudges, config.max_nudges, "…")
                    ),
                })
            }

            /// A tracker with no loops.
            ///
            /// # Errors
            /// A [`LoopError`] when `config` would overflow a deadline or a
            /// nudge time (`Config::check`), or counts more nudges than a
            /// nudge sentence can carry (at `/max_nudges`, [`writable_max`]).
            pub fn tracker(config: Config) -> Result<Tracker, LoopError> {
                check_max(&config, "/max_nudges")?;
                Tracker::new(&MACHINE, render_nudge, writable_id, config)
            }

            /// A tracker resuming from a saved [`State`], checked as a fed
            /// one (`Tracker::with_state`), its config as [`tracker`] checks
            /// one.
            ///
            /// # Errors
            /// A [`LoopError`] at the first value of `state` that does not
            /// hold.
            pub fn restore(state: State) -> Result<Tracker, LoopError> {
                check_max(&state.config, "/config/max_nudges")?;
                Tracker::restore(&MACHINE, render_nudge, writable_id, state)
            }

            /// Scans `text` and applies its sentences to their loops; how many
            /// were applied (the rest are in [`State::rejected`]).
            pub fn feed(tracker: &mut Tracker, at: Timestamp, from: &str, text: &str) -> usize {
                tracker.feed(at, from, &events(&super::scan::scan(text)))
            }

            /// Replays a JSON Lines log (one `{"at", "from", "text"}` per
            /// line) into a new tracker with `config`: the tracker, and the
            /// numbers of the lines that were not messages (each also in
            /// [`State::rejected`] with why; the other lines are still fed).
            ///
            /// # Errors
            /// A [`LoopError`] when `config` does not pass `Config::check`.
            pub fn replay(jsonl: &str, config: Config) -> Result<(Tracker, Vec<usize>), LoopError> {
                replay_bytes(jsonl.as_bytes(), config)
            }

            /// [`replay`] of raw bytes: a line that is not UTF-8 is a bad line
            /// like any other.
            ///
            /// # Errors
            /// A [`LoopError`] when `config` does not pass `Config::check`.
            pub fn replay_bytes(jsonl: &[u8], config: Config) -> Result<(Tracker, Vec<usize>), LoopError> {
                let mut t = tracker(config)?;
                let bad = agent_sentences_runtime::loops::replay_bytes(&mut t, jsonl, |t, m| {
                    feed(t, m.at, &m.from, &m.text);
                });
                Ok((t, bad))
            }
        }
    }
}
