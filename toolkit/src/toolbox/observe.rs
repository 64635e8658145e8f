//! The path of an observed call: a record sink wants its [`CallRecord`], or a tracing
//! subscriber wants its `execute_tool` span. Taken only then, so calls nobody watches
//! pay for neither.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use tracing::{Instrument, Span};

use super::Toolbox;
use super::settle::{Begun, Clock, Ended, Settle, StartedAt};
use crate::call::{ToolCallRef, ToolResult};
use crate::exec::{Finished, Guard, HookEnv, Report, Started};
use crate::hook::{Hook, Hooks, Scope};
use crate::record::{CallRecord, Outcome};

impl Toolbox {
    /// The synchronous start of an observed call that no global hook acts on: a call that
    /// ends without waiting (a sync tool, sync hooks) is recorded here and needs no
    /// future; the others continue in [`observed_rest`](Toolbox::observed_rest).
    pub(super) fn begin_observed<'a>(&'a self, call: ToolCallRef<'a>, scope: &'a Scope, span: Span) -> Begun<'a> {
        let (clock, started) = self.start_observed(call, scope, self.local_hooks(scope), &span);
        match started {
            Started::Done(outcome) => Begun::Done(self.observed_end(&span, clock, Finished::plain(outcome))),
            Started::Finished(finished) => Begun::Done(self.observed_end(&span, clock, finished)),
            started => {
                Begun::Waiting(Settle::Observed(Box::pin(self.observed_rest(call, scope, span, clock, started))))
            }
        }
    }

    /// The synchronous start of a call only a record sink observes (its span is
    /// disabled): the plain start, timed; a call that has to wait continues in
    /// [`observed_rest`](Toolbox::observed_rest).
    pub(super) fn begin_recorded<'a>(&'a self, call: ToolCallRef<'a>, scope: &'a Scope, span: Span) -> Begun<'a> {
        let clock = clock();
        let hooks = HookEnv::of(self.local_hooks(scope), scope, true);
        match self.start(call, self.env(hooks, scope)) {
            Started::Done(outcome) => Begun::Done(Ended::Recorded(Finished::plain(outcome), clock)),
            Started::Finished(finished) => Begun::Done(Ended::Recorded(finished, clock)),
            started => {
                Begun::Waiting(Settle::Observed(Box::pin(self.observed_rest(call, scope, span, Some(clock), started))))
            }
        }
    }

    /// Starts an observed call among these hook lists, in its span, with its clock when a
    /// record will be built.
    fn start_observed<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        scope: &'a Scope,
        lists: [&'a [Hook]; 3],
        span: &Span,
    ) -> (Clock, Started<'a>) {
        let observed = !self.sinks.is_empty() || !scope.sinks.is_empty();
        let clock = observed.then(clock);
        if let Some(redactor) = &self.span_content
            && !span.is_disabled()
        {
            span.record(
                "gen_ai.tool.call.arguments",
                redactor.redact_head(call.arguments, SPAN_CONTENT_CHARS).as_str(),
            );
        }
        let hooks = HookEnv::of(lists, scope, observed);
        (clock, span.in_scope(|| self.start(call, self.env(hooks, scope))))
    }

    /// An observed call that has to wait: awaits it, then records it. A caller that
    /// stops waiting drops this future mid-call: its guard still delivers the call's one
    /// record, as `cancelled`.
    async fn observed_rest<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        scope: &'a Scope,
        span: Span,
        clock: Clock,
        started: Started<'a>,
    ) -> Ended {
        let mut guard = clock.map(|clock| Unfinished { toolbox: self, scope, call, clock, armed: true });
        let finished = self.wait(started, &span, clock).await;
        // Finished: the caller makes the call's one record, in the same poll.
        if let Some(guard) = &mut guard {
            guard.armed = false;
        }
        self.observed_end(&span, clock, finished)
    }

    /// The end of an observed call: its outcome (and error type, and with
    /// [`with_span_content`](Toolbox::with_span_content) its result) on its span.
    fn observed_end(&self, span: &Span, clock: Clock, finished: Finished) -> Ended {
        span.record("toolkit.outcome", finished.outcome.label());
        match &finished.result {
            Err(e) => {
                span.record("error.type", e.kind.as_str());
            }
            Ok(text) => {
                if let Some(redactor) = &self.span_content
                    && !span.is_disabled()
                {
                    span.record(
                        "gen_ai.tool.call.result",
                        redactor.redact_head(text.as_str(), SPAN_CONTENT_CHARS).as_str(),
                    );
                }
            }
        }
        Ended::of(finished, clock)
    }

    /// A call with an `execute_tool` span and a [`CallRecord`] for the sinks, from its
    /// start: for calls global hooks act on (their list is kept alive here).
    pub(super) async fn observed(
        &self,
        call: ToolCallRef<'_>,
        scope: &Scope,
        global: Option<Arc<Hooks>>,
        span: Span,
    ) -> Ended {
        let lists: [&[Hook]; 3] =
            [global.as_deref().map_or(&[], Hooks::as_slice), self.hooks.as_slice(), scope.hooks.as_slice()];
        let (clock, started) = self.start_observed(call, scope, lists, &span);
        self.observed_rest(call, scope, span, clock, started).await
    }

    /// Awaits a started call in its span.
    async fn wait(&self, started: Started<'_>, span: &Span, clock: Clock) -> Finished {
        match started {
            Started::Done(outcome) => Finished::plain(outcome),
            Started::Running(running, spec) => {
                let started = Instant::now();
                let outcome = Guard::new(running, spec, &self.limits).instrument(span.clone()).await;
                let mut finished = Finished::plain(outcome);
                if clock.is_some() {
                    let report = Report { attempts: 1, tool_duration: Some(started.elapsed()), ..Report::default() };
                    finished.report = Some(Box::new(report));
                }
                finished
            }
            Started::Hooked(hooked) => hooked.instrument(span.clone()).await,
            Started::Finished(finished) => finished,
        }
    }

    /// The record of a call that ended, built from its strings (and the text of an
    /// `Ok`), delivered to the sinks; then the call's result, the strings moved back out
    /// (copied when a sink keeps the record).
    pub(super) fn conclude(
        &self,
        texts: [String; 3],
        scope: &Scope,
        finished: Finished,
        (started_at, started): StartedAt,
    ) -> ToolResult {
        let [call_id, tool, arguments] = texts;
        let Finished { result, outcome, report } = finished;
        let Report { acted, rewritten_arguments, attempts, tool_duration } =
            report.map_or_else(|| Report { attempts: 1, ..Report::default() }, |r| *r);
        let (content, parts, detail, error) = match result {
            Ok(output) => {
                let (text, parts) = output.into_parts();
                (text, parts, None, None)
            }
            Err(e) => (e.message.clone(), Vec::new(), e.detail.clone(), Some(Box::new(e))),
        };
        let record = CallRecord {
            call_id,
            tool,
            arguments,
            rewritten_arguments,
            outcome,
            content,
            parts: if parts.is_empty() { Vec::new() } else { parts.iter().map(crate::parts::Part::summary).collect() },
            detail,
            hooks: acted,
            agent: scope.agent.clone(),
            task: scope.task.clone(),
            session: scope.session.clone(),
            parent: scope.parent.clone(),
            attempts,
            started_at,
            duration: started.elapsed(),
            tool_duration,
        };
        if !self.sinks.keeps() && !scope.sinks.keeps() {
            self.deliver(scope, &record, None);
            let CallRecord { call_id, tool, content, .. } = record;
            return ToolResult { call_id, name: tool, content, parts, error };
        }
        // A sink keeps it: built once as an `Arc`, the result's strings copied back out.
        let record = Arc::new(record);
        self.deliver(scope, &record, Some(&record));
        ToolResult {
            call_id: record.call_id.clone(),
            name: record.tool.clone(),
            content: record.content.clone(),
            parts,
            error,
        }
    }

    /// Hands a record to every sink, the toolbox's then the scope's: shared to those that
    /// keep records (when it is `shared`), lent to the others. A sink that panics is
    /// reported and skipped.
    fn deliver(&self, scope: &Scope, record: &CallRecord, shared: Option<&Arc<CallRecord>>) {
        for (sink, keeps) in self.sinks.iter().chain(scope.sinks.iter()) {
            let delivered = catch_unwind(AssertUnwindSafe(|| match shared {
                Some(shared) if *keeps => sink.record_shared(shared),
                _ => sink.record(record),
            }));
            if delivered.is_err() {
                tracing::error!(gen_ai.tool.call.id = %record.call_id, "a record sink panicked; the call's result is unaffected");
            }
        }
    }
}

