//! Native tool calling: the op catalogue as an agent API's tool list, and a
//! native call (OpenAI `tool_calls`, Anthropic `tool_use`, MCP `tools/call`)
//! put through the checks an in-band `[TOOL op {json}]` goes through.
//!
//! - The name rule (P290): an op's native name is its name with every `.`
//!   written `_` ([`native_name`]); aliases are named by the same rule. The
//!   APIs take `[A-Za-z0-9_-]`, at most [`NATIVE_NAME_MAX`] characters; the
//!   spec lint refuses a spec where a native name breaks that or where two
//!   names of the catalogue (ops and aliases) map to one, so the rule is
//!   reversed by looking the name up ([`Catalogue::native_target`]).
//! - The lists (P291, P292): [`Catalogue::native_tools`] renders the
//!   runnable ops that allow the native engine, in catalogue order, in the
//!   shape of each [`NativeApi`].
//! - The checks (P293, P294): [`Catalogue::check_native`] maps the name
//!   back, then checks the op, engine and completeness exactly as
//!   [`Catalogue::check`] does, then reads the arguments with the scanner's
//!   strict JSON reader and limits, then checks them against the schema.
//!   [`Catalogue::render_native`] writes the call as the in-band sentence.

use serde_json::{json, Map, Value};

use super::{fail, Catalogue, ResolveError, ResolveErrorKind};
use crate::json::{parse_object_with, render_object, Limits};

/// The longest native tool name, in characters (bytes: the names are
/// ASCII). OpenAI's function names and Anthropic's tool names are limited
/// to 64; MCP's stay within it.
pub const NATIVE_NAME_MAX: usize = 64;

/// The name an op (or alias) takes in an agent API's tool list (P290): its
/// name with every `.` written `_`, e.g. `followup.create` →
/// `followup_create`. Every other character is kept; whether the result is
/// a name the APIs take is [`is_native_name`]'s question, which the spec
/// lint asks of every op and alias.
pub fn native_name(op: &str) -> String {
    op.replace('.', "_")
}

/// True when `name` is a tool name OpenAI, Anthropic and MCP all take: 1 to
/// [`NATIVE_NAME_MAX`] characters of `[A-Za-z0-9_-]`.
pub fn is_native_name(name: &str) -> bool {
    (1..=NATIVE_NAME_MAX).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// An agent API whose tool list [`Catalogue::native_tools`] renders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NativeApi {
    /// OpenAI-style `tools`: an array of `{"type": "function", "function":
    /// {"name", "description", "parameters"}}` (Chat Completions).
    OpenAi,
    /// Anthropic-style `tools`: an array of `{"name", "description",
    /// "input_schema"}` (Messages API).
    Anthropic,
    /// The Model Context Protocol's `tools/list` result: `{"tools": [{"name",
    /// "description", "inputSchema", "annotations"}]}`.
    Mcp,
}

impl NativeApi {
    /// Every API, in the order `box-docs tools --format` lists them.
    pub const ALL: [NativeApi; 3] = [NativeApi::OpenAi, NativeApi::Anthropic, NativeApi::Mcp];

    /// The API's key: `openai`, `anthropic` or `mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            NativeApi::OpenAi => "openai",
            NativeApi::Anthropic => "anthropic",
            NativeApi::Mcp => "mcp",
        }
    }
}

impl std::str::FromStr for NativeApi {
    type Err = String;

    /// `openai`, `anthropic` or `mcp`.
    fn from_str(s: &str) -> Result<Self, String> {
        NativeApi::ALL
            .into_iter()
            .find(|a| a.as_str() == s)
            .ok_or_else(|| format!("no API `{s}`: openai, anthropic or mcp"))
    }
}

