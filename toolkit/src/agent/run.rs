//! The run loop: how a run goes from turn to turn (ask the model, run its calls under the
//! run's scope, settle what a pause or a resume decided), and what it carries between
//! turns. The public types it fills (`AgentRun`, `AgentError`, the events) are in the
//! parent module.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use super::{AgentError, AgentEvent, AgentRun, EventFn, Inner, OnLength, steps, typed};
use crate::call::{ToolCall, ToolResult};
use crate::durable::{PendingCall, Progress, RunState, TurnCall};
use crate::error::ErrorKind;
use crate::hook::{Decided, Scope};
use crate::model::{FinishReason, Message, Model, ModelRequest, ToolChoice, Usage};
use crate::record::{CallRecord, RecordSink};

/// Collects the records of one run and reports each finished call; the run keeps a
/// clone to read the records, the scope owns the other.
#[derive(Clone)]
pub(super) struct RunSink {
    pub(super) records: Arc<Mutex<Vec<Arc<CallRecord>>>>,
    pub(super) on_event: Option<Arc<EventFn>>,
}

impl RecordSink for RunSink {
    fn record(&self, record: &CallRecord) {
        self.record_shared(&Arc::new(record.clone()))
    }

    fn keeps_records(&self) -> bool {
        true
    }

    fn record_shared(&self, record: &Arc<CallRecord>) {
        self.records.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::clone(record));
        emit(&self.on_event, &AgentEvent::ToolCallFinished { record });
    }
}

pub(super) fn emit(on_event: &Option<Arc<EventFn>>, event: &AgentEvent<'_>) {
    if let Some(f) = on_event
        && catch_unwind(AssertUnwindSafe(|| f(event))).is_err()
    {
        tracing::error!("an agent event callback panicked; the run goes on");
    }
}

pub(super) fn new_session_id() -> Arc<str> {
    new_id("session")
}