/// How much of the arguments or the result a span carries, in characters.
const SPAN_CONTENT_CHARS: usize = 4096;

/// Reads the two clocks a recorded call starts with.
#[inline]
pub(super) fn clock() -> StartedAt {
    (SystemTime::now(), Instant::now())
}

/// An observed call that has not ended yet. Dropped while still armed (the caller
/// dropped the call's future), it delivers the call's record as
/// [`Outcome::Cancelled`], so that every call has exactly one record.
struct Unfinished<'a> {
    toolbox: &'a Toolbox,
    scope: &'a Scope,
    call: ToolCallRef<'a>,
    clock: StartedAt,
    /// Cleared when the call ends: its record is then made by the caller.
    armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let (started_at, started) = self.clock;
        let record = CallRecord {
            call_id: self.call.id.to_owned(),
            tool: self.call.name.to_owned(),
            arguments: self.call.arguments.to_owned(),
            rewritten_arguments: None,
            outcome: Outcome::Cancelled,
            content: String::new(),
            parts: Vec::new(),
            detail: Some("the caller stopped waiting before the call ended".into()),
            hooks: Vec::new(),
            agent: self.scope.agent.clone(),
            task: self.scope.task.clone(),
            session: self.scope.session.clone(),
            parent: self.scope.parent.clone(),
            attempts: 1,
            started_at,
            duration: started.elapsed(),
            tool_duration: None,
        };
        let record = Arc::new(record);
        self.toolbox.deliver(self.scope, &record, Some(&record));
    }
}

/// The span every call runs in, named and attributed after the OpenTelemetry GenAI
/// conventions (`execute_tool {gen_ai.tool.name}`; `error.type` is recorded on failure),
/// plus `toolkit.outcome` (`ok`, `blocked`, `cached`, `failed`, `recovered`).
/// With no subscriber installed this is one relaxed load; with one whose filter leaves
/// the span out (a level of `warn`, say), a check of the level and the callsite's
/// cached interest. Either way the span is disabled and the call takes the plain path.
#[inline]
pub(super) fn call_span(call: ToolCallRef<'_>) -> tracing::Span {
    if !tracing::dispatcher::has_been_set() {
        return tracing::Span::none();
    }
    tracing::info_span!(
        "execute_tool",
        otel.name = %format_args!("execute_tool {}", call.name),
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = %call.name,
        gen_ai.tool.call.id = %call.id,
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = tracing::field::Empty,
        gen_ai.tool.call.result = tracing::field::Empty,
        error.type = tracing::field::Empty,
        toolkit.outcome = tracing::field::Empty,
    )
}
