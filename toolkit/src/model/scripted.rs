//! A model that replays a fixed conversation.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

use futures_util::future::BoxFuture;

use super::{
    AssistantMessage, FinishReason, Message, Model, ModelError, ModelEvent, ModelReply, ModelRequest, ModelStream,
    ResponseFormat, ToolChoice, Usage,
};
use crate::{call::ToolCall, spec::ToolSpec};

/// A model that replays a given sequence of assistant turns, and records every request
/// it was sent.
///
/// Each request takes the next [`Turn`]: text, tool calls, a turn computed from the
/// request (to quote a tool's result), or an error. A turn may also check the request
/// it answers ([`Turn::expect`]); a failed check, or a request past the last turn, is a
/// [`ModelError::Script`], so a test learns exactly where the conversation went
/// another way. Clones share the script and the record.
///
/// ```
/// use toolkit::model::{ScriptedModel, Turn};
///
/// let model = ScriptedModel::new([
///     Turn::call("get_weather", r#"{"location":"Beijing"}"#),
///     Turn::text("It is 22 °C and sunny in Beijing."),
/// ]);
/// assert_eq!(model.remaining(), 2);
/// ```
#[derive(Clone)]
pub struct ScriptedModel {
    inner: Arc<Mutex<Script>>,
    name: Arc<str>,
}

struct Script {
    turns: VecDeque<Turn>,
    total: usize,
    next_id: usize,
    requests: Vec<RecordedRequest>,
}

impl ScriptedModel {
    /// A model that answers with `turns`, in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        let turns: VecDeque<Turn> = turns.into_iter().collect();
        let total = turns.len();
        ScriptedModel {
            inner: Arc::new(Mutex::new(Script { turns, total, next_id: 0, requests: Vec::new() })),
            name: Arc::from("scripted"),
        }
    }

    /// Adds a turn at the end of the script.
    pub fn then(self, turn: Turn) -> Self {
        {
            let mut script = self.lock();
            script.turns.push_back(turn);
            script.total += 1;
        }
        self
    }

    /// Names the model (for spans and logs; default `"scripted"`).
    pub fn named(mut self, name: impl Into<Arc<str>>) -> Self {
        self.name = name.into();
        self
    }

    /// Every request sent so far, oldest first.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// How many turns are left.
    pub fn remaining(&self) -> usize {
        self.lock().turns.len()
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn answer(&self, request: &ModelRequest<'_>) -> Result<ModelReply, ModelError> {
        let mut script = self.lock();
        script.requests.push(RecordedRequest::of(request));
        let number = script.total - script.turns.len() + 1;
        let Some(mut turn) = script.turns.pop_front() else {
            return Err(ModelError::Script(format!(
                "request {number} has no turn: the script has {} (the conversation went on longer than scripted)",
                script.total
            )));
        };
        // A computed turn may compute another; each checks the same request.
        loop {
            if let Some(check) = &turn.check {
                check(request).map_err(|e| ModelError::Script(format!("turn {number}: {e}")))?;
            }
            match turn.kind {
                Kind::With(f) => turn = f(request),
                Kind::Fail(e) => return Err(e),
                Kind::Reply(mut message) => {
                    for call in &mut message.tool_calls {
                        if call.id.is_empty() {
                            script.next_id += 1;
                            call.id = format!("call_{}", script.next_id);
                        }
                    }
                    let finish_reason =
                        if message.tool_calls.is_empty() { FinishReason::Stop } else { FinishReason::ToolCalls };
                    return Ok(ModelReply { message, finish_reason, usage: turn.usage });
                }
            }
        }
    }
}

impl Model for ScriptedModel {
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<ModelReply, ModelError>> {
        let reply = self.answer(&request);
        Box::pin(std::future::ready(reply))
    }

    fn name(&self) -> &str {
        &self.name
    }

    /// The scripted reply as a real stream would bring it: the text a word at a time,
    /// each call's arguments in fragments (then the call whole), the usage, the finish.
    fn stream<'a>(&'a self, request: ModelRequest<'a>) -> ModelStream<'a> {
        use futures_util::StreamExt;
        let events = match self.answer(&request) {
            Ok(reply) => pieces(reply),
            Err(e) => vec![Err(e)],
        };
        futures_util::stream::iter(events).boxed()
    }
}

/// A reply cut into the events a streaming provider sends.
fn pieces(reply: ModelReply) -> Vec<Result<ModelEvent, ModelError>> {
    let ModelReply { message, finish_reason, usage } = reply;
    let mut events = Vec::new();
    for word in message.content.as_deref().unwrap_or_default().split_inclusive(' ') {
        events.push(Ok(ModelEvent::TextDelta(word.to_string())));
    }
    for word in message.refusal.as_deref().unwrap_or_default().split_inclusive(' ') {
        events.push(Ok(ModelEvent::RefusalDelta(word.to_string())));
    }
    if let Some(signature) = message.thought_signature {
        events.push(Ok(ModelEvent::ThoughtSignature(signature)));
    }
    for (index, call) in message.tool_calls.into_iter().enumerate() {
        let mut rest = call.arguments.as_str();
        let mut first = true;
        while first || !rest.is_empty() {
            let cut = rest.char_indices().nth(8).map_or(rest.len(), |(i, _)| i);
            let (fragment, after) = rest.split_at(cut);
            events.push(Ok(ModelEvent::ToolCallDelta {
                index,
                id: first.then(|| call.id.clone()),
                name: first.then(|| call.name.clone()),
                arguments: fragment.to_string(),
            }));
            rest = after;
            first = false;
        }
        events.push(Ok(ModelEvent::ToolCall(call)));
    }
    events.push(Ok(ModelEvent::Usage(usage)));
    events.push(Ok(ModelEvent::Finished(finish_reason)));
    events
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let script = self.lock();
        f.debug_struct("ScriptedModel")
            .field("turns", &script.total)
            .field("remaining", &script.turns.len())
            .field("requests", &script.requests.len())
            .finish()
    }
}

