//! The hooked call (DESIGN §5): before hooks, the tool, after hooks, error hooks,
//! retries, and what the record learns from them.
//!
//! Two drivers, compiled once, reaching the tool through `&dyn Runnable`: [`drive_now`]
//! for a call whose tool and hooks all finish without waiting (no future at all), and
//! [`drive`] for the others (in the call's one boxed future). They differ only in
//! awaiting; every decision is a method of [`Run`](super::run::Run) that both call.

use super::guard::guarded;
use super::plan::Plan;
use super::run::{Attempt, Before, Finished, Hooked, HooksSaid, Next, Produced, Run};
use super::runnable::{Runnable, not_ready};
use super::{Env, HookEnv, Started};
use crate::call::ToolCallRef;
use crate::error::ToolError;
use crate::hook::ArgsSlot;
use crate::spec::ToolSpec;

/// What a hooked call is about: a tool, or a name no tool has (its only step is the
/// error, which error hooks still see).
pub(crate) enum Callee<'a> {
    Tool(&'a dyn Runnable),
    Unknown(ToolError),
}

/// Starts a call that hooks act on (`plan`): polled once on the stack when the tool and
/// every hook finish without waiting, else in one boxed future.
pub(crate) fn start_hooked<'a>(
    callee: Callee<'a>,
    plan: Plan<'a>,
    hooks: HookEnv<'a>,
    call: ToolCallRef<'a>,
    env: Env<'a>,
) -> Started<'a> {
    let runs_now = match &callee {
        Callee::Tool(tool) => tool.runs_now(),
        Callee::Unknown(_) => true,
    };
    let hooked = Hooked { plan, scope: hooks.scope, wants_record: hooks.wants_record };
    if runs_now && hooked.plan.is_sync() {
        return Started::Finished(drive_now(callee, call, env, &hooked));
    }
    Started::Hooked(Box::pin(async move { drive(callee, call, env, &hooked).await }))
}

/// The tool and its spec, or why there is none (building a spec may panic).
fn resolve<'a>(callee: Callee<'a>, name: &str) -> (Option<(&'a dyn Runnable, &'a ToolSpec)>, Option<ToolError>) {
    match callee {
        Callee::Tool(tool) => match guarded(name, || Ok(tool.spec())) {
            Ok(spec) => (Some((tool, spec)), None),
            Err(e) => (None, Some(e)),
        },
        Callee::Unknown(e) => (None, Some(e)),
    }
}

/// Runs one hooked call whose tool and hooks all finish without waiting.
fn drive_now(callee: Callee<'_>, call: ToolCallRef<'_>, env: Env<'_>, hooked: &Hooked<'_>) -> Finished {
    let (tool, refused) = resolve(callee, call.name);
    let mut run = Run::new(tool.map(|(_, spec)| spec), call, env, hooked);
    loop {
        let mut attempt = Attempt::default();
        // The slot is written once, where it stays (it is not small).
        let mut slot = None;
        let produced = match run.parse(tool, refused.as_ref()) {
            Err(e) => Produced::Failed(e),
            Ok(parsed) => {
                let slot = slot.insert(run.slot(parsed));
                match run.before_now(slot, &mut attempt) {
                    Before::Block(reason, detail) => Produced::Blocked(reason, detail),
                    Before::Return(output) => Produced::Output(output, true),
                    Before::Defer(reason, shown) => Produced::Deferred(reason, shown),
                    Before::Replay(output) => Produced::Replayed(output),
                    Before::Fail(error) => Produced::Failed(error),
                    Before::Continue => match (run.ready_to_run(slot, &mut attempt), tool) {
                        (Ok(clock), Some((tool, spec))) => {
                            let ran = run.tool_now(tool, spec, slot);
                            attempt.ran(clock, ran)
                        }
                        (Err(e), _) => Produced::Failed(e),
                        (Ok(_), None) => Produced::Failed(not_ready()),
                    },
                }
            }
        };
        let args = slot.as_mut().map(|s| s as &mut dyn ArgsSlot);
        let said = match &produced {
            Produced::Output(output, cached) if run.plan.after => run.after_now(output, args, *cached),
            Produced::Failed(error) if run.plan.error => run.on_error_now(error, args),
            _ => HooksSaid::nothing(&produced),
        };
        if let Next::Done(finished) = run.conclude(produced, said, attempt) {
            return finished;
        }
    }
}

/// Runs one hooked call that may wait: the same steps as [`drive_now`], awaited.
async fn drive(callee: Callee<'_>, call: ToolCallRef<'_>, env: Env<'_>, hooked: &Hooked<'_>) -> Finished {
    let (tool, refused) = resolve(callee, call.name);
    let mut run = Run::new(tool.map(|(_, spec)| spec), call, env, hooked);
    loop {
        let mut attempt = Attempt::default();
        // The slot is written once, where it stays (it is not small).
        let mut slot = None;
        let produced = match run.parse(tool, refused.as_ref()) {
            Err(e) => Produced::Failed(e),
            Ok(parsed) => {
                let slot = slot.insert(run.slot(parsed));
                match run.before(slot, &mut attempt).await {
                    Before::Block(reason, detail) => Produced::Blocked(reason, detail),
                    Before::Return(output) => Produced::Output(output, true),
                    Before::Defer(reason, shown) => Produced::Deferred(reason, shown),
                    Before::Replay(output) => Produced::Replayed(output),
                    Before::Fail(error) => Produced::Failed(error),
                    Before::Continue => match (run.ready_to_run(slot, &mut attempt), tool) {
                        (Ok(clock), Some((tool, spec))) => {
                            let ran = run.tool(tool, spec, slot).await;
                            attempt.ran(clock, ran)
                        }
                        (Err(e), _) => Produced::Failed(e),
                        (Ok(_), None) => Produced::Failed(not_ready()),
                    },
                }
            }
        };
        let args = slot.as_mut().map(|s| s as &mut dyn ArgsSlot);
        let said = match &produced {
            Produced::Output(output, cached) if run.plan.after => run.after(output, args, *cached).await,
            Produced::Failed(error) if run.plan.error => run.on_error(error, args).await,
            _ => HooksSaid::nothing(&produced),
        };
        if let Next::Done(finished) = run.conclude(produced, said, attempt) {
            return finished;
        }
    }
}