/// A new id, unique among processes (time, process id, a counter): for sessions and runs.
pub(super) fn new_id(kind: &str) -> Arc<str> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
    Arc::from(format!("{kind}-{nanos:x}-{:x}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)))
}

/// The labels a run's calls carry.
pub(super) struct Labels {
    pub(super) session: Option<Arc<str>>,
    pub(super) task: Option<Arc<str>>,
    pub(super) parent: Option<Arc<str>>,
}

/// How a run begins: from a user message, or from a paused run's state.
pub(super) enum Start {
    Fresh { input: String, history: Vec<Message> },
    Resume { state: Box<RunState>, decisions: HashMap<String, Decided> },
}

impl AgentRun {
    /// The run a paused state holds.
    pub(super) fn of(state: RunState) -> AgentRun {
        AgentRun {
            text: String::new(),
            messages: state.messages,
            records: state.records,
            usage: state.usage,
            iterations: state.iterations,
            session: Arc::from(state.session),
            finish_reason: Some(FinishReason::ToolCalls),
            refusal: None,
        }
    }
}

/// What a run carries from turn to turn besides its [`AgentRun`]: what a paused state
/// needs to continue it.
struct Course {
    run_id: Arc<str>,
    task: Option<Arc<str>>,
    parent: Option<Arc<str>>,
    progress: Progress,
}

impl Inner {
    pub(super) async fn drive(
        &self,
        start: Start,
        labels: Labels,
        answer: Option<typed::Answer>,
        watcher: Option<Arc<EventFn>>,
    ) -> Result<AgentRun, AgentError> {
        // A streaming run watches the events too, and asks the model for its reply as
        // it is written.
        let streaming = watcher.is_some();
        let on_event: Option<Arc<EventFn>> = match (self.on_event.clone(), watcher) {
            (Some(a), Some(b)) => Some(Arc::new(move |e: &AgentEvent<'_>| {
                a(e);
                b(e);
            })),
            (a, b) => a.or(b),
        };
        let (mut run, mut course, paused_turn) = match start {
            Start::Fresh { input, history } => {
                let Labels { session, task, parent } = labels;
                let mut messages = history;
                if let Some(prompt) = &self.system_prompt
                    && !matches!(messages.first(), Some(Message::System { .. }))
                {
                    messages.insert(0, Message::system(prompt.clone()));
                }
                messages.push(Message::user(input));
                let run = AgentRun {
                    text: String::new(),
                    messages,
                    records: Vec::new(),
                    usage: Usage::default(),
                    iterations: 0,
                    session: session.unwrap_or_else(new_session_id),
                    finish_reason: None,
                    refusal: None,
                };
                (run, Course { run_id: new_id("run"), task, parent, progress: Progress::default() }, None)
            }
            Start::Resume { state, decisions } => {
                let mut state = *state;
                let course = Course {
                    run_id: Arc::from(std::mem::take(&mut state.run_id)),
                    task: state.task.take().map(Arc::from),
                    parent: state.parent.take().map(Arc::from),
                    progress: state.progress,
                };
                let turn = std::mem::take(&mut state.turn);
                (AgentRun::of(state), course, Some((turn, decisions)))
            }
        };
        let sink = RunSink { records: Arc::default(), on_event: on_event.clone() };
        let scope = self.scope(&run.session, &course.run_id, [&course.task, &course.parent], &sink);

        // A resumed run first finishes the turn it paused in: its pending calls, each
        // with its decision, and the ledger that makes them run at most once.
        if let Some((turn, decisions)) = paused_turn {
            let resumed = self.decided(scope.clone(), decisions);
            let calls: Vec<ToolCall> = turn.iter().map(|t| t.call.clone()).collect();
            let waiting: Vec<ToolCall> = turn.iter().filter(|t| t.result.is_none()).map(|t| t.call.clone()).collect();
            for call in &waiting {
                emit(&on_event, &AgentEvent::ToolCallStarted { call });
            }
            let mut ran = self.run_calls(waiting, &resumed).await.into_iter();
            let results: Vec<ToolResult> = turn
                .into_iter()
                .map(|t| match t.result {
                    Some(result) => result,
                    // One result per call run, in order (`call_all` promises it).
                    None => ran.next().unwrap_or_else(|| ToolResult::failed(t.call.id, t.call.name, lost())),
                })
                .collect();
            self.settle(&mut run, &course, &sink, calls, results)?;
        }

        let mut choice = if course.progress.choice_spent { &ToolChoice::Auto } else { &self.tool_choice };
        for iteration in run.iterations + 1..=self.max_iterations {
            run.iterations = iteration;
            emit(&on_event, &AgentEvent::TurnStarted { iteration });
            // Deferred tools join once a search found them (see `search`).
            let specs = steps::visible_specs(
                &self.tools,
                &run.messages,
                self.model.searches_tools(),
                self.tool_filter.as_deref(),
            );
            let request = ModelRequest {
                messages: &run.messages,
                tools: &specs,
                tool_choice: choice,
                parallel_tool_calls: self.parallel_tool_calls,
                strict: self.strict,
                response_format: answer.as_ref().map(|a| &a.format),
                namespaces: self.tools.namespaces(),
            };
            let reply = if streaming {
                let text = |delta: &str| emit(&on_event, &AgentEvent::TextDelta { iteration, text: delta });
                crate::model::collect(self.model.stream(request), text).await
            } else {
                self.model.complete(request).await
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(source) => {
                    return Err(AgentError::Model { iteration, source, run: Box::new(run) });
                }
            };
            run.usage += reply.usage;
            run.finish_reason = Some(reply.finish_reason.clone());
            emit(
                &on_event,
                &AgentEvent::ModelReplied {
                    iteration,
                    message: &reply.message,
                    finish_reason: &reply.finish_reason,
                    usage: reply.usage,
                },
            );
            let mut reply = reply;
            if reply.message.tool_calls.is_empty() {
                // An answer continued after a cut is the parts joined.
                run.text.push_str(reply.message.content.as_deref().unwrap_or_default());
                run.refusal = reply.message.refusal.clone();
                let cut = reply.finish_reason == FinishReason::Length;
                run.messages.push(Message::Assistant(reply.message));
                if cut {
                    match self.on_length {
                        OnLength::Fail => return Err(AgentError::Cut { run: Box::new(run) }),
                        OnLength::Continue(max) if course.progress.continuations < max => {
                            course.progress.continuations += 1;
                            run.messages.push(Message::user(
                                "Your answer was cut by the length limit. Continue exactly where it stopped, without repeating anything.",
                            ));
                            continue;
                        }
                        _ => {}
                    }
                }
                if let Some(answer) = &answer
                    && let Err(problem) = answer.check(&run.text)
                {
                    if course.progress.corrections < self.answer_retries {
                        course.progress.corrections += 1;
                        run.messages.push(Message::user(format!(
                            "Your answer does not fit the required JSON schema: {problem}. Reply again with only the JSON value."
                        )));
                        run.text.clear();
                        continue;
                    }
                    let attempts = course.progress.corrections + 1;
                    return Err(AgentError::BadAnswer { attempts, problem, run: Box::new(run) });
                }
                emit(&on_event, &AgentEvent::FinalAnswer { text: &run.text });
                return Ok(run);
            }
            distinct_ids(&mut reply.message.tool_calls);
            let calls = reply.message.tool_calls.clone();
            run.messages.push(Message::Assistant(reply.message));
            for call in &calls {
                emit(&on_event, &AgentEvent::ToolCallStarted { call });
            }
            if choice.forces_a_call() {
                choice = &ToolChoice::Auto;
                course.progress.choice_spent = true;
            }
            // Past the turn's limit, calls are blocked (each still gets its result and
            // its record): a reply asking for thousands must not run them all.
            let limited = (calls.len() > self.max_calls_per_turn).then(|| self.limit_calls(&scope, &calls));
            let results = self.run_calls(calls.clone(), limited.as_ref().unwrap_or(&scope)).await;
            self.settle(&mut run, &course, &sink, calls, results)?;
        }
        Err(AgentError::MaxIterations { limit: self.max_iterations, run: Box::new(run) })
    }

    /// Executes one turn's calls: together when parallel calls are on, else one by one.
    async fn run_calls(&self, calls: Vec<ToolCall>, scope: &Scope) -> Vec<ToolResult> {
        if self.parallel_tool_calls {
            return self.tools.call_all_in(calls, scope).await;
        }
        let mut results = Vec::with_capacity(calls.len());
        for call in calls {
            results.push(self.tools.call_in(call, scope).await);
        }
        results
    }

    /// A turn's calls have ended: their records join the run's, and their results the
    /// conversation; or, when a hook deferred one of them, the run pauses with the turn
    /// as it stands.
    fn settle(
        &self,
        run: &mut AgentRun,
        course: &Course,
        sink: &RunSink,
        calls: Vec<ToolCall>,
        results: Vec<ToolResult>,
    ) -> Result<(), AgentError> {
        take_records(sink, &results, &mut run.records);
        if !results.iter().any(|r| r.kind() == Some(ErrorKind::Deferred)) {
            run.messages.extend(results.iter().map(Message::tool));
            return Ok(());
        }
        let mut pending = Vec::new();
        let mut turn = Vec::with_capacity(calls.len());
        for (call, result) in calls.into_iter().zip(results) {
            if result.kind() != Some(ErrorKind::Deferred) {
                turn.push(TurnCall { call, result: Some(result) });
                continue;
            }
            pending.extend(PendingCall::of(&call, &result));
            turn.push(TurnCall { call, result: None });
        }
        let labels = [
            Some(run.session.to_string()),
            course.task.as_deref().map(str::to_owned),
            course.parent.as_deref().map(str::to_owned),
        ];
        let state = RunState::new(
            course.run_id.to_string(),
            self.name.as_deref().map(str::to_owned),
            labels,
            run.messages.clone(),
            turn,
            pending,
            run.records.clone(),
            (run.iterations, run.usage, course.progress),
        );
        tracing::info!(run_id = %course.run_id, pending = state.pending().len(), "the run paused: calls wait for a decision");
        Err(AgentError::Paused { state: Box::new(state), run: Box::new(run.clone()) })
    }
}

