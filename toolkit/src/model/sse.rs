//! Reading a streamed reply: server-sent events (parsed by `eventsource-stream`), each
//! event's JSON turned into [`ModelEvent`]s by the provider's own `Chunks`, with the
//! failures every provider shares named the same way: a body that breaks off, an event
//! that is not JSON, a stream that ends before the reply is finished.

use std::collections::VecDeque;

use eventsource_stream::Eventsource;
use futures_util::stream::BoxStream;
use futures_util::{StreamExt, TryStreamExt};
use serde::Serialize;

use super::http::{Transport, head};
use super::{ModelError, ModelEvent, ModelStream};

/// What a provider does with each event of its stream.
pub(crate) trait Chunks: Send + 'static {
    /// Reads one event (`name` is its `event:` field, `"message"` when absent); pushes
    /// what it means onto `out`. `Ok(true)` when the reply is complete.
    fn event(&mut self, name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, String>;

    /// The stream ended without a closing event: push what remains, if the reply is in
    /// fact complete (`Ok(true)`); `Ok(false)` means it was cut.
    fn end(&mut self, out: &mut VecDeque<ModelEvent>) -> bool;
}

struct State<C> {
    transport: Transport,
    body: serde_json::Value,
    events: Option<BoxStream<'static, Result<eventsource_stream::Event, String>>>,
    chunks: C,
    out: VecDeque<ModelEvent>,
    done: bool,
    read: usize,
}

/// POSTs `body` (retrying 429 and 5xx as [`Transport::post`] does) and streams the reply.
pub(crate) fn stream<C: Chunks, B: Serialize>(transport: &Transport, body: &B, chunks: C) -> ModelStream<'static> {
    let body = match serde_json::to_value(body) {
        Ok(body) => body,
        Err(e) => return futures_util::stream::once(async move { Err(ModelError::Other(Box::new(e))) }).boxed(),
    };
    let state =
        State { transport: transport.clone(), body, events: None, chunks, out: VecDeque::new(), done: false, read: 0 };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.out.pop_front() {
                return Some((Ok(event), state));
            }
            if state.done {
                return None;
            }
            let Some(events) = state.events.as_mut() else {
                match state.transport.send(&state.body).await {
                    Ok(response) => {
                        state.events = Some(response.bytes_stream().eventsource().map_err(|e| e.to_string()).boxed());
                        continue;
                    }
                    Err(e) => {
                        state.done = true;
                        return Some((Err(e), state));
                    }
                }
            };
            let failure = match events.next().await {
                Some(Ok(event)) => {
                    state.read += 1;
                    match state.chunks.event(&event.event, &event.data, &mut state.out) {
                        Ok(finished) => {
                            state.done = finished;
                            continue;
                        }
                        Err(problem) => format!("event {} ({}): {problem}", state.read, head(&event.data, 120)),
                    }
                }
                Some(Err(e)) => format!("the stream broke after {} events: {e}", state.read),
                None => {
                    if state.chunks.end(&mut state.out) {
                        state.done = true;
                        continue;
                    }
                    format!("the stream ended after {} events, before the reply was finished", state.read)
                }
            };
            state.done = true;
            state.out.clear();
            return Some((Err(ModelError::MalformedResponse { message: failure }), state));
        }
    })
    .boxed()
}
