//! A run as a stream of events: text as the model writes it, tool calls, their
//! results, turn boundaries, and the outcome last.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::mpsc;
use std::task::{Context, Poll};

use futures_util::Stream;

use super::{Agent, AgentError, AgentEvent, AgentRun, RunRequest};
use crate::call::ToolCall;
use crate::model::{FinishReason, Usage};
use crate::record::CallRecord;

/// One event of a streaming run ([`Agent::run_stream`]), the same for every model.
#[derive(Debug)]
#[non_exhaustive]
pub enum RunEvent {
    /// A model turn begins (1-based).
    TurnStarted {
        /// The turn's number.
        iteration: usize,
    },
    /// More of the model's text, as it arrives.
    TextDelta {
        /// The turn's number.
        iteration: usize,
        /// The new text.
        text: String,
    },
    /// The model's turn is complete.
    TurnEnded {
        /// The turn's number.
        iteration: usize,
        /// Why it stopped.
        finish_reason: FinishReason,
        /// The tokens of this turn.
        usage: Usage,
    },
    /// A tool call is about to run.
    ToolCall {
        /// The call, its arguments complete.
        call: ToolCall,
    },
    /// A running tool reported progress.
    ToolProgress {
        /// The call's id.
        call_id: String,
        /// How much is done.
        done: f64,
        /// Of how much, when the tool knows.
        total: Option<f64>,
        /// What it is doing now (may be empty).
        message: String,
    },
    /// A tool call ended: its record (outcome, the text the model reads, hooks, timing).
    ToolResult {
        /// The call's record.
        record: Arc<CallRecord>,
    },
    /// The run is over: its answer, or why it has none. Always the last event.
    Finished(Result<AgentRun, AgentError>),
}

type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<AgentRun, AgentError>> + Send + 'a>>;

/// A streaming run. The run makes progress only while the stream is polled, and
/// dropping the stream stops it: the model request is cancelled, and so are running
/// tool calls, each still recorded (as `cancelled`).
#[must_use = "a stream does nothing until polled"]
pub struct RunStream<'a> {
    run: Option<RunFuture<'a>>,
    events: mpsc::Receiver<RunEvent>,
    finished: Option<Result<AgentRun, AgentError>>,
}

impl Agent {
    /// Runs the loop on `input`, streaming: the model's text as it is written, each tool
    /// call and its result, each turn's end, and the outcome last
    /// ([`RunEvent::Finished`]). Clients that can stream are asked to; others give each
    /// turn's text at once.
    ///
    /// ```
    /// use toolkit::agent::{Agent, RunEvent};
    /// use toolkit::model::{ScriptedModel, StreamExt, Turn};
    /// use toolkit::prelude::*;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let agent = Agent::builder(ScriptedModel::new([Turn::text("Hello there.")]), Toolbox::new()).build()?;
    /// let mut events = agent.run_stream("Hi");
    /// let mut text = String::new();
    /// while let Some(event) = events.next().await {
    ///     match event {
    ///         RunEvent::TextDelta { text: delta, .. } => text.push_str(&delta),
    ///         RunEvent::Finished(run) => assert_eq!(run?.text, "Hello there."),
    ///         _ => {}
    ///     }
    /// }
    /// assert_eq!(text, "Hello there.");
    /// # Ok(()) }
    /// ```
    pub fn run_stream(&self, input: impl Into<String>) -> RunStream<'_> {
        self.run(input).stream()
    }
}

impl<'a> RunRequest<'a> {
    /// This run, streaming (see [`Agent::run_stream`]).
    pub fn stream(self) -> RunStream<'a> {
        let (sender, events) = mpsc::channel();
        let watcher = move |event: &AgentEvent<'_>| {
            let owned = match *event {
                AgentEvent::TurnStarted { iteration } => RunEvent::TurnStarted { iteration },
                AgentEvent::TextDelta { iteration, text } => RunEvent::TextDelta { iteration, text: text.to_string() },
                AgentEvent::ModelReplied { iteration, finish_reason, usage, .. } => {
                    RunEvent::TurnEnded { iteration, finish_reason: finish_reason.clone(), usage }
                }
                AgentEvent::ToolCallStarted { call } => RunEvent::ToolCall { call: call.clone() },
                AgentEvent::ToolProgress { report } => RunEvent::ToolProgress {
                    call_id: report.call_id.to_owned(),
                    done: report.done,
                    total: report.total,
                    message: report.message.to_owned(),
                },
                AgentEvent::ToolCallFinished { record } => RunEvent::ToolResult { record: Arc::clone(record) },
                AgentEvent::FinalAnswer { .. } => return,
            };
            // The stream may be gone (dropped while the run unwinds): nothing to tell.
            let _ = sender.send(owned);
        };
        RunStream { run: Some(self.drive(None, Some(Arc::new(watcher)))), events, finished: None }
    }
}

impl Stream for RunStream<'_> {
    type Item = RunEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<RunEvent>> {
        let this = &mut *self;
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(event));
        }
        if let Some(run) = this.run.as_mut() {
            match run.as_mut().poll(cx) {
                Poll::Ready(outcome) => {
                    this.run = None;
                    this.finished = Some(outcome);
                }
                Poll::Pending => {
                    // Events the run sent while it was polled.
                    return match this.events.try_recv() {
                        Ok(event) => Poll::Ready(Some(event)),
                        Err(_) => Poll::Pending,
                    };
                }
            }
        }
        if let Ok(event) = this.events.try_recv() {
            return Poll::Ready(Some(event));
        }
        Poll::Ready(this.finished.take().map(RunEvent::Finished))
    }
}