impl Catalogue {
    /// The op or alias, as the catalogue spells it, whose native name is
    /// `name` (ops first, then aliases; the lint makes the answer unique).
    /// `None` for any other name, a dotted op name included: only the
    /// names the lists give are taken (P290).
    pub fn native_target(&self, name: &str) -> Option<&'static str> {
        let ops = self.ops.iter().map(|o| o.name);
        let aliases = self.aliases.iter().map(|(a, _)| *a);
        ops.chain(aliases).find(|n| native_name(n) == name)
    }

    /// Checks a native call: the tool `name` an agent API gave and its
    /// arguments as JSON text (OpenAI's `arguments` string; an Anthropic
    /// `input` or MCP `arguments` object written as JSON), coming through
    /// `engine` (the spec's `native_engine`), the strict JSON reader held to
    /// `limits`. `Ok` holds the op's index in [`Self::ops`] and the
    /// argument object.
    ///
    /// # Errors
    /// As [`Self::check`] for the in-band call with the op the name maps
    /// to, in the same order: an unmapped name is `unknown-op` (naming the
    /// name as given); arguments that are not one strict JSON object within
    /// `limits` are `invalid-args` with one fault at `""`, found after the
    /// op, engine and completeness checks (P293).
    pub fn check_native(
        &self,
        engine: &str,
        name: &str,
        arguments_json: &str,
        limits: Limits,
    ) -> Result<(usize, Map<String, Value>), ResolveError> {
        let target = self
            .native_target(name)
            .ok_or_else(|| unknown(name, engine))?;
        let (index, validator) = self.check_op(engine, target)?;
        let args = parse_object_with(arguments_json, limits).map_err(|e| {
            let op = self.ops[index].name;
            fail(
                ResolveErrorKind::InvalidArgs,
                op,
                engine,
                format!(
                    "the arguments of `{op}` are not one strict JSON object (1 fault): not run"
                ),
                vec![super::ArgError {
                    pointer: String::new(),
                    message: e.message,
                }],
            )
        })?;
        self.check_args(index, validator, engine, &args)?;
        Ok((index, args))
    }

    /// A native call written as the in-band sentence that makes the same
    /// call: `[<engine> <op or alias> <arguments, canonical JSON>]`, e.g.
    /// `[TOOL followup.create {"in_m":5}]` for `followup_create` (P295).
    /// Scanning the sentence finds the call, and resolving it gives what
    /// [`Self::check_native`] gives. Nothing is checked beyond what the
    /// sentence needs: an incomplete op or arguments its schema refuses are
    /// written as they came.
    ///
    /// # Errors
    /// `unknown-op` for a name that maps to no op or alias; `invalid-args`
    /// for arguments that are not one strict JSON object within `limits`.
    pub fn render_native(
        &self,
        engine: &str,
        name: &str,
        arguments_json: &str,
        limits: Limits,
    ) -> Result<String, ResolveError> {
        let target = self
            .native_target(name)
            .ok_or_else(|| unknown(name, engine))?;
        let args = parse_object_with(arguments_json, limits).map_err(|e| {
            fail(
                ResolveErrorKind::InvalidArgs,
                target,
                engine,
                format!("the arguments of `{target}` are not one strict JSON object (1 fault): not written"),
                vec![super::ArgError {
                    pointer: String::new(),
                    message: e.message,
                }],
            )
        })?;
        Ok(format!("[{engine} {target} {}]", render_object(&args)))
    }

    /// The catalogue as `api`'s tool list (P291, P292): every runnable op
    /// that allows `engine`, in catalogue order, under its native name, with
    /// its description and argument schema. For MCP, `readOnlyHint` is the
    /// negation of `side_effecting` and `destructiveHint` is
    /// `side_effecting` (an op that changes anything may destroy: the spec
    /// does not say which changes only add).
    pub fn native_tools(&self, engine: &str, api: NativeApi) -> Value {
        let tools: Vec<Value> = self
            .ops
            .iter()
            .enumerate()
            .filter(|(_, o)| o.complete() && o.engines.contains(&engine))
            .filter_map(|(i, o)| {
                // An op whose schema does not build is not runnable either.
                self.validator(i)?;
                let schema: Value = serde_json::from_str(o.args_schema?).ok()?;
                let (name, description) = (native_name(o.name), o.description);
                Some(match api {
                    NativeApi::OpenAi => json!({
                        "type": "function",
                        "function": { "name": name, "description": description, "parameters": schema },
                    }),
                    NativeApi::Anthropic => {
                        json!({ "name": name, "description": description, "input_schema": schema })
                    }
                    NativeApi::Mcp => json!({
                        "name": name,
                        "description": description,
                        "inputSchema": schema,
                        "annotations": {
                            "readOnlyHint": !o.side_effecting,
                            "destructiveHint": o.side_effecting,
                        },
                    }),
                })
            })
            .collect();
        match api {
            NativeApi::Mcp => json!({ "tools": tools }),
            NativeApi::OpenAi | NativeApi::Anthropic => Value::Array(tools),
        }
    }
}

/// The error of a native name that maps to no op or alias.
fn unknown(name: &str, engine: &str) -> ResolveError {
    fail(
        ResolveErrorKind::UnknownOp,
        name,
        engine,
        format!("`{name}` is not the native name of an op of the catalogue: not run"),
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_writes_each_dot_as_an_underscore_and_nothing_else() {
        assert_eq!(native_name("followup.create"), "followup_create");
        assert_eq!(native_name("a.b-c_d.e"), "a_b-c_d_e");
        assert!(is_native_name("followup_create"));
        assert!(!is_native_name("followup.create"));
        assert!(!is_native_name(""));
        assert!(is_native_name(&"a".repeat(NATIVE_NAME_MAX)));
        assert!(!is_native_name(&"a".repeat(NATIVE_NAME_MAX + 1)));
    }

    #[test]
    fn api_keys_read_back() {
        for api in NativeApi::ALL {
            assert_eq!(api.as_str().parse::<NativeApi>(), Ok(api));
        }
        assert!("gemini".parse::<NativeApi>().is_err());
    }
}
