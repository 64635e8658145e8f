//! Hooks: code that runs around every tool call and governs it.
//!
//! A [`Hook`] has a name, a priority, a failure policy, an optional timeout, a filter
//! (every tool, a list of tools, or a name pattern), and acts on one or more events:
//!
//! - **before** the tool runs ([`BeforeHook`], context [`BeforeCall`]): rewrite the
//!   arguments, [`Decision::Block`] the call with a reason the model hears, or
//!   [`Decision::Return`] an output without running the tool (outcome `cached`);
//! - **after** it produced an output ([`AfterHook`], context [`AfterCall`]): rewrite the
//!   model-visible text, read the raw typed output;
//! - on an **error** ([`ErrorHook`], context [`ErrorCall`]): replace the message
//!   ([`Recovery::Message`]), ask for a [`Recovery::Retry`], or pass it on.
//!
//! Write hooks with `#[hook(before | after | error)]` on a function, or build them at
//! run time with [`Hook::before`], [`Hook::after`] and [`Hook::error`]. Hooks live in
//! three scopes: the process-wide registry of this module ([`register`], [`unregister`],
//! [`list`], [`clear`]), a toolbox ([`Toolbox::with_hook`](crate::Toolbox::with_hook)),
//! and a [`Scope`] passed per call (an agent's hooks).
//!
//! # Order
//!
//! Hooks run by priority, highest first (default `0`); among equal priorities, global
//! hooks before toolbox hooks before scope (agent) hooks; within one registry, in
//! registration order.
//!
//! # Failure policy
//!
//! A hook that returns an error, panics or exceeds its timeout has *failed*, and its
//! [`OnFailure`] policy applies: [`OnFailure::Block`] (fail closed; the default for
//! before hooks, which guard) blocks the call with a model-visible reason such as
//! ``blocked: policy check `sandbox` failed``; [`OnFailure::Continue`] (fail open; the
//! default for after and error hooks) logs the failure and leaves the call as it was
//! before the hook ran. Nothing a hook does can crash the program or lose the call's
//! result.
//!
//! ```
//! use toolkit::prelude::*;
//! use toolkit::hook::{Decision, Hook};
//!
//! /// Delete a file.
//! #[tool(destructive)]
//! fn delete(path: String) -> String { format!("deleted {path}") }
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let tools = toolbox![delete].with_hook(Hook::before("no_system_files", |call: &mut BeforeCall<'_>| {
//!     match call.arguments()["path"].as_str() {
//!         Some(p) if p.starts_with("/etc") => Decision::Block(format!("`{p}` is a system file")),
//!         _ => Decision::Continue,
//!     }
//! }));
//! let r = tools.call(ToolCall::new("1", "delete", r#"{"path": "/etc/hosts"}"#)).await;
//! assert_eq!(r.content, "blocked: `/etc/hosts` is a system file");
//! # }
//! ```

mod context;
mod decision;
mod def;
mod registry;
mod scope;
mod traits;

pub use crate::record::Event;
pub use context::{AfterCall, BeforeCall, CallInfo, ErrorCall, Extensions};
pub(crate) use context::{ArgsSlot, CallEnds, Rewrite};
pub(crate) use decision::Decided;
pub use decision::{Approval, Decision, HookError, HookStep, IntoHookResult, OnFailure, Recovery};
pub use def::{Filter, Hook};
pub(crate) use registry::global_snapshot;
pub use registry::{DuplicateHook, Hooks, clear, list, register, unregister};
pub(crate) use scope::NO_SCOPE;
pub use scope::Scope;
pub use traits::{AfterHook, BeforeHook, ErrorHook};