/// A pending call the resumed turn lost (never: `call_all` answers every call).
#[cold]
fn lost() -> crate::error::ToolError {
    crate::error::ToolError::new(ErrorKind::Unavailable, "this call was not run; ask for it again")
}

/// Gives every call of a turn its own id: a model that repeats one (or a client that
/// filled in missing ones alike) would otherwise have two results answer one id. The
/// renamed ids are what the transcript carries, so the model sees each result paired.
pub(super) fn distinct_ids(calls: &mut [ToolCall]) {
    let mut seen = std::collections::HashSet::new();
    for (i, call) in calls.iter_mut().enumerate() {
        if !seen.insert(call.id.clone()) {
            let mut renamed = format!("{}_{}", call.id, i + 1);
            while !seen.insert(renamed.clone()) {
                renamed.push('_');
            }
            tracing::debug!(id = %call.id, renamed = %renamed, "the model repeated a tool call id; the call gets its own");
            call.id = renamed;
        }
    }
}

/// Moves one turn's records to `into`, in call order: the calls of a turn finish in any
/// order, so their records are put back in the order of `results` (a model may repeat
/// an id; each record is used once).
fn take_records(sink: &RunSink, results: &[crate::call::ToolResult], into: &mut Vec<Arc<CallRecord>>) {
    let mut batch: Vec<Option<Arc<CallRecord>>> =
        std::mem::take(&mut *sink.records.lock().unwrap_or_else(|e| e.into_inner())).into_iter().map(Some).collect();
    for result in results {
        if let Some(slot) = batch.iter_mut().find(|r| r.as_ref().is_some_and(|r| r.call_id == result.call_id)) {
            into.extend(slot.take());
        }
    }
    into.extend(batch.into_iter().flatten());
}
