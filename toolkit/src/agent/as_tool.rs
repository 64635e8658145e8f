//! An agent used as a tool of another agent (or of any toolbox, an MCP server's say).

use std::future::IntoFuture;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value, json};

use super::Agent;
use crate::call::Output;
use crate::context::CallContext;
use crate::error::{ErrorKind, ToolError};
use crate::spec::ToolSpec;
use crate::tool::DynTool;

tokio::task_local! {
    /// How many agent tools enclose the code running now.
    static DEPTH: usize;
}

/// How deep agents may call agents by default.
const DEFAULT_MAX_DEPTH: usize = 3;

/// An [`Agent`] as a tool: it takes `{"input": "..."}`, runs the agent on it and
/// returns the agent's answer. Add it to a toolbox with
/// [`Toolbox::add_dynamic`](crate::Toolbox::add_dynamic).
///
/// The inner agent keeps its own model, toolbox, hooks, limits and name: its calls run
/// under its hooks and reach its sinks and events, and each of their records carries
/// the outer call's id as [`CallRecord::parent`](crate::CallRecord::parent). Agents
/// calling agents are bounded: a call made at more than
/// [`max_depth`](Self::max_depth) agents deep (default 3) fails with a message the
/// outer model reads, and the inner agent never runs. An inner run that fails (its model
/// unreachable, out of iterations) is the outer call's error, with the reason.
///
/// ```
/// use toolkit::agent::{Agent, AgentTool};
/// use toolkit::model::{ScriptedModel, Turn};
/// use toolkit::prelude::*;
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let math = Agent::builder(
///     ScriptedModel::new([Turn::call("add", r#"{"a": 2, "b": 3}"#), Turn::text("5")]),
///     toolbox![add],
/// )
/// .name("math")
/// .build()?;
/// let mut tools = Toolbox::new();
/// tools.add_dynamic(AgentTool::new(math, "ask_math", "Answers arithmetic questions."))?;
/// let boss = Agent::builder(
///     ScriptedModel::new([Turn::call("ask_math", r#"{"input": "2 + 3?"}"#), Turn::text("It is 5.")]),
///     tools,
/// )
/// .build()?;
/// let run = boss.run("What is 2 + 3?").await?;
/// assert_eq!(run.text, "It is 5.");
/// assert_eq!(run.records[0].content, "5");
/// # Ok(()) }
/// ```
pub struct AgentTool {
    agent: Arc<Agent>,
    spec: ToolSpec,
    max_depth: usize,
}

impl AgentTool {
    /// `agent` as a tool called `name`, described to the outer model by `description`.
    pub fn new(agent: Agent, name: impl Into<String>, description: impl Into<String>) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {"input": {"type": "string", "description": "What to ask the agent, in full: it sees nothing else."}},
            "required": ["input"],
            "additionalProperties": false
        });
        AgentTool {
            agent: Arc::new(agent),
            spec: ToolSpec::new(name, description, schema),
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// How many agents deep a call may be, this one included (default 3; 1: this agent
    /// may not be reached through another agent tool).
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth.max(1);
        self
    }

    /// The spec, to set a timeout or annotations before adding the tool.
    pub fn spec_mut(&mut self) -> &mut ToolSpec {
        &mut self.spec
    }
}

impl DynTool for AgentTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call<'a>(&'a self, args: Map<String, Value>, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        Box::pin(async move {
            let Some(input) = args.get("input").and_then(Value::as_str) else {
                return Err(ToolError::new(
                    ErrorKind::MissingField,
                    "missing required field `input` (a string: what to ask the agent)",
                ));
            };
            let depth = DEPTH.try_with(|d| *d).unwrap_or(0) + 1;
            if depth > self.max_depth {
                return Err(ToolError::new(
                    ErrorKind::ConstraintViolation,
                    format!(
                        "`{}` cannot be called here: agents are already {} deep (the limit is {}); answer without it",
                        self.spec.name,
                        depth - 1,
                        self.max_depth
                    ),
                ));
            }
            let run = self.agent.run(input).parent(cx.call_id());
            match DEPTH.scope(depth, run.into_future()).await {
                Ok(run) => Ok(Output::text(run.text)),
                Err(e) => {
                    Err(ToolError::new(ErrorKind::ToolFailed, format!("the agent `{}` failed: {e}", self.spec.name))
                        .with_detail(format!("{e:?}")))
                }
            }
        })
    }
}
