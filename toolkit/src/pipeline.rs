//! The hooked call: before hooks, the tool, after hooks, error hooks, retries, and what
//! the record learns from them (DESIGN §5).
//!
//! A call's [`Plan`] (the hooks acting on it, in order) is made where its tool is known.
//! Two drivers run a hooked call: [`drive_now`], with no future, when the tool and every
//! hook finish without waiting, and [`drive`] otherwise; they share every decision
//! ([`Run`]) and differ only in awaiting. What differs between a compile-time tool, a
//! run-time tool and an unknown name is the [`Steps`] they are given (parse the
//! arguments into a slot, run the tool on it). The hook loops take `&mut dyn ArgsSlot`
//! and are compiled once per driver.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use futures_util::FutureExt;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use crate::call::{Effect, ErrorKind, HookAction, Outcome, Output, ToolCall, ToolError};
use crate::hook::{
    AfterCall, ArgsSlot, BeforeCall, CallInfo, Decision, ErrorCall, Event, Extensions, Hook, HookError, HookStep,
    OnFailure, Recovery, Scope,
};
use crate::tool::ToolSpec;
use crate::toolbox::{Env, Started};

/// The hooks a call may meet, before its tool is known: the three scopes' lists, the
/// scope's labels, whether a record will be built. Copied into the call's [`Env`].
#[derive(Clone, Copy)]
pub struct HookEnv<'a> {
    pub(crate) lists: [&'a [Hook]; 3],
    pub(crate) scope: &'a Scope,
    pub(crate) wants_record: bool,
}

/// Starts a call of a tool that hooks act on (`plan`): with no future at all when the
/// tool and every hook finish without waiting, else in one boxed future that owns the
/// plan.
pub(crate) fn start<'a, S: Steps + 'a>(
    steps: S,
    runs_now: bool,
    plan: Plan<'a>,
    hooks: HookEnv<'a>,
    call: &'a ToolCall,
    env: Env<'a>,
) -> Started<'a> {
    let hooked = Hooked { plan, scope: hooks.scope, wants_record: hooks.wants_record };
    if runs_now && hooked.plan.is_sync() {
        return Started::Finished(drive_now(steps, call, env, &hooked));
    }
    Started::Hooked(Box::pin(async move { drive(steps, call, env, &hooked).await }))
}

/// What a call with hooks needs: its plan, its scope, whether a record will be built.
pub(crate) struct Hooked<'a> {
    pub(crate) plan: Plan<'a>,
    pub(crate) scope: &'a Scope,
    /// Whether a record will be built (then rewritten arguments are encoded for it).
    pub(crate) wants_record: bool,
}

/// The hooks that act on one call, from the three scopes, in the order they run, each
/// matched against the tool's name once: by priority (highest first), then scope
/// (global, toolbox, agent), then registration order.
///
/// The usual case, hooks from one scope only (already in order), borrows that list and
/// marks the matching hooks in a bit mask: nothing is copied or allocated. Hooks from
/// several scopes are merged into a list of references.
pub(crate) struct Plan<'a> {
    order: Order<'a>,
    before: bool,
    after: bool,
    error: bool,
    /// Every hook here finishes without waiting (so a tool that never waits can run the
    /// whole pipeline with no future).
    sync: bool,
}

/// The iterator of [`Plan::iter`].
enum Hooks<'p, 'a> {
    One(&'a [Hook], u64),
    Merged(std::slice::Iter<'p, &'a Hook>),
}

impl<'a> Iterator for Hooks<'_, 'a> {
    type Item = &'a Hook;

    #[inline]
    fn next(&mut self) -> Option<&'a Hook> {
        match self {
            Hooks::One(list, bits) => {
                if *bits == 0 {
                    return None;
                }
                let i = bits.trailing_zeros() as usize;
                *bits &= *bits - 1;
                list.get(i)
            }
            Hooks::Merged(hooks) => hooks.next().copied(),
        }
    }
}