type Check = Box<dyn Fn(&ModelRequest<'_>) -> Result<(), String> + Send>;

/// One scripted assistant turn.
pub struct Turn {
    kind: Kind,
    usage: Usage,
    check: Option<Check>,
}

enum Kind {
    Reply(AssistantMessage),
    With(Box<dyn FnOnce(&ModelRequest<'_>) -> Turn + Send>),
    Fail(ModelError),
}

impl Turn {
    fn of(kind: Kind) -> Self {
        Turn { kind, usage: Usage::default(), check: None }
    }

    /// A text answer: the end of the agent's run.
    pub fn text(text: impl Into<String>) -> Self {
        Turn::of(Kind::Reply(AssistantMessage::text(text)))
    }

    /// One tool call, with `arguments` as the model would write them (any string, also
    /// malformed JSON). Its id is `call_N`, numbered across the script.
    pub fn call(name: impl Into<String>, arguments: impl Into<String>) -> Self {
        Turn::calls([(name, arguments)])
    }

    /// Several tool calls in one message (parallel calls), ids numbered across the
    /// script.
    pub fn calls<N: Into<String>, A: Into<String>>(calls: impl IntoIterator<Item = (N, A)>) -> Self {
        let calls = calls.into_iter().map(|(n, a)| ToolCall::new(String::new(), n, a)).collect();
        Turn::of(Kind::Reply(AssistantMessage::calls(calls)))
    }

    /// Tool calls with the ids given (an empty id is numbered).
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Turn::of(Kind::Reply(AssistantMessage::calls(calls.into_iter().collect())))
    }

    /// Any assistant message: text and tool calls together, for example.
    pub fn message(message: AssistantMessage) -> Self {
        Turn::of(Kind::Reply(message))
    }

    /// A turn computed from the request it answers: quote a tool's result, or pick a
    /// tool from the user's question.
    pub fn with(f: impl FnOnce(&ModelRequest<'_>) -> Turn + Send + 'static) -> Self {
        Turn::of(Kind::With(Box::new(f)))
    }

    /// The request fails with `error` (to test how a caller handles a model failure).
    pub fn fail(error: ModelError) -> Self {
        Turn::of(Kind::Fail(error))
    }

    /// Reports this token usage for the turn.
    pub fn usage(mut self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        self.usage = Usage::new(prompt_tokens, completion_tokens);
        self
    }

    /// Checks the request this turn answers; an `Err` fails the request with
    /// [`ModelError::Script`] naming the turn.
    ///
    /// ```
    /// use toolkit::model::{ModelRequest, Turn};
    /// let turn = Turn::text("done").expect(|req: &ModelRequest<'_>| {
    ///     match req.messages.last().and_then(|m| m.text()) {
    ///         Some(t) if t.contains("22") => Ok(()),
    ///         other => Err(format!("expected the weather result, got {other:?}")),
    ///     }
    /// });
    /// # drop(turn);
    /// ```
    pub fn expect(mut self, check: impl Fn(&ModelRequest<'_>) -> Result<(), String> + Send + 'static) -> Self {
        self.check = Some(Box::new(check));
        self
    }
}

impl fmt::Debug for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            Kind::Reply(m) => f.debug_tuple("Turn").field(m).finish(),
            Kind::With(_) => f.write_str("Turn(computed)"),
            Kind::Fail(e) => f.debug_tuple("Turn::fail").field(e).finish(),
        }
    }
}

/// A request as a [`ScriptedModel`] received it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct RecordedRequest {
    /// The conversation sent.
    pub messages: Vec<Message>,
    /// The tool specs sent.
    pub tools: Vec<ToolSpec>,
    /// The tool choice sent.
    pub tool_choice: ToolChoice,
    /// Whether parallel calls were allowed.
    pub parallel_tool_calls: bool,
    /// Whether strict mode was asked for.
    pub strict: bool,
    /// The shape asked for the final answer, if any.
    pub response_format: Option<ResponseFormat>,
}

impl RecordedRequest {
    fn of(request: &ModelRequest<'_>) -> Self {
        RecordedRequest {
            messages: request.messages.to_vec(),
            tools: request.tools.iter().map(|s| (*s).clone()).collect(),
            tool_choice: request.tool_choice.clone(),
            parallel_tool_calls: request.parallel_tool_calls,
            strict: request.strict,
            response_format: request.response_format.cloned(),
        }
    }

    /// The names of the tools sent, in order.
    pub fn tool_names(&self) -> Vec<&str> {
        self.tools.iter().map(|t| t.name.as_str()).collect()
    }

    /// The `role: "tool"` messages at the end of the conversation (the results of the
    /// previous turn's calls), as `(tool_call_id, content)`.
    pub fn tool_results(&self) -> Vec<(&str, &str)> {
        super::trailing_tool_results(&self.messages)
    }
}
