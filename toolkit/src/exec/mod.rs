//! Running one call, from the model's arguments string to its result (DESIGN §4–5).
//!
//! A tool reaches this module as `&dyn Runnable` ([`runnable`]): the only code compiled
//! per tool is what must be (parse into its struct, call it, encode its output). The
//! rest is compiled once:
//!
//! - [`parse`]: the checks before parsing, and a failed parse described for the model;
//!   [`explain`]: what was found and what the schema wants, in words; [`conform`]: a
//!   strict model's `null` and an integer written `10.0`, read as the schema means them;
//! - [`plan`]: which hooks act on the call, in which order;
//! - [`drive`]: the hooked call (before hooks, tool, after and error hooks, retries), and
//!   [`run`]: its state and what each hook's outcome means;
//! - [`slot`]: the arguments as hooks see them (typed or JSON);
//! - [`step`] and [`guard`]: one hook, and the tool, isolated from panics and overruns.
//!
//! A call no hook acts on takes the plain path: [`start`] parses and runs the tool in one
//! step, under a panic guard, with no future at all for a sync tool and one boxed future
//! otherwise.
//!
//! The states of one call, from the toolbox down (each name is a type; `→` is a move):
//!
//! ```text
//! Toolbox::call(ToolCall)
//!   begin ── exec::start ──→ Started::Done(result)        no hooks, sync tool: no future
//!                          → Started::Running(future)     no hooks, async tool
//!                          → Started::Finished(Finished)  hooks, all sync: drive::now, no future
//!                          → Started::Hooked(future)      hooks that may wait
//!         → Begun::Done(Ended) | Begun::Waiting(Settle) ── .await ──→ Ended
//!   a hooked attempt (drive): Parsed → Slot (Held) → Before → Produced → HooksSaid
//!                             → Next::Retry (again) | Next::Done(Finished)
//!   finish: Ended::Plain(result) | Ended::Recorded(Finished, clock) → ToolResult (+ CallRecord)
//! ```

mod conform;
mod drive;
mod explain;
mod guard;
mod json_path;
pub(crate) mod parse;
mod plan;
mod run;
mod runnable;
mod slot;
mod step;
pub(crate) mod unknown;

use futures_util::future::BoxFuture;

pub(crate) use drive::{Callee, start_hooked};
pub use guard::run_blocking;
pub(crate) use guard::{Guard, panicked};
pub(crate) use plan::{Matched, Plan};
pub(crate) use run::{Finished, Report};
pub(crate) use runnable::{Dynamic, Runnable, Typed};

use crate::call::{Output, ToolCallRef};
use crate::context::State;
use crate::error::ToolError;
use crate::hook::{Hook, Scope};
use crate::limits::Limits;
use crate::record::Outcome;
use crate::spec::ToolSpec;

/// What a call needs from its toolbox besides the tool itself.
#[derive(Clone, Copy)]
pub(crate) struct Env<'a> {
    pub(crate) limits: &'a Limits,
    pub(crate) state: &'a State,
    /// The run the call belongs to (its scope's), for its idempotency key.
    pub(crate) run: Option<&'a str>,
    /// Where its progress reports go (its scope's).
    pub(crate) progress: Option<&'a crate::progress::ProgressTo>,
    /// The hooks this call may meet (`None`: there are none anywhere).
    pub(crate) hooks: Option<HookEnv<'a>>,
}

/// The hooks a call may meet, before its tool is known: the three scopes' lists (global,
/// toolbox, agent), the scope's labels, whether a record will be built.
#[derive(Clone, Copy)]
pub(crate) struct HookEnv<'a> {
    pub(crate) lists: [&'a [Hook]; 3],
    pub(crate) scope: &'a Scope,
    pub(crate) wants_record: bool,
}

impl<'a> HookEnv<'a> {
    /// The hooks of these lists, or `None` when no list has one (the call's plan is then
    /// not looked for).
    #[inline]
    pub(crate) fn of(lists: [&'a [Hook]; 3], scope: &'a Scope, wants_record: bool) -> Option<Self> {
        lists.iter().any(|l| !l.is_empty()).then_some(HookEnv { lists, scope, wants_record })
    }
}

/// How a call started.
pub(crate) enum Started<'a> {
    /// The outcome is known (a sync tool ran, or the arguments were refused): the
    /// output, or the error.
    Done(Result<Output, ToolError>),
    /// The tool is running (to be awaited under its [`Guard`]).
    Running(BoxFuture<'a, Result<Output, ToolError>>, &'a ToolSpec),
    /// The call runs through its hooks.
    Hooked(BoxFuture<'a, Finished>),
    /// The call ran through its hooks already (a sync tool, sync hooks: no future).
    Finished(Finished),
}

/// Starts a call of `tool`: through its hooks when a plan says some act on it, else the
/// plain way.
#[inline]
pub(crate) fn start<'a>(
    tool: &'a dyn Runnable,
    plan: Option<(Plan<'a>, HookEnv<'a>)>,
    call: ToolCallRef<'a>,
    env: Env<'a>,
) -> Started<'a> {
    if let Some((plan, hooks)) = plan {
        return start_hooked(Callee::Tool(tool), plan, hooks, call, env);
    }
    // Parsing, validation, building the spec and a sync tool all run here: a panic in
    // any of them is the call's error, never the caller's.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tool.start(call, env.state, (env.run, env.progress), env.limits)
    })) {
        Ok(started) => started,
        Err(payload) => Started::Done(Err(panicked(call.name, payload.as_ref()))),
    }
}

/// Starts a call naming no tool: error hooks still see it.
pub(crate) fn start_unknown<'a>(error: ToolError, call: ToolCallRef<'a>, env: Env<'a>) -> Started<'a> {
    match env.hooks.and_then(|h| Some((Plan::new(h.lists, call.name)?, h))) {
        Some((plan, hooks)) => start_hooked(Callee::Unknown(error), plan, hooks, call, env),
        None => Started::Done(Err(error)),
    }
}

impl Finished {
    /// A call that ran with no hooks.
    pub(crate) fn plain(result: Result<Output, ToolError>) -> Self {
        let outcome = match &result {
            Ok(_) => Outcome::Ok,
            Err(e) => Outcome::Failed(e.kind),
        };
        Finished { result, outcome, report: None }
    }
}
