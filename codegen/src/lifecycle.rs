//! The loop lifecycle: the spec's `lifecycle_transition` strings read as a
//! state graph, for the Mermaid diagram of the docs.
//!
//! The owner writes each structure's transition as free text. This module
//! reads the shapes the spec uses and nothing more (decision P30,
//! `docs/decisions/generated-docs.md`):
//!
//! - `a -> b -> c`: a path; each arrow is an edge (`a → b`, `b → c`);
//! - `a/b -> c`: a step of alternatives; the arrow goes from each of them;
//! - `c (closed)`: a state the loop ends in; so is a state named `closed`;
//! - state names are single words of lower-case letters, digits, `-` and `_`.
//!
//! Any other text (`nudged`, `directive`, `in-flight execution`, or a path
//! with an unknown qualifier or an empty step) is a *label*: it names no
//! transition, and the diagram draws it as a standalone state with no edge.
//! No edge is ever invented: the seed's hand-drawn diagram had
//! `Running --> Nudged`, which the spec does not say.

use serde::Serialize;

/// The qualifier that marks a state the loop ends in: `resolved (closed)`.
pub const CLOSED: &str = "closed";

/// One state named in a step of a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StateRef {
    /// The state's name as written, e.g. `no-action`.
    pub name: String,
    /// True when written with the `(closed)` qualifier.
    pub closed: bool,
}

/// A parsed `lifecycle_transition`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Transition {
    /// `a/b -> c -> d (closed)`: two or more steps, each one or more
    /// alternative states; an edge runs from every state of a step to every
    /// state of the next.
    Path {
        /// The steps, in order.
        steps: Vec<Vec<StateRef>>,
    },
    /// Text that is not a path: a state or kind of message with no edge.
    Label {
        /// The text, trimmed.
        text: String,
    },
}

impl Transition {
    /// The edges of a path as `(from, to)` state names, in order; none for a
    /// label.
    pub fn edges(&self) -> Vec<(String, String)> {
        let Transition::Path { steps } = self else {
            return Vec::new();
        };
        steps
            .windows(2)
            .flat_map(|pair| {
                pair[0].iter().flat_map(move |a| {
                    pair[1]
                        .iter()
                        .map(move |b| (a.name.clone(), b.name.clone()))
                })
            })
            .collect()
    }
}

fn state_name_ok(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn parse_state(text: &str) -> Option<StateRef> {
    let text = text.trim();
    let (name, closed) = match text.strip_suffix(')') {
        Some(rest) => {
            let (name, qualifier) = rest.split_once('(')?;
            if qualifier.trim() != CLOSED {
                return None;
            }
            (name.trim(), true)
        }
        None => (text, false),
    };
    state_name_ok(name).then(|| StateRef {
        name: name.to_owned(),
        closed,
    })
}

/// Reads one `lifecycle_transition` string. Never fails: text that is not a
/// path is a [`Transition::Label`].
pub fn parse(text: &str) -> Transition {
    let label = || Transition::Label {
        text: text.trim().to_owned(),
    };
    let parts: Vec<&str> = text.split("->").collect();
    if parts.len() < 2 {
        return label();
    }
    let mut steps = Vec::new();
    for part in parts {
        let step: Option<Vec<StateRef>> = part.split('/').map(parse_state).collect();
        match step {
            Some(step) => steps.push(step),
            None => return label(),
        }
    }
    Transition::Path { steps }
}

/// A state of the diagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct State {
    /// Mermaid identifier: the name with every character outside
    /// `[A-Za-z0-9_]` replaced by `_`, made unique.
    pub id: String,
    /// The name as the spec writes it.
    pub name: String,
    /// The loop ends here: the state is `closed` or written `(closed)`.
    pub terminal: bool,
    /// No edge leads into the state: the loop can start here.
    pub entry: bool,
}

/// An edge of the diagram.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Edge {
    /// Identifier of the source state.
    pub from: String,
    /// Identifier of the target state.
    pub to: String,
    /// Keys of the structures whose transition has this edge, in spec order.
    pub structures: Vec<String>,
}

/// A transition text that is not a path, with the structures that use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Label {
    /// Mermaid identifier, unique among states and labels.
    pub id: String,
    /// The text as written.
    pub text: String,
    /// Keys of the structures whose transition it is, in spec order.
    pub structures: Vec<String>,
}

