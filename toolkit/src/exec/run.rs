//! One hooked call's state across its attempts ([`Run`]), and what each hook's outcome
//! means: the decisions of [`drive`](super::drive).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use super::Env;
use super::guard::{Guard, guarded, panicked};
use super::plan::Plan;
use super::runnable::{Parsed, Runnable, not_ready};
use super::slot::Slot;
use crate::call::{Output, ToolCallRef};
use crate::context::CallContext;
use crate::error::{ErrorKind, ToolError};
use crate::hook::{
    Approval, ArgsSlot, CallEnds, CallInfo, Decision, Extensions, Hook, HookError, OnFailure, Recovery, Rewrite, Scope,
};
use crate::limits::Limits;
use crate::record::{Effect, Event, HookAction, Outcome};
use crate::spec::ToolSpec;

/// How a hooked call ended.
pub(crate) struct Finished {
    pub(crate) result: Result<Output, ToolError>,
    pub(crate) outcome: Outcome,
    /// What the record needs besides, when one will be built (boxed: a call without
    /// sinks carries one pointer).
    pub(crate) report: Option<Box<Report>>,
}

/// What a hooked call tells its record.
#[derive(Default)]
pub(crate) struct Report {
    pub(crate) acted: Vec<HookAction>,
    pub(crate) rewritten_arguments: Option<String>,
    pub(crate) attempts: u32,
    pub(crate) tool_duration: Option<Duration>,
}

/// What a call with hooks needs: its plan, its scope, whether a record will be built.
pub(super) struct Hooked<'a> {
    pub(super) plan: Plan<'a>,
    pub(super) scope: &'a Scope,
    pub(super) wants_record: bool,
}

/// What the before hooks decided, all together.
pub(super) enum Before {
    Continue,
    Block(String, Option<String>),
    Return(Output),
    /// Deferred to a decision: the reason, and the arguments as the deferring hook saw
    /// them (JSON).
    Defer(String, String),
    /// The result an earlier attempt recorded.
    Replay(Output),
    Fail(ToolError),
}

/// What one attempt produced, before after or error hooks.
pub(super) enum Produced {
    /// An output; `true` when a before hook returned it (cached).
    Output(Output, bool),
    Failed(ToolError),
    Blocked(String, Option<String>),
    /// Deferred to a decision (the reason, the arguments shown): no hook runs after it.
    Deferred(String, String),
    /// An earlier attempt's recorded result: final, no hook runs after it.
    Replayed(Output),
}

/// What after or error hooks said about an attempt.
pub(super) enum HooksSaid {
    /// After hooks: the rewritten text, or a block.
    After(Result<Rewrite, (String, Option<String>)>),
    Error(Handled),
}

pub(super) enum Handled {
    Propagate,
    Retry,
    Message(String),
    Block(String, Option<String>),
}

/// What an attempt's end leads to.
pub(super) enum Next {
    Done(Finished),
    Retry,
}

/// One attempt's bookkeeping for the record.
#[derive(Default)]
pub(super) struct Attempt {
    touched: bool,
    /// The call's decision answered a deferral in this attempt (it answers one).
    decided: bool,
    rewritten_arguments: Option<String>,
    tool_duration: Option<Duration>,
}

/// The state of one hooked call across its attempts.
pub(super) struct Run<'c> {
    pub(super) info: CallInfo<'c>,
    pub(super) plan: &'c Plan<'c>,
    limits: &'c Limits,
    pub(super) ext: Extensions,
    acted: Acted,
    /// After or error hooks may read the arguments once the tool has taken them.
    keep_args: bool,
}

impl HooksSaid {
    /// What no hook said: the output as it is, the failure passed on.
    pub(super) fn nothing(produced: &Produced) -> Self {
        match produced {
            Produced::Output(..) | Produced::Replayed(_) => HooksSaid::After(Ok(Rewrite::default())),
            Produced::Failed(_) | Produced::Blocked(..) | Produced::Deferred(..) => {
                HooksSaid::Error(Handled::Propagate)
            }
        }
    }
}

impl Attempt {
    /// The tool ran: how long, and what it produced.
    pub(super) fn ran(&mut self, clock: Option<Instant>, ran: Result<Output, ToolError>) -> Produced {
        self.tool_duration = clock.map(|t| t.elapsed());
        match ran {
            Ok(output) => Produced::Output(output, false),
            Err(e) => Produced::Failed(e),
        }
    }
}

