//! The hooked call (DESIGN §5): before hooks, the tool, after hooks, error hooks,
//! retries, and what the record learns from them.
//!
//! Each step is written once, in `pipeline!`, and compiled twice, reaching the tool
//! through `&dyn Runnable`: [`now`] for a call whose tool and hooks all finish without
//! waiting (plain function calls: no future, no box, no runtime), and [`wait`] for the
//! others (async fns, in the call's one boxed future). The two differ only where a step
//! may wait: there `wait` awaits and `now` has nothing to await (a hook step that has to
//! wait anyway is that hook's failure). Every decision is a method of
//! [`Run`] that both call.
//!
//! Why not one `async fn`, polled once on the stack when nothing waits: measured, that
//! costs about 400 instructions a call with four no-op hooks (3,561 → 3,967 in
//! `benches/instructions.sh`, +11%): the state machine is built, moved and matched at
//! every step. The macro costs nothing at run time.

use super::guard::guarded;
use super::plan::Plan;
use super::run::{Attempt, Before, Finished, Handled, Hooked, HooksSaid, Next, Produced, Run, reborrow};
use super::runnable::{Runnable, not_ready};
use super::slot::Slot;
use super::step::{catch_step, settle_step, start_step};
use super::{Env, HookEnv, Started};
use crate::call::{Output, ToolCallRef};
use crate::error::ToolError;
use crate::hook::{
    AfterCall, ArgsSlot, BeforeCall, Decision, ErrorCall, Hook, HookError, HookStep, OnFailure, Rewrite,
};
use crate::record::Event;
use crate::spec::ToolSpec;

/// What a hooked call is about: a tool, or a name no tool has (its only step is the
/// error, which error hooks still see).
pub(crate) enum Callee<'a> {
    Tool(&'a dyn Runnable),
    Unknown(ToolError),
}

/// Starts a call that hooks act on (`plan`): run to its end at once when the tool and
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
        return Started::Finished(now::drive(callee, call, env, &hooked));
    }
    Started::Hooked(Box::pin(async move { wait::drive(callee, call, env, &hooked).await }))
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