/// The lifecycle graph of all structures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Lifecycle {
    /// Mermaid identifier of the group that holds the labels
    /// ([`Lifecycle::GROUP_ID`]); no state or label takes it.
    pub group_id: &'static str,
    /// States in order of first appearance.
    pub states: Vec<State>,
    /// Edges in order of first appearance, each once.
    pub edges: Vec<Edge>,
    /// Labels in order of first appearance, each once.
    pub labels: Vec<Label>,
}

fn mermaid_id(text: &str, taken: &[String]) -> String {
    let base: String = text
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let base = if base.starts_with(|c: char| c.is_ascii_alphabetic()) {
        base
    } else {
        format!("s_{base}")
    };
    let mut id = base.clone();
    let mut n = 2;
    while taken.contains(&id) {
        id = format!("{base}_{n}");
        n += 1;
    }
    id
}

impl Lifecycle {
    /// Mermaid identifier of the composite state that holds the labels.
    pub const GROUP_ID: &'static str = "not_a_transition";

    /// Builds the graph from `(structure key, lifecycle_transition)` pairs in
    /// spec order.
    pub fn build<'a>(transitions: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut g = Lifecycle {
            group_id: Self::GROUP_ID,
            states: Vec::new(),
            edges: Vec::new(),
            labels: Vec::new(),
        };
        let mut taken: Vec<String> = vec![Self::GROUP_ID.to_owned()];
        for (key, text) in transitions {
            match parse(text) {
                Transition::Path { steps } => {
                    let mut ids: Vec<Vec<String>> = Vec::new();
                    for step in &steps {
                        let mut step_ids = Vec::new();
                        for s in step {
                            let id = match g.states.iter_mut().find(|x| x.name == s.name) {
                                Some(x) => {
                                    x.terminal |= s.closed;
                                    x.id.clone()
                                }
                                None => {
                                    let id = mermaid_id(&s.name, &taken);
                                    taken.push(id.clone());
                                    let terminal = s.closed || s.name == CLOSED;
                                    g.states.push(State {
                                        id: id.clone(),
                                        name: s.name.clone(),
                                        terminal,
                                        entry: false,
                                    });
                                    id
                                }
                            };
                            step_ids.push(id);
                        }
                        ids.push(step_ids);
                    }
                    for pair in ids.windows(2) {
                        for from in &pair[0] {
                            for to in &pair[1] {
                                match g.edges.iter_mut().find(|e| &e.from == from && &e.to == to) {
                                    Some(e) if e.structures.iter().any(|k| k == key) => {}
                                    Some(e) => e.structures.push(key.to_owned()),
                                    None => g.edges.push(Edge {
                                        from: from.clone(),
                                        to: to.clone(),
                                        structures: vec![key.to_owned()],
                                    }),
                                }
                            }
                        }
                    }
                }
                Transition::Label { text } => match g.labels.iter_mut().find(|l| l.text == text) {
                    Some(l) => l.structures.push(key.to_owned()),
                    None => {
                        let id = mermaid_id(&text, &taken);
                        taken.push(id.clone());
                        g.labels.push(Label {
                            id,
                            text,
                            structures: vec![key.to_owned()],
                        });
                    }
                },
            }
        }
        let targets: Vec<String> = g.edges.iter().map(|e| e.to.clone()).collect();
        for s in &mut g.states {
            s.entry = !targets.contains(&s.id);
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(name: &str, closed: bool) -> StateRef {
        StateRef {
            name: name.to_owned(),
            closed,
        }
    }

    #[test]
    fn a_chain_is_a_path_of_single_states() {
        assert_eq!(
            parse("open -> acknowledged -> running -> closed"),
            Transition::Path {
                steps: vec![
                    vec![st("open", false)],
                    vec![st("acknowledged", false)],
                    vec![st("running", false)],
                    vec![st("closed", false)]
                ]
            }
        );
    }

    #[test]
    fn alternatives_and_the_closed_qualifier() {
        assert_eq!(
            parse("running/claimed -> resolved (closed)"),
            Transition::Path {
                steps: vec![
                    vec![st("running", false), st("claimed", false)],
                    vec![st("resolved", true)]
                ]
            }
        );
        assert_eq!(
            parse("open/claimed -> no-action (closed)"),
            Transition::Path {
                steps: vec![
                    vec![st("open", false), st("claimed", false)],
                    vec![st("no-action", true)]
                ]
            }
        );
    }

    #[test]
    fn edges_of_a_path_run_from_every_alternative() {
        let pairs = |t: &str| -> Vec<String> {
            parse(t)
                .edges()
                .into_iter()
                .map(|(a, b)| format!("{a}>{b}"))
                .collect()
        };
        assert_eq!(
            pairs("open -> acknowledged -> running"),
            vec!["open>acknowledged", "acknowledged>running"]
        );
        assert_eq!(
            pairs("open/claimed -> declined (closed)"),
            vec!["open>declined", "claimed>declined"]
        );
        assert!(pairs("telemetry").is_empty());
    }

    #[test]
    fn text_that_is_not_a_path_is_a_label() {
        for text in [
            "nudged",
            "directive",
            "in-flight execution",
            "telemetry",
            "subagent-relay",
        ] {
            assert_eq!(
                parse(text),
                Transition::Label {
                    text: text.to_owned()
                },
                "{text}"
            );
        }
        // Fail closed: a path we cannot read in full draws no edge at all.
        for text in [
            "open -> ",
            "open -> done (maybe)",
            "open -> Running",
            "a -> b c",
            "-> open",
            "a//b -> c",
        ] {
            assert_eq!(
                parse(text),
                Transition::Label {
                    text: text.trim().to_owned()
                },
                "{text}"
            );
        }
    }

    #[test]
    fn the_graph_merges_states_and_edges_across_structures() {
        let g = Lifecycle::build([
            ("work_order", "open -> acknowledged -> running -> closed"),
            ("ack", "open -> acknowledged"),
            ("result", "running/claimed -> resolved (closed)"),
            ("no_action", "open/claimed -> no-action (closed)"),
            ("nudge", "nudged"),
            ("tool_call", "in-flight execution"),
        ]);
        let names: Vec<(&str, &str, bool, bool)> = g
            .states
            .iter()
            .map(|s| (s.id.as_str(), s.name.as_str(), s.entry, s.terminal))
            .collect();
        assert_eq!(
            names,
            vec![
                ("open", "open", true, false),
                ("acknowledged", "acknowledged", false, false),
                ("running", "running", false, false),
                ("closed", "closed", false, true),
                ("claimed", "claimed", true, false),
                ("resolved", "resolved", false, true),
                ("no_action", "no-action", false, true),
            ]
        );
        let edges: Vec<(&str, &str, String)> = g
            .edges
            .iter()
            .map(|e| (e.from.as_str(), e.to.as_str(), e.structures.join(",")))
            .collect();
        assert_eq!(
            edges,
            vec![
                ("open", "acknowledged", "work_order,ack".to_owned()),
                ("acknowledged", "running", "work_order".to_owned()),
                ("running", "closed", "work_order".to_owned()),
                ("running", "resolved", "result".to_owned()),
                ("claimed", "resolved", "result".to_owned()),
                ("open", "no_action", "no_action".to_owned()),
                ("claimed", "no_action", "no_action".to_owned()),
            ]
        );
        let labels: Vec<(&str, &str)> = g
            .labels
            .iter()
            .map(|l| (l.id.as_str(), l.text.as_str()))
            .collect();
        assert_eq!(
            labels,
            vec![
                ("nudged", "nudged"),
                ("in_flight_execution", "in-flight execution")
            ]
        );
    }

    #[test]
    fn ids_are_unique_and_start_with_a_letter() {
        let g = Lifecycle::build([
            ("a", "no-action -> no_action"),
            ("b", "1st -> no_action"),
            ("c", "no action"),
            ("d", "not a transition"),
        ]);
        let ids: Vec<&str> = g
            .states
            .iter()
            .map(|s| s.id.as_str())
            .chain(g.labels.iter().map(|l| l.id.as_str()))
            .collect();
        assert_eq!(
            ids,
            vec![
                "no_action",
                "no_action_2",
                "s_1st",
                "no_action_3",
                "not_a_transition_2"
            ]
        );
    }

    #[test]
    fn a_label_used_twice_lists_both_structures() {
        let g = Lifecycle::build([("x", "telemetry"), ("y", " telemetry ")]);
        assert_eq!(g.labels.len(), 1);
        assert_eq!(g.labels[0].structures, vec!["x", "y"]);
    }
}