impl<'c> Run<'c> {
    pub(super) fn new(spec: Option<&'c ToolSpec>, call: ToolCallRef<'c>, env: Env<'c>, hooked: &'c Hooked<'c>) -> Self {
        let plan = &hooked.plan;
        Run {
            info: CallInfo {
                call_id: call.id,
                tool: call.name,
                raw: call.arguments,
                spec,
                state: env.state,
                attempt: 1,
                scope: hooked.scope,
            },
            plan,
            limits: env.limits,
            ext: Extensions::default(),
            acted: Acted { on: hooked.wants_record, list: Vec::new() },
            keep_args: plan.after || plan.error,
        }
    }

    /// Parses the arguments for an attempt.
    pub(super) fn parse<'t>(
        &self,
        tool: Option<(&'t dyn Runnable, &'t ToolSpec)>,
        refused: Option<&ToolError>,
    ) -> Result<(&'t dyn Runnable, Parsed), ToolError> {
        match (tool, refused) {
            (Some((tool, _)), _) => {
                guarded(self.info.tool, || tool.parse(self.info.raw, self.limits)).map(|a| (tool, a))
            }
            (None, Some(e)) => Err(e.clone()),
            (None, None) => Err(not_ready()),
        }
    }

    /// The slot of parsed arguments (built where it is stored: it is not small).
    #[inline]
    pub(super) fn slot<'t>(&self, (tool, args): (&'t dyn Runnable, Parsed)) -> Slot<'t> {
        Slot::new(tool, args, self.keep_args)
    }

    /// After a before hook: a hook that failed open leaves the arguments as they were
    /// before it ran (`true`: its changes were undone).
    #[inline]
    pub(super) fn undone(slot: &mut Slot<'_>, fails_open: bool, outcome: &Result<Decision, HookError>) -> bool {
        if !fails_open {
            return false;
        }
        if outcome.is_err() {
            slot.undo();
            return true;
        }
        slot.disarm();
        false
    }

    /// A before hook let the call go on (the usual answer, handled without a call to
    /// [`before_said`](Run::before_said)): a rewrite of the arguments is noted.
    #[inline]
    pub(super) fn continued(&mut self, hook: &Hook, touched: bool, attempt: &mut Attempt) {
        attempt.touched |= touched;
        if touched {
            self.acted.push(hook, Event::Before, Effect::Rewrote, None);
        }
    }

    /// What one before hook's outcome means (`Some`: the call stops here).
    pub(super) fn before_said(
        &mut self,
        hook: &Hook,
        outcome: Result<Decision, HookError>,
        touched: bool,
        slot: &mut Slot<'_>,
        attempt: &mut Attempt,
    ) -> Option<Before> {
        attempt.touched |= touched;
        match outcome {
            Ok(Decision::Continue) => {
                if touched {
                    self.acted.push(hook, Event::Before, Effect::Rewrote, None);
                }
                None
            }
            Ok(Decision::Block(reason)) => {
                self.acted.push(hook, Event::Before, Effect::Blocked, None);
                Some(Before::Block(reason, None))
            }
            Ok(Decision::Return(output)) => {
                self.acted.push(hook, Event::Before, Effect::Returned, None);
                Some(Before::Return(output))
            }
            Ok(Decision::Defer(reason)) => self.deferred(hook, reason, slot, attempt),
            Ok(Decision::Replay(output)) => {
                self.acted.push(hook, Event::Before, Effect::Replayed, None);
                Some(Before::Replay(output))
            }
            Ok(Decision::Fail(error)) => {
                self.acted.push(hook, Event::Before, Effect::Blocked, Some(format!("failed the call: {}", error.kind)));
                Some(Before::Fail(error))
            }
            Err(why) => self.failed(hook, Event::Before, &why).map(|(reason, detail)| Before::Block(reason, detail)),
        }
    }

    /// A hook deferred the call: the decision the call was resumed with answers it, once
    /// per attempt and only for the arguments it was made for; else the call waits (the
    /// arguments as they are now are what the decision will be asked about).
    #[cold]
    fn deferred(&mut self, hook: &Hook, reason: String, slot: &mut Slot<'_>, attempt: &mut Attempt) -> Option<Before> {
        if let Some(decided) = self.info.decided().filter(|_| !attempt.decided) {
            attempt.decided = true;
            if crate::digest::arguments_digest(slot.json_ref(self.info.raw)) == decided.digest {
                return match &decided.approval {
                    Approval::Approve => {
                        self.acted.push(hook, Event::Before, Effect::Decided, Some("approved".to_owned()));
                        None
                    }
                    Approval::ApproveWith(arguments) => {
                        *slot.json(self.info.raw) = arguments.clone();
                        attempt.touched = true;
                        let detail = "approved with edited arguments".to_owned();
                        self.acted.push(hook, Event::Before, Effect::Decided, Some(detail));
                        None
                    }
                    Approval::Reject(_) => {
                        self.acted.push(hook, Event::Before, Effect::Decided, Some("denied".to_owned()));
                        decided.approval.rejection().map(|reason| Before::Block(reason, None))
                    }
                };
            }
            let detail = "its decision was made for other arguments; it waits for a new one".to_owned();
            self.acted.push(hook, Event::Before, Effect::Deferred, Some(detail));
        } else {
            self.acted.push(hook, Event::Before, Effect::Deferred, None);
        }
        if attempt.touched && self.acted.on {
            attempt.rewritten_arguments = Some(slot.to_json_string(self.info.raw));
        }
        // What a decision will be asked about, and bound to (its digest): the arguments
        // as this hook saw them, in the form the slot gives every hook.
        Some(Before::Defer(reason, slot.to_json_string(self.info.raw)))
    }

    /// Before the tool runs: the arguments a hook may have rewritten must still fit, and
    /// the record wants them as the tool got them.
    pub(super) fn ready_to_run(
        &self,
        slot: &mut Slot<'_>,
        attempt: &mut Attempt,
    ) -> Result<Option<Instant>, ToolError> {
        if let Some(e) = slot.take_error() {
            return Err(e);
        }
        if attempt.touched && self.acted.on {
            attempt.rewritten_arguments = Some(slot.to_json_string(self.info.raw));
        }
        Ok(self.acted.on.then(Instant::now))
    }

    /// Runs a tool that never waits on the arguments in the slot.
    pub(super) fn tool_now(
        &self,
        tool: &dyn Runnable,
        spec: &ToolSpec,
        slot: &mut Slot<'_>,
    ) -> Result<Output, ToolError> {
        let args = slot.take().ok_or_else(not_ready)?;
        let cx = CallContext::new(self.info.call_id, spec, self.info.state)
            .keeping_raw(self.plan.raw)
            .in_run(self.info.run(), self.info.raw)
            .reporting(self.info.progress());
        crate::call::checked(guarded(&spec.name, || tool.run_now(args, &cx)), self.limits.max_result_bytes)
    }

    /// Runs the tool on the arguments in the slot: at once when it never waits, under
    /// its guard (timeout, panics) otherwise.
    pub(super) async fn tool(
        &self,
        tool: &dyn Runnable,
        spec: &ToolSpec,
        slot: &mut Slot<'_>,
    ) -> Result<Output, ToolError> {
        if tool.runs_now() {
            return self.tool_now(tool, spec, slot);
        }
        let args = slot.take().ok_or_else(not_ready)?;
        let cx = CallContext::new(self.info.call_id, spec, self.info.state)
            .keeping_raw(self.plan.raw)
            .in_run(self.info.run(), self.info.raw)
            .reporting(self.info.progress());
        match catch_unwind(AssertUnwindSafe(|| tool.run(args, cx))) {
            Ok(running) => Guard::new(running, spec, self.limits).await,
            Err(payload) => Err(panicked(&spec.name, payload.as_ref())),
        }
    }

    /// What one after hook's outcome means (`Some`: block the call).
    pub(super) fn after_said(
        &mut self,
        hook: &Hook,
        outcome: Result<(), HookError>,
        touched: bool,
        rewrite: &mut Rewrite,
        saved: Rewrite,
    ) -> Option<(String, Option<String>)> {
        match outcome {
            Ok(()) => {
                if touched {
                    self.acted.push(hook, Event::After, Effect::Rewrote, None);
                }
                None
            }
            Err(why) => {
                // Failing open means as if the hook had not run: its rewrite is undone.
                *rewrite = saved;
                self.failed(hook, Event::After, &why)
            }
        }
    }

    /// What one error hook's outcome means (`Some`: it handled the failure).
    pub(super) fn error_said(&mut self, hook: &Hook, outcome: Result<Recovery, HookError>) -> Option<Handled> {
        match outcome {
            Ok(Recovery::Propagate) => None,
            Ok(Recovery::Retry) if self.info.spec.is_some_and(|s| s.annotations.repeatable()) => {
                // What the retry hook says it waited, for the record.
                let waited = self.ext.remove::<crate::hooks::Waited>().map(|w| w.0);
                self.acted.push(hook, Event::Error, Effect::Retried, waited);
                Some(Handled::Retry)
            }
            Ok(Recovery::Retry) => {
                tracing::debug!(hook = %hook.name, "retry ignored: the tool is neither read_only nor idempotent");
                None
            }
            Ok(Recovery::Message(text)) => {
                self.acted.push(hook, Event::Error, Effect::Recovered, None);
                Some(Handled::Message(text))
            }
            Err(why) => self.failed(hook, Event::Error, &why).map(|(r, d)| Handled::Block(r, d)),
        }
    }

    /// How many retries the call may have: the toolbox's limit, or the tool's declared
    /// policy's when that is more (a declared policy is the tool's own limit).
    fn max_retries(&self) -> u32 {
        let declared = self.info.spec.and_then(|s| s.retry).map_or(0, |p| p.retries);
        self.limits.max_retries.max(declared)
    }

    /// A hook failed: log it, record it, and apply its policy (`Some` = block).
    fn failed(&mut self, hook: &Hook, event: Event, error: &HookError) -> Option<(String, Option<String>)> {
        let why = error.message();
        let detail = format!("{} hook `{}` failed: {why}", event.as_str(), hook.name);
        let policy = hook.failure_policy(event);
        tracing::warn!(
            gen_ai.tool.name = self.info.tool,
            gen_ai.tool.call.id = self.info.call_id,
            hook = %hook.name,
            event = event.as_str(),
            policy = ?policy,
            "{detail}"
        );
        self.acted.push(hook, event, Effect::Failed, Some(detail.clone()));
        let reason = if error.is_for_model() { why.to_owned() } else { format!("policy check `{}` failed", hook.name) };
        (policy == OnFailure::Block).then_some((reason, Some(detail)))
    }

    /// The end of an attempt, once after or error hooks have spoken.
    pub(super) fn conclude(&mut self, produced: Produced, hooks: HooksSaid, attempt: Attempt) -> Next {
        let (result, outcome) = match (produced, hooks) {
            (Produced::Output(mut output, cached), HooksSaid::After(Ok(rewrite))) => {
                rewrite.apply(&mut output);
                (Ok(output), if cached { Outcome::Cached } else { Outcome::Ok })
            }
            (Produced::Replayed(output), _) => (Ok(output), Outcome::Replayed),
            (Produced::Deferred(reason, shown), _) => {
                let error = ToolError::new(ErrorKind::Deferred, format!("deferred: {reason}")).with_detail(shown);
                (Err(error), Outcome::Deferred)
            }
            (Produced::Blocked(reason, detail), _)
            | (_, HooksSaid::After(Err((reason, detail))))
            | (_, HooksSaid::Error(Handled::Block(reason, detail))) => (Err(blocked(reason, detail)), Outcome::Blocked),
            (Produced::Failed(_), HooksSaid::Error(Handled::Retry)) if self.info.attempt <= self.max_retries() => {
                // Saturating: `max_retries: u32::MAX` asks for retries without end.
                self.info.attempt = self.info.attempt.saturating_add(1);
                return Next::Retry;
            }
            (Produced::Failed(error), HooksSaid::Error(Handled::Message(text))) => {
                let kind = error.kind;
                let detail = match error.detail {
                    Some(d) => format!("{}; {d}", error.message),
                    None => error.message,
                };
                (Err(ToolError::new(kind, text).with_detail(detail)), Outcome::Recovered(kind))
            }
            (Produced::Failed(error), _) => {
                let kind = error.kind;
                (Err(error), Outcome::Failed(kind))
            }
            (Produced::Output(output, _), HooksSaid::Error(_)) => (Ok(output), Outcome::Ok),
        };
        let Attempt { rewritten_arguments, tool_duration, .. } = attempt;
        if let Some(ends) = self.ext.remove::<CallEnds>() {
            ends.ended(outcome);
        }
        let report = self.acted.on.then(|| {
            let acted = std::mem::take(&mut self.acted.list);
            Box::new(Report { acted, rewritten_arguments, attempts: self.info.attempt, tool_duration })
        });
        Next::Done(Finished { result, outcome, report })
    }
}

/// The arguments for one more hook, for as long as that hook runs.
pub(super) fn reborrow<'s>(args: &'s mut Option<&mut dyn ArgsSlot>) -> Option<&'s mut (dyn ArgsSlot + 's)> {
    match args {
        Some(a) => Some(&mut **a as &mut (dyn ArgsSlot + 's)),
        None => None,
    }
}

/// The hooks that acted, kept only when a record will be built.
struct Acted {
    on: bool,
    list: Vec<HookAction>,
}

impl Acted {
    /// Notes what a hook did (only when a record will be built).
    #[inline(always)]
    fn push(&mut self, hook: &Hook, event: Event, effect: Effect, detail: Option<String>) {
        if self.on {
            self.note(hook, event, effect, detail);
        }
    }

    #[inline(never)]
    fn note(&mut self, hook: &Hook, event: Event, effect: Effect, detail: Option<String>) {
        self.list.push(HookAction { hook: hook.name.clone(), event, effect, detail });
    }
}

fn blocked(reason: String, detail: Option<String>) -> ToolError {
    let error = ToolError::new(ErrorKind::Blocked, format!("blocked: {reason}"));
    match detail {
        Some(d) => error.with_detail(d),
        None => error,
    }
}