/// The steps of a hooked call. `($($async)?)` makes them `async fn`s or not;
/// `$($await)*` follows every step that may wait (`.await`, or nothing); `$tool` is the
/// [`Run`] method that runs the tool (`tool`, which awaits one that waits, or `tool_now`).
/// A hook step that has to wait goes to `waited`, which the module provides.
macro_rules! pipeline {
    (($($async:tt)?) ($($await:tt)*) $tool:ident) => {
        /// Runs one hooked call: parse, before hooks, the tool, after or error hooks, and
        /// again while a hook asks for a retry.
        pub(super) $($async)? fn drive(
            callee: Callee<'_>,
            call: ToolCallRef<'_>,
            env: Env<'_>,
            hooked: &Hooked<'_>,
        ) -> Finished {
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
                        match before(&mut run, slot, &mut attempt) $($await)* {
                            Before::Block(reason, detail) => Produced::Blocked(reason, detail),
                            Before::Return(output) => Produced::Output(output, true),
                            Before::Defer(reason, shown) => Produced::Deferred(reason, shown),
                            Before::Replay(output) => Produced::Replayed(output),
                            Before::Fail(error) => Produced::Failed(error),
                            Before::Continue => match (run.ready_to_run(slot, &mut attempt), tool) {
                                (Ok(clock), Some((tool, spec))) => {
                                    let ran = run.$tool(tool, spec, slot) $($await)*;
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
                    Produced::Output(output, cached) if run.plan.after => {
                        after(&mut run, output, args, *cached) $($await)*
                    }
                    Produced::Failed(error) if run.plan.error => on_error(&mut run, error, args) $($await)*,
                    _ => HooksSaid::nothing(&produced),
                };
                if let Next::Done(finished) = run.conclude(produced, said, attempt) {
                    return finished;
                }
            }
        }

        /// The before hooks, in order, until one blocks or returns an output.
        $($async)? fn before(run: &mut Run<'_>, slot: &mut Slot<'_>, attempt: &mut Attempt) -> Before {
            if !run.plan.before {
                return Before::Continue;
            }
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.before else { continue };
                let fails_open = hook.failure_policy(Event::Before) == OnFailure::Continue;
                if fails_open {
                    slot.arm_undo();
                }
                let mut call = BeforeCall { info: &run.info, args: &mut *slot, ext: &mut run.ext, touched: false };
                let step = catch_step(|| hook_fn.before(&mut call));
                if let Ok(HookStep::Ready(Ok(Decision::Continue))) = step {
                    // The usual answer, read where the hook wrote it and handled here
                    // (settling the step first moved it twice: four typed hooks measured
                    // 3,478 instructions a call that way, 3,392 this way). It owns
                    // nothing, so it needs no drop: without the `forget`, the drop glue of
                    // the step (an out-of-line call LLVM does not inline) still runs on it,
                    // about 25 instructions a hook (`benches/instructions.sh`, four typed
                    // hooks: 3,529 with, 3,633 without; 3,610 with the answer moved out
                    // through a helper returning the others).
                    std::mem::forget(step);
                    let touched = call.touched && !Run::undone(slot, fails_open, &Ok(Decision::Continue));
                    run.continued(hook, touched, attempt);
                    continue;
                }
                let outcome = match settle_step(hook, step) {
                    Ok(outcome) => outcome,
                    Err(waiting) => waited(hook, waiting) $($await)*,
                };
                let touched = call.touched && !Run::undone(slot, fails_open, &outcome);
                if let Some(stop) = run.before_said(hook, outcome, touched, slot, attempt) {
                    return stop;
                }
            }
            Before::Continue
        }

        /// The after hooks, in order, on an output.
        $($async)? fn after(
            run: &mut Run<'_>,
            output: &Output,
            mut args: Option<&mut dyn ArgsSlot>,
            cached: bool,
        ) -> HooksSaid {
            let mut rewrite = Rewrite::default();
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.after else { continue };
                let saved = rewrite.clone();
                let mut out = AfterCall {
                    info: &run.info,
                    output,
                    rewrite: &mut rewrite,
                    args: reborrow(&mut args),
                    ext: &mut run.ext,
                    cached,
                    touched: false,
                };
                let outcome = match start_step(hook, || hook_fn.after(&mut out)) {
                    Ok(outcome) => outcome,
                    Err(waiting) => waited(hook, waiting) $($await)*,
                };
                let touched = out.touched;
                if let Some(block) = run.after_said(hook, outcome, touched, &mut rewrite, saved) {
                    return HooksSaid::After(Err(block));
                }
            }
            HooksSaid::After(Ok(rewrite))
        }

        /// The error hooks, in order, on a failure, until one handles it.
        $($async)? fn on_error(run: &mut Run<'_>, error: &ToolError, mut args: Option<&mut dyn ArgsSlot>) -> HooksSaid {
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.error else { continue };
                let mut err = ErrorCall { info: &run.info, error, args: reborrow(&mut args), ext: &mut run.ext };
                let outcome = match start_step(hook, || hook_fn.error(&mut err)) {
                    Ok(outcome) => outcome,
                    Err(waiting) => waited(hook, waiting) $($await)*,
                };
                if let Some(handled) = run.error_said(hook, outcome) {
                    return HooksSaid::Error(handled);
                }
            }
            HooksSaid::Error(Handled::Propagate)
        }
    };
}

/// The steps for a call whose tool and hooks all finish without waiting.
mod now {
    use futures_util::future::BoxFuture;

    use super::*;

    /// A hook step that has to wait, in a call that cannot (its hooks all say they are
    /// sync: one that returns a future anyway was refused by [`start_step`]).
    #[cold]
    fn waited<T>(_: &Hook, _: BoxFuture<'_, Result<T, HookError>>) -> Result<T, HookError> {
        Err(HookError::new("it had to wait in a call that cannot"))
    }

    pipeline!(() () tool_now);
}

/// The steps for a call that may wait.
mod wait {
    use super::super::step::wait as waited;
    use super::*;

    pipeline!((async) (.await) tool);
}
