//! Streamed replies: a model's answer as it is written, in events, and the one place
//! they are put back together.

use futures_util::StreamExt;
use futures_util::stream::BoxStream;

use super::{AssistantMessage, FinishReason, ModelError, ModelReply, Usage};
use crate::call::ToolCall;

/// One event of a streamed reply, in the order the model wrote it. A stream ends with
/// exactly one [`Finished`](Self::Finished); one that ends before it is a
/// [`ModelError::MalformedResponse`] naming where it was cut.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ModelEvent {
    /// More of the text.
    TextDelta(String),
    /// More of a refusal: the model declining to answer (OpenAI's `refusal`), which
    /// ends up in [`AssistantMessage::refusal`], not in the text.
    RefusalDelta(String),
    /// A piece of a tool call as it arrives: `index` is the call's place in the reply;
    /// `id` and `name` come with its first piece, `arguments` is the next fragment of
    /// its arguments text. For showing progress; the complete call follows as
    /// [`ToolCall`](Self::ToolCall).
    ToolCallDelta {
        /// The call's place in the reply.
        index: usize,
        /// Its id, on the first piece.
        id: Option<String>,
        /// Its name, on the first piece.
        name: Option<String>,
        /// The next fragment of its arguments.
        arguments: String,
    },
    /// A complete tool call, its arguments assembled (and its thought signature, if the
    /// provider gave one).
    ToolCall(ToolCall),
    /// Gemini's `thoughtSignature` on the reply's text: an opaque token that goes back
    /// with the text next turn. It ends up in [`AssistantMessage::thought_signature`];
    /// nothing to show.
    ThoughtSignature(String),
    /// The parts of the reply its provider needs back exactly
    /// ([`AssistantMessage::echo`]); nothing to show.
    Echo(super::Echo),
    /// Tokens used.
    Usage(Usage),
    /// The end: why the model stopped.
    Finished(FinishReason),
}

/// A streamed reply.
pub type ModelStream<'a> = BoxStream<'a, Result<ModelEvent, ModelError>>;

/// The events of a whole reply at once: what [`Model::stream`](super::Model::stream)
/// gives for a model that does not stream.
pub(crate) fn replay(reply: ModelReply) -> Vec<Result<ModelEvent, ModelError>> {
    let ModelReply { message, finish_reason, usage } = reply;
    let mut events = Vec::new();
    if let Some(text) = message.content.filter(|t| !t.is_empty()) {
        events.push(Ok(ModelEvent::TextDelta(text)));
    }
    if let Some(refusal) = message.refusal {
        events.push(Ok(ModelEvent::RefusalDelta(refusal)));
    }
    if let Some(signature) = message.thought_signature {
        events.push(Ok(ModelEvent::ThoughtSignature(signature)));
    }
    events.extend(message.tool_calls.into_iter().map(|call| Ok(ModelEvent::ToolCall(call))));
    if let Some(echo) = message.echo {
        events.push(Ok(ModelEvent::Echo(echo)));
    }
    events.push(Ok(ModelEvent::Usage(usage)));
    events.push(Ok(ModelEvent::Finished(finish_reason)));
    events
}

/// Reads a stream to its end into a reply, calling `on_text` with each text delta.
/// A stream that ends before [`ModelEvent::Finished`] is an error.
pub async fn collect(mut stream: ModelStream<'_>, mut on_text: impl FnMut(&str)) -> Result<ModelReply, ModelError> {
    let mut message = AssistantMessage::default();
    let mut usage = Usage::default();
    let mut events = 0usize;
    while let Some(event) = stream.next().await {
        events += 1;
        match event? {
            ModelEvent::TextDelta(text) => {
                on_text(&text);
                message.content.get_or_insert_with(String::new).push_str(&text);
            }
            ModelEvent::RefusalDelta(text) => message.refusal.get_or_insert_with(String::new).push_str(&text),
            ModelEvent::ToolCallDelta { .. } => {}
            ModelEvent::ToolCall(call) => message.tool_calls.push(call),
            ModelEvent::ThoughtSignature(signature) => message.thought_signature = Some(signature),
            ModelEvent::Echo(echo) => message.echo = Some(echo),
            ModelEvent::Usage(u) => usage = u,
            ModelEvent::Finished(finish_reason) => return Ok(ModelReply { message, finish_reason, usage }),
        }
    }
    Err(ModelError::MalformedResponse {
        message: format!("the stream ended after {events} events, before the reply was finished"),
    })
}

#[cfg(test)]
mod tests {
    use futures_util::stream;

    use super::*;

    #[tokio::test]
    async fn a_replayed_reply_collects_to_itself_and_a_cut_stream_is_an_error() {
        let reply = ModelReply {
            message: AssistantMessage {
                content: Some("hi".into()),
                tool_calls: vec![ToolCall::new("1", "t", "{}").with_thought_signature("call-sig")],
                refusal: None,
                thought_signature: Some("text-sig".into()),
                echo: Some(super::super::Echo::new("anthropic", vec![serde_json::json!({"type": "server_tool_use"})])),
            },
            finish_reason: FinishReason::ToolCalls,
            usage: Usage::new(3, 4),
        };
        let mut seen = String::new();
        let back = collect(stream::iter(replay(reply.clone())).boxed(), |t| seen.push_str(t)).await.unwrap();
        assert_eq!(back, reply);
        assert_eq!(seen, "hi");
        let cut = stream::iter(vec![Ok(ModelEvent::TextDelta("par".into()))]).boxed();
        let e = collect(cut, |_| {}).await.unwrap_err();
        assert!(e.to_string().contains("the stream ended after 1 events"), "{e}");
    }
}
