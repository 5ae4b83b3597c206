//! Choices about the output that the spec does not make, and the runtime
//! the generated crate depends on.

/// The version of `agent-sentences-runtime` this generator was built with,
/// which the generated crate depends on.
pub const RUNTIME_VERSION: &str = agent_sentences_runtime::VERSION;

/// Where `generated/rust` reaches the runtime crate in this repository.
pub const REPO_RUNTIME_PATH: &str = "../../runtime";

/// Choices about the output that the spec does not make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// The runtime crate's directory, relative to the generated crate's
    /// (`<out>/rust`) or absolute, written into the generated `Cargo.toml`
    /// beside the runtime's version; `None` names the version only, as a
    /// crate using the runtime from a registry does. Default: this
    /// repository's layout, [`REPO_RUNTIME_PATH`].
    pub runtime_path: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            runtime_path: Some(REPO_RUNTIME_PATH.to_owned()),
        }
    }
}