enum Order<'a> {
    /// One scope's hooks; bit `i` set when hook `i` acts on this call (up to 64 hooks).
    One(&'a [Hook], u64),
    /// Several scopes' hooks, merged, matching ones only.
    Merged(Vec<&'a Hook>),
}

impl<'a> Plan<'a> {
    /// The plan for a call of `tool`; `None` when no hook acts on it.
    pub(crate) fn new(lists: [&'a [Hook]; 3], tool: &str) -> Option<Self> {
        let mut plan = Plan { order: Order::One(&[], 0), before: false, after: false, error: false, sync: true };
        match lists {
            // The usual case: hooks in one scope only, already in order.
            [only, [], []] | [[], only, []] | [[], [], only] if only.len() <= 64 => {
                let mut mask = 0u64;
                for (i, hook) in only.iter().enumerate() {
                    if hook.filter.matches(tool) {
                        mask |= 1 << i;
                        plan.note(hook);
                    }
                }
                if mask == 0 {
                    return None;
                }
                plan.order = Order::One(only, mask);
            }
            _ => {
                let mut merged = Vec::new();
                let mut at = [0usize; 3];
                loop {
                    let mut best: Option<(usize, &'a Hook)> = None;
                    for (i, list) in lists.iter().enumerate() {
                        if let Some(h) = list.get(at[i])
                            && best.is_none_or(|(_, b)| h.priority > b.priority)
                        {
                            best = Some((i, h));
                        }
                    }
                    let Some((i, hook)) = best else { break };
                    at[i] += 1;
                    if hook.filter.matches(tool) {
                        plan.note(hook);
                        merged.push(hook);
                    }
                }
                if merged.is_empty() {
                    return None;
                }
                plan.order = Order::Merged(merged);
            }
        }
        Some(plan)
    }

    #[inline]
    fn note(&mut self, hook: &Hook) {
        self.before |= hook.before.is_some();
        self.after |= hook.after.is_some();
        self.error |= hook.error.is_some();
        self.sync &= hook.is_sync();
    }

    /// The hooks, in order.
    #[inline]
    fn iter(&self) -> Hooks<'_, 'a> {
        match &self.order {
            Order::One(list, mask) => Hooks::One(list, *mask),
            Order::Merged(hooks) => Hooks::Merged(hooks.iter()),
        }
    }

    /// Whether every hook finishes without waiting.
    pub(crate) fn is_sync(&self) -> bool {
        self.sync
    }
}

/// How a hooked call ended.
pub struct Finished {
    pub(crate) result: Result<String, ToolError>,
    pub(crate) outcome: Outcome,
    /// What the record needs besides, when one will be built (boxed: a call without
    /// sinks carries one pointer, so `Started` stays small).
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

impl Finished {
    /// A call that ran with no hooks.
    pub(crate) fn plain(outcome: Result<Output, ToolError>) -> Self {
        let outcome_kind = match &outcome {
            Ok(_) => Outcome::Ok,
            Err(e) => Outcome::Failed(e.kind),
        };
        Finished { result: outcome.map(Output::into_string), outcome: outcome_kind, report: None }
    }
}

/// What the driver needs from the tool being called.
pub(crate) trait Steps: Send + Sync {
    /// The parsed arguments.
    type Slot: ArgsSlot + 'static;
    /// The tool's spec (`None`: no such tool).
    fn spec(&self) -> Option<&ToolSpec>;
    /// Parses the model's arguments; `keep` when hooks will read them after the tool
    /// has taken them.
    fn parse(&self, keep: bool) -> Result<Self::Slot, ToolError>;
    /// Runs the tool on the arguments in the slot (taking them).
    fn run<'s>(
        &'s self,
        slot: &'s mut Self::Slot,
        keep_raw: bool,
    ) -> impl Future<Output = Result<Output, ToolError>> + Send + 's;
    /// Runs a tool that never waits, with no future ([`drive_now`] only).
    fn run_now(&self, slot: &mut Self::Slot, keep_raw: bool) -> Result<Output, ToolError>;
}

/// What the before hooks decided, all together.
enum Before {
    Continue,
    Block(String, Option<String>),
    Return(Output),
}

/// What one attempt produced, before after or error hooks.
enum Produced {
    /// An output; `true` when a before hook returned it (cached).
    Output(Output, bool),
    Failed(ToolError),
    Blocked(String, Option<String>),
}

/// The state of one hooked call across its attempts, shared by the async driver
/// ([`drive`]) and the one for calls that cannot wait ([`drive_now`]): they differ only
/// in whether they await hooks and the tool.
struct Run<'c> {
    info: CallInfo<'c>,
    plan: &'c Plan<'c>,
    ext: Extensions,
    acted: Acted,
    max_retries: u32,
    /// After hooks read the raw typed output.
    keep_raw: bool,
    /// After or error hooks may read the arguments once the tool has taken them.
    keep_args: bool,
}

/// What an attempt's end leads to.
enum Next {
    Done(Finished),
    Retry,
}

/// One attempt's bookkeeping for the record.
#[derive(Default)]
struct Attempt {
    touched: bool,
    rewritten_arguments: Option<String>,
    tool_duration: Option<Duration>,
}

impl<'c> Run<'c> {
    fn new(spec: Option<&'c ToolSpec>, call: &'c ToolCall, env: Env<'c>, hooked: &'c Hooked<'c>) -> Self {
        let plan = &hooked.plan;
        Run {
            info: CallInfo {
                call_id: &call.id,
                tool: &call.name,
                raw: &call.arguments,
                spec,
                scope: hooked.scope,
                state: env.state,
                attempt: 1,
            },
            plan,
            ext: Extensions::default(),
            acted: Acted { on: hooked.wants_record, list: Vec::new() },
            max_retries: env.limits.max_retries,
            keep_raw: plan.after,
            keep_args: plan.after || plan.error,
        }
    }

    /// Before the tool runs: the arguments a hook may have rewritten must still fit, and
    /// the record wants them as the tool got them.
    fn ready_to_run(&self, slot: &mut dyn ArgsSlot, attempt: &mut Attempt) -> Result<Option<Instant>, ToolError> {
        if let Some(e) = slot.take_error() {
            return Err(e);
        }
        if attempt.touched && self.acted.on {
            attempt.rewritten_arguments = Some(slot.to_json_string(self.info.raw));
        }
        Ok(self.acted.on.then(Instant::now))
    }

    /// The end of an attempt, once after or error hooks have spoken.
    fn conclude(&mut self, produced: Produced, hooks: HooksSaid, attempt: Attempt) -> Next {
        let (result, outcome) = match (produced, hooks) {
            (Produced::Output(output, cached), HooksSaid::After(Ok(text))) => {
                let text = text.unwrap_or_else(|| output.into_string());
                (Ok(text), if cached { Outcome::Cached } else { Outcome::Ok })
            }
            (Produced::Blocked(reason, detail), _)
            | (_, HooksSaid::After(Err((reason, detail))))
            | (_, HooksSaid::Error(Handled::Block(reason, detail))) => (Err(blocked(reason, detail)), Outcome::Blocked),
            (Produced::Failed(_), HooksSaid::Error(Handled::Retry)) if self.info.attempt <= self.max_retries => {
                self.info.attempt += 1;
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
            (Produced::Output(..), HooksSaid::Error(_)) => unreachable!("error hooks run on failures only"),
        };
        let Attempt { rewritten_arguments, tool_duration, .. } = attempt;
        let report = self.acted.on.then(|| {
            let acted = std::mem::take(&mut self.acted.list);
            Box::new(Report { acted, rewritten_arguments, attempts: self.info.attempt, tool_duration })
        });
        Next::Done(Finished { result, outcome, report })
    }

    // ---- what each hook's outcome means (shared by both drivers) ----

    fn before_said(&mut self, hook: &Hook, outcome: Result<Decision, String>) -> Option<Before> {
        match outcome {
            Ok(Decision::Continue) => None,
            Ok(Decision::Block(reason)) => {
                self.acted.push(hook, Event::Before, Effect::Blocked, None);
                Some(Before::Block(reason, None))
            }
            Ok(Decision::Return(output)) => {
                self.acted.push(hook, Event::Before, Effect::Returned, None);
                Some(Before::Return(output))
            }
            Err(why) => self.failed(hook, Event::Before, &why).map(|(r, d)| Before::Block(r, d)),
        }
    }

    fn error_said(&mut self, hook: &Hook, outcome: Result<Recovery, String>) -> Option<Handled> {
        let retryable = self.info.spec.is_some_and(|s| s.annotations.repeatable());
        match outcome {
            Ok(Recovery::Propagate) => None,
            Ok(Recovery::Retry) if retryable => {
                self.acted.push(hook, Event::Error, Effect::Retried, None);
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

    /// A hook failed: log it, record it, and apply its policy (`Some` = block).
    fn failed(&mut self, hook: &Hook, event: Event, why: &str) -> Option<(String, Option<String>)> {
        let detail = failure_detail(hook, event, why);
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
        (policy == OnFailure::Block).then(|| (policy_reason(hook), Some(detail)))
    }
}

/// What after or error hooks said about an attempt.
enum HooksSaid {
    /// After hooks: the rewritten text, or a block.
    After(Result<Option<String>, (String, Option<String>)>),
    Error(Handled),
}

enum Handled {
    Propagate,
    Retry,
    Message(String),
    Block(String, Option<String>),
}

/// Writes a driver and its before, after and error hook loops: [`drive`] awaits hooks
/// and the tool, [`drive_now`] (for a tool and hooks that never wait) does not; every
/// decision between them is shared through [`Run`]. `$step` runs one hook step
/// (`step(..).await` or `step_now(..)`), `$run_tool` the tool (`run(..).await` or
/// `run_now(..)`).
macro_rules! hook_loops {
    ($driver:ident, $run_tool:ident, $before:ident, $after:ident, $on_error:ident, $step:ident $(, $asyncness:ident . $wait:ident)?) => {
        /// Runs one hooked call (see the module docs for which driver runs when).
        pub(crate) $($asyncness)? fn $driver<S: Steps>(steps: S, call: &ToolCall, env: Env<'_>, hooked: &Hooked<'_>) -> Finished {
            let mut run = Run::new(steps.spec(), call, env, hooked);
            loop {
                let mut attempt = Attempt::default();
                let mut slot = None;
                let produced = match steps.parse(run.keep_args) {
                    Err(e) => Produced::Failed(e),
                    Ok(s) => {
                        let s = slot.insert(s);
                        match $before(&mut run, s, &mut attempt)$(.$wait)? {
                            Before::Block(reason, detail) => Produced::Blocked(reason, detail),
                            Before::Return(output) => Produced::Output(output, true),
                            Before::Continue => match run.ready_to_run(s, &mut attempt) {
                                Err(e) => Produced::Failed(e),
                                Ok(clock) => {
                                    let ran = steps.$run_tool(s, run.keep_raw)$(.$wait)?;
                                    attempt.tool_duration = clock.map(|t| t.elapsed());
                                    match ran {
                                        Ok(output) => Produced::Output(output, false),
                                        Err(e) => Produced::Failed(e),
                                    }
                                }
                            },
                        }
                    }
                };
                let args = slot.as_mut().map(|s| s as &mut (dyn ArgsSlot + 'static));
                let said = match &produced {
                    Produced::Output(output, cached) if run.plan.after => $after(&mut run, output, args, *cached)$(.$wait)?,
                    Produced::Failed(error) if run.plan.error => $on_error(&mut run, error, args)$(.$wait)?,
                    Produced::Output(..) => HooksSaid::After(Ok(None)),
                    Produced::Failed(_) | Produced::Blocked(..) => HooksSaid::Error(Handled::Propagate),
                };
                if let Next::Done(finished) = run.conclude(produced, said, attempt) {
                    return finished;
                }
            }
        }

        $($asyncness)? fn $before(run: &mut Run<'_>, slot: &mut (dyn ArgsSlot + 'static), attempt: &mut Attempt) -> Before {
            if !run.plan.before {
                return Before::Continue;
            }
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.before else { continue };
                let mut call = BeforeCall { info: &run.info, args: &mut *slot, ext: &mut run.ext, touched: false };
                let outcome = $step(hook, || hook_fn.before(&mut call))$(.$wait)?;
                let touched = call.touched;
                attempt.touched |= touched;
                if let Ok(Decision::Continue) = outcome {
                    // `Continue` owns nothing: forgetting it spares an out-of-line drop of
                    // the whole `Result` on every hook of every call.
                    std::mem::forget(outcome);
                    if touched {
                        run.acted.push(hook, Event::Before, Effect::Rewrote, None);
                    }
                } else if let Some(stop) = run.before_said(hook, outcome) {
                    return stop;
                }
            }
            Before::Continue
        }

        $($asyncness)? fn $after(
            run: &mut Run<'_>,
            output: &Output,
            mut args: Option<&mut (dyn ArgsSlot + 'static)>,
            cached: bool,
        ) -> HooksSaid {
            let mut text: Option<String> = None;
            if !run.plan.after {
                return HooksSaid::After(Ok(text));
            }
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.after else { continue };
                let saved = text.clone();
                let mut out = AfterCall {
                    info: &run.info,
                    output,
                    text: &mut text,
                    args: args.as_deref_mut(),
                    ext: &mut run.ext,
                    cached,
                    touched: false,
                };
                let outcome = $step(hook, || hook_fn.after(&mut out))$(.$wait)?;
                let touched = out.touched;
                match outcome {
                    Ok(()) if touched => run.acted.push(hook, Event::After, Effect::Rewrote, None),
                    Ok(()) => {}
                    Err(why) => {
                        text = saved;
                        if let Some(block) = run.failed(hook, Event::After, &why) {
                            return HooksSaid::After(Err(block));
                        }
                    }
                }
            }
            HooksSaid::After(Ok(text))
        }

        $($asyncness)? fn $on_error(
            run: &mut Run<'_>,
            error: &ToolError,
            mut args: Option<&mut (dyn ArgsSlot + 'static)>,
        ) -> HooksSaid {
            if !run.plan.error {
                return HooksSaid::Error(Handled::Propagate);
            }
            for hook in run.plan.iter() {
                let Some(hook_fn) = &hook.error else { continue };
                let mut err = ErrorCall { info: &run.info, error, args: args.as_deref_mut(), ext: &mut run.ext };
                let outcome = $step(hook, || hook_fn.error(&mut err))$(.$wait)?;
                if let Some(handled) = run.error_said(hook, outcome) {
                    return HooksSaid::Error(handled);
                }
            }
            HooksSaid::Error(Handled::Propagate)
        }
    };
}

hook_loops!(drive, run, before, after, on_error, step, async.await);
hook_loops!(drive_now, run_now, before_now, after_now, on_error_now, step_now);

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

/// How a hook failed, for the log and the record.
fn failure_detail(hook: &Hook, event: Event, why: &str) -> String {
    format!("{} hook `{}` failed: {why}", event.as_str(), hook.name)
}

fn policy_reason(hook: &Hook) -> String {
    format!("policy check `{}` failed", hook.name)
}

/// Starts one hook step under the hook's guard: a panic and an error are failures
/// (`Err` with operator detail); `Ok(Err(future))` when the hook has to wait.
#[inline]
fn start_step<'a, T>(
    hook: &Hook,
    start: impl FnOnce() -> HookStep<'a, T>,
) -> Result<Result<T, String>, BoxFuture<'a, Result<T, HookError>>> {
    match catch_unwind(AssertUnwindSafe(start)) {
        Ok(HookStep::Ready(result)) => Ok(result.map_err(|e: HookError| e.to_string())),
        // A hook that says it never waits may run in a pipeline that cannot wait.
        Ok(HookStep::Pending(_)) if hook.is_sync() => {
            Ok(Err("it says it is sync (`is_sync`) but returned a future".to_string()))
        }
        Ok(HookStep::Pending(fut)) => Err(fut),
        Err(payload) => Ok(Err(panic_text(payload.as_ref()))),
    }
}

/// One hook step in a pipeline that cannot wait (every hook is sync).
#[inline]
fn step_now<'a, T>(hook: &Hook, start: impl FnOnce() -> HookStep<'a, T>) -> Result<T, String> {
    match start_step(hook, start) {
        Ok(result) => result,
        // Not reached: `start_step` refuses futures from sync hooks.
        Err(_) => Err("it had to wait in a pipeline that cannot".to_string()),
    }
}

/// One hook step: a panic, an error and an overrun of the hook's timeout are all
/// failures (`Err` with operator detail).
async fn step<'a, T>(hook: &Hook, start: impl FnOnce() -> HookStep<'a, T>) -> Result<T, String> {
    match start_step(hook, start) {
        Ok(result) => result,
        Err(fut) => wait(hook, fut).await,
    }
}

/// Awaits a hook's future under its guard.
async fn wait<T>(hook: &Hook, fut: BoxFuture<'_, Result<T, HookError>>) -> Result<T, String> {
    let guarded = AssertUnwindSafe(fut).catch_unwind();
    let outcome = match hook.timeout {
        None => guarded.await,
        Some(limit) => {
            // Creating the timer needs a Tokio runtime with time enabled; without one,
            // that is this hook's failure, not a crash.
            let timed = match catch_unwind(AssertUnwindSafe(|| tokio::time::timeout(limit, guarded))) {
                Ok(timed) => timed,
                Err(payload) => return Err(panic_text(payload.as_ref())),
            };
            match timed.await {
                Ok(outcome) => outcome,
                Err(_) => return Err(format!("did not finish within {limit:?}")),
            }
        }
    };
    match outcome {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(payload) => Err(panic_text(payload.as_ref())),
    }
}

fn panic_text(payload: &(dyn Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string payload".to_string());
    format!("panicked: {text}")
}

// ---- argument slots -----------------------------------------------------------------

/// Encodes and decodes a tool's argument struct for hooks' JSON view.
pub(crate) trait Codec<A> {
    fn encode(args: &A) -> Result<Map<String, Value>, String>;
    fn decode(json: &Map<String, Value>) -> Result<A, ToolError>;
}

enum State<A> {
    /// The tool's struct (the usual state; typed hooks use it in place).
    Typed(A),
    /// The struct and its JSON, for hooks that only read the JSON view.
    Viewed(A, Map<String, Value>),
    /// The JSON a hook asked to rewrite (it becomes the struct again when needed).
    Json(Map<String, Value>),
    /// JSON that cannot become the struct, or a struct that cannot become JSON.
    Broken(Map<String, Value>, ToolError),
    /// The tool took the struct; the JSON it was (if a hook may have changed it).
    Taken(Option<Map<String, Value>>),
}

/// The arguments of a compile-time tool: its struct, or the JSON a hook asked for,
/// converted on demand. Untouched arguments are never encoded: their JSON view, if
/// an after or error hook asks, is the model's own text parsed again.
pub(crate) struct TypedArgs<A, C> {
    state: State<A>,
    dirty: bool,
    keep: bool,
    codec: std::marker::PhantomData<fn() -> C>,
}

impl<A, C: Codec<A>> TypedArgs<A, C> {
    pub(crate) fn new(args: A, keep: bool) -> Self {
        TypedArgs { state: State::Typed(args), dirty: false, keep, codec: std::marker::PhantomData }
    }

    /// Takes the struct out for the tool (after `take_error` said it is well formed).
    pub(crate) fn take(&mut self) -> Option<A> {
        match std::mem::replace(&mut self.state, State::Taken(None)) {
            State::Viewed(a, map) => {
                self.state = State::Taken(Some(map));
                Some(a)
            }
            State::Typed(a) => {
                // Hooks rewrote them and later hooks may read them: keep their JSON.
                if self.dirty && self.keep {
                    self.state = State::Taken(C::encode(&a).ok());
                }
                Some(a)
            }
            other => {
                self.state = other;
                None
            }
        }
    }

    /// The struct again, from the JSON a hook read (kept beside it) or wrote (parsed).
    #[cold]
    fn make_typed(&mut self) {
        self.decode_json();
        if let State::Viewed(..) = self.state
            && let State::Viewed(a, _) = std::mem::replace(&mut self.state, State::Taken(None))
        {
            self.state = State::Typed(a);
        }
    }

    fn decode_json(&mut self) {
        if let State::Json(map) = &self.state {
            self.state = match C::decode(map) {
                Ok(a) => State::Typed(a),
                Err(e) => State::Broken(std::mem::take(map_of(&mut self.state)), e),
            };
        }
    }
}

fn map_of<A>(state: &mut State<A>) -> &mut Map<String, Value> {
    match state {
        State::Viewed(_, m) | State::Json(m) | State::Broken(m, _) | State::Taken(Some(m)) => m,
        State::Typed(_) | State::Taken(None) => unreachable!("only called on a state holding JSON"),
    }
}

impl<A: Any + Send, C: Codec<A>> TypedArgs<A, C> {
    /// Makes sure the state holds JSON; `write` when a hook is about to change it (the
    /// struct is then stale and dropped).
    fn ensure_json(&mut self, raw: &str, write: bool) -> &mut Map<String, Value> {
        let state = std::mem::replace(&mut self.state, State::Taken(None));
        self.state = match state {
            State::Typed(a) => match C::encode(&a) {
                Ok(map) if write => State::Json(map),
                Ok(map) => State::Viewed(a, map),
                Err(why) => State::Broken(
                    Map::new(),
                    ToolError::new(ErrorKind::Unavailable, "this tool's arguments could not be shown to a hook")
                        .with_detail(why),
                ),
            },
            State::Viewed(_, map) if write => State::Json(map),
            State::Taken(None) => State::Taken(Some(serde_json::from_str(raw).unwrap_or_default())),
            other => other,
        };
        map_of(&mut self.state)
    }
}

impl<A: Any + Send, C: Codec<A>> ArgsSlot for TypedArgs<A, C> {
    fn json(&mut self, raw: &str) -> &mut Map<String, Value> {
        self.dirty = true;
        self.ensure_json(raw, true)
    }

    fn json_ref(&mut self, raw: &str) -> &Map<String, Value> {
        self.ensure_json(raw, false)
    }

    fn typed(&mut self) -> Option<&mut dyn Any> {
        self.dirty = true;
        if !matches!(self.state, State::Typed(_)) {
            self.make_typed();
        }
        match &mut self.state {
            State::Typed(a) => Some(a),
            _ => None,
        }
    }

    fn take_error(&mut self) -> Option<ToolError> {
        // The JSON a hook wrote must still fit the tool before it runs.
        if let State::Typed(_) | State::Viewed(..) = self.state {
            return None;
        }
        self.decode_json();
        match &self.state {
            State::Broken(_, e) => Some(e.clone()),
            _ => None,
        }
    }

    fn to_json_string(&mut self, raw: &str) -> String {
        match &mut self.state {
            State::Typed(a) => C::encode(a).map(|m| Value::Object(m).to_string()).unwrap_or_default(),
            State::Viewed(_, m) | State::Json(m) | State::Broken(m, _) | State::Taken(Some(m)) => {
                Value::Object(m.clone()).to_string()
            }
            State::Taken(None) => raw.to_owned(),
        }
    }
}

/// The arguments of a run-time tool (or of a call naming no tool): a JSON object.
pub(crate) struct JsonArgs(pub(crate) Map<String, Value>);

impl ArgsSlot for JsonArgs {
    fn json(&mut self, _raw: &str) -> &mut Map<String, Value> {
        &mut self.0
    }
    fn json_ref(&mut self, _raw: &str) -> &Map<String, Value> {
        &self.0
    }
    fn typed(&mut self) -> Option<&mut dyn Any> {
        None
    }
    fn take_error(&mut self) -> Option<ToolError> {
        None
    }
    fn to_json_string(&mut self, _raw: &str) -> String {
        Value::Object(self.0.clone()).to_string()
    }
}
