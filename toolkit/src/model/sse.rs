//! Reading a streamed reply: server-sent events (parsed by `eventsource-stream`), each
//! event's JSON turned into [`ModelEvent`]s by the provider's own `Chunks`, with the
//! failures every provider shares named the same way: a body that breaks off, an event
//! that is not JSON, a stream that ends before the reply is finished.

use std::collections::VecDeque;

use eventsource_stream::Eventsource;
use futures_util::stream::BoxStream;
use futures_util::{StreamExt, TryStreamExt};
use serde::Serialize;

use super::error_text::{MESSAGE_CHARS, head, head_with_ellipsis};
use super::http::{MAX_REPLY, Transport};
use super::{ModelError, ModelEvent, ModelStream};

/// What a provider does with each event of its stream.
pub(crate) trait Chunks: Clone + Send + 'static {
    /// Reads one event (`name` is its `event:` field, `"message"` when absent); pushes
    /// what it means onto `out`. `Ok(true)` when the reply is complete.
    fn event(&mut self, name: &str, data: &str, out: &mut VecDeque<ModelEvent>) -> Result<bool, Problem>;

    /// The stream ended without a closing event: push what remains, if the reply is in
    /// fact complete (`Ok(true)`); `Ok(false)` means it was cut.
    fn end(&mut self, out: &mut VecDeque<ModelEvent>) -> bool;
}

/// What is wrong with an event.
#[derive(Debug)]
pub(crate) enum Problem {
    /// It is not what the provider sends: [`ModelError::MalformedResponse`].
    Malformed(String),
    /// The provider reported an error: [`ModelError::StreamError`], retried when
    /// [`transient`] says so and none of the reply reached the caller.
    Reported {
        /// The provider's type for it (`overloaded_error`, `server_error`, `UNAVAILABLE`).
        kind: String,
        /// The provider's message.
        message: String,
    },
}

impl From<String> for Problem {
    fn from(message: String) -> Self {
        Problem::Malformed(message)
    }
}

impl From<&str> for Problem {
    fn from(message: &str) -> Self {
        Problem::Malformed(message.to_string())
    }
}

impl Problem {
    /// The error a provider reported: its type (the first of `kinds` that is a string
    /// or a number; `error` if none is) and message.
    pub(crate) fn reported(kinds: &[&serde_json::Value], message: &serde_json::Value) -> Self {
        let kind = kinds
            .iter()
            .find_map(|k| match k {
                serde_json::Value::String(s) if !s.is_empty() => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
            .unwrap_or_else(|| "error".to_string());
        let message = message.as_str().unwrap_or("no reason given").to_string();
        Problem::Reported { kind, message }
    }
}

/// Whether a provider's error type says the error may not happen again: overloaded,
/// an internal or server error, a rate limit, a timeout (Anthropic's `overloaded_error`,
/// `api_error`, `rate_limit_error`, `timeout_error`; OpenAI's `server_error`,
/// `rate_limit_exceeded`; Gemini's `UNAVAILABLE`, `INTERNAL`, `RESOURCE_EXHAUSTED`,
/// `DEADLINE_EXCEEDED`, or the HTTP status it names). Anything else (an invalid
/// request, a refused key, a filtered prompt) would fail again.
pub(crate) fn transient(kind: &str) -> bool {
    const TRANSIENT: &[&str] = &[
        "overloaded_error",
        "overloaded",
        "api_error",
        "server_error",
        "internal_error",
        "internal",
        "internal_server_error",
        "unavailable",
        "service_unavailable",
        "rate_limit_error",
        "rate_limit_exceeded",
        "resource_exhausted",
        "timeout_error",
        "deadline_exceeded",
        "408",
        "409",
        "429",
        "500",
        "502",
        "503",
        "504",
        "529",
    ];
    TRANSIENT.iter().any(|t| t.eq_ignore_ascii_case(kind.trim()))
}

struct State<C> {
    transport: Transport,
    body: serde_json::Value,
    events: Option<BoxStream<'static, Result<eventsource_stream::Event, String>>>,
    /// The provider's reader, as it was before the first event (for a retry).
    fresh: C,
    chunks: C,
    out: VecDeque<ModelEvent>,
    done: bool,
    read: usize,
    /// Requests made (each retry of the stream's request counts).
    attempts: u32,
    /// Whether an event has reached the caller: from then on the request is not retried.
    yielded: bool,
}

/// POSTs `body` (retrying as [`Transport::post`] does) and streams the reply. An error
/// the provider reports as [`transient`] before any event reached the caller asks again,
/// within the same retry budget.
pub(crate) fn stream<C: Chunks, B: Serialize>(transport: &Transport, body: &B, chunks: C) -> ModelStream<'static> {
    let body = match serde_json::to_value(body) {
        Ok(body) => body,
        Err(e) => return futures_util::stream::once(async move { Err(ModelError::Other(Box::new(e))) }).boxed(),
    };
    let state = State {
        transport: transport.clone(),
        body,
        events: None,
        fresh: chunks.clone(),
        chunks,
        out: VecDeque::new(),
        done: false,
        read: 0,
        attempts: 0,
        yielded: false,
    };
    futures_util::stream::unfold(state, |mut state| async move {
        loop {
            if let Some(event) = state.out.pop_front() {
                state.yielded = true;
                return Some((Ok(event), state));
            }
            if state.done {
                return None;
            }
            let Some(events) = state.events.as_mut() else {
                match state.transport.send_streaming(&state.body, &mut state.attempts).await {
                    Ok(response) => {
                        // The first bytes are read here: the same timeout as each event.
                        let start = without_bom(response.bytes_stream().boxed());
                        let Ok(body) = tokio::time::timeout(state.transport.timeout, start).await else {
                            state.done = true;
                            return Some((Err(state.transport.timed_out()), state));
                        };
                        let mut size = Size::default();
                        let body = body.map(move |piece| -> Result<_, String> {
                            let piece = piece.map_err(|e| e.to_string())?;
                            size.read(piece.as_ref())?;
                            Ok(piece)
                        });
                        state.events = Some(body.eventsource().map_err(|e| e.to_string()).boxed());
                        continue;
                    }
                    Err(e) => {
                        state.done = true;
                        return Some((Err(e), state));
                    }
                }
            };
            // Each wait for the next event gets the request's timeout (the whole stream
            // may take longer: a long answer is not cut).
            let next = match tokio::time::timeout(state.transport.timeout, events.next()).await {
                Ok(next) => next,
                Err(_) => {
                    state.done = true;
                    state.out.clear();
                    return Some((Err(state.transport.timed_out()), state));
                }
            };
            let failure = match next {
                Some(Ok(event)) => {
                    state.read += 1;
                    match state.chunks.event(&event.event, &event.data, &mut state.out) {
                        Ok(finished) => {
                            state.done = finished;
                            continue;
                        }
                        Err(Problem::Malformed(problem)) => {
                            format!("event {} ({}): {problem}", state.read, head(&event.data, 120))
                        }
                        Err(Problem::Reported { kind, message }) => {
                            // What this attempt read and the caller has not seen is dropped.
                            state.out.clear();
                            let attempt = state.attempts;
                            if transient(&kind) && !state.yielded && attempt <= state.transport.max_retries {
                                let delay = state.transport.backoff_for(attempt);
                                tracing::warn!(
                                    %kind,
                                    %message,
                                    attempt,
                                    delay_ms = delay.as_millis() as u64,
                                    "the provider reported an error before the reply began; retrying"
                                );
                                tokio::time::sleep(delay).await;
                                state.events = None;
                                state.chunks = state.fresh.clone();
                                state.read = 0;
                                continue;
                            }
                            state.done = true;
                            let error = ModelError::StreamError {
                                url: state.transport.url.clone(),
                                kind,
                                message: head_with_ellipsis(&state.transport.scrub(&message), MESSAGE_CHARS),
                                attempts: attempt,
                                after_output: state.yielded,
                            };
                            return Some((Err(error), state));
                        }
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

/// The largest event read: an event is a chunk of a reply, kilobytes at most. The
/// parser reads an unfinished event again with every piece of it that arrives, so one
/// that never ends would cost time quadratic in its length, as well as memory.
const MAX_EVENT: usize = 4 << 20;

/// How much of a stream has come: in all (at most [`MAX_REPLY`]: a stream is one reply)
/// and since the last event ended (at most [`MAX_EVENT`]).
#[derive(Default)]
struct Size {
    total: usize,
    event: usize,
    after_newline: bool,
}

impl Size {
    fn read(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.total = self.total.saturating_add(bytes.len());
        if self.total > MAX_REPLY {
            return Err(format!("the stream is larger than {} MiB", MAX_REPLY >> 20));
        }
        for &byte in bytes {
            match byte {
                // A blank line ends an event.
                b'\n' if self.after_newline => self.event = 0,
                b'\n' => self.after_newline = true,
                b'\r' => {}
                _ => {
                    self.after_newline = false;
                    self.event += 1;
                }
            }
        }
        if self.event > MAX_EVENT {
            return Err(format!("an event of the stream is larger than {} MiB", MAX_EVENT >> 20));
        }
        Ok(())
    }
}

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A piece of the body: its start (read here, a byte-order mark taken off) or the rest,
/// as it comes.
enum Piece<B> {
    Start(Vec<u8>),
    Rest(B),
}

impl<B: AsRef<[u8]>> AsRef<[u8]> for Piece<B> {
    fn as_ref(&self) -> &[u8] {
        match self {
            Piece::Start(start) => start,
            Piece::Rest(rest) => rest.as_ref(),
        }
    }
}

/// The body without a leading byte-order mark, which `eventsource-stream` 0.2 would
/// strip by slicing its text at byte 1 (the mark is three bytes): a panic on a body
/// that starts with one. Reads the first three bytes (over as many pieces as they
/// take), then passes the rest through untouched.
async fn without_bom<B, E, S>(mut body: S) -> impl futures_util::Stream<Item = Result<Piece<B>, E>>
where
    S: futures_util::Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
{
    let mut start = Vec::new();
    let mut failed = None;
    while start.len() < BOM.len() {
        match body.next().await {
            Some(Ok(piece)) => start.extend_from_slice(piece.as_ref()),
            Some(Err(e)) => {
                failed = Some(e);
                break;
            }
            None => break,
        }
    }
    let start = start.strip_prefix(BOM).map(<[u8]>::to_vec).unwrap_or(start);
    let head = std::iter::once(Ok(Piece::Start(start))).chain(failed.map(Err));
    futures_util::stream::iter(head).chain(body.map_ok(Piece::Rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn events(pieces: &[&[u8]]) -> Vec<Result<String, String>> {
        let body =
            futures_util::stream::iter(pieces.iter().map(|p| Ok::<_, std::io::Error>(p.to_vec())).collect::<Vec<_>>());
        without_bom(body).await.eventsource().map(|e| e.map(|e| e.data).map_err(|e| e.to_string())).collect().await
    }

    #[test]
    fn an_event_is_measured_from_the_blank_line_that_ended_the_last_one() {
        let mut size = Size::default();
        let big = vec![b'x'; MAX_EVENT - 10];
        // Events just under the limit, ended by a blank line ("\n\n" or "\r\n\r\n",
        // also split between pieces).
        for end in [&[&b"\n\n"[..]][..], &[b"\r\n\r\n"], &[b"\n", b"\n"], &[b"\r\n", b"\r", b"\n"]] {
            size.read(&big).unwrap();
            for piece in end {
                size.read(piece).unwrap();
            }
        }
        // A line's end is not an event's: the event goes on past the limit.
        size.read(&big).unwrap();
        size.read(b"\r\n").unwrap();
        assert!(size.read(&big).unwrap_err().contains("an event of the stream is larger than 4 MiB"));
    }

    #[tokio::test]
    async fn a_byte_order_mark_is_taken_off_however_the_body_is_cut() {
        let whole: &[u8] = b"\xEF\xBB\xBFdata: one\n\ndata: two\n\n";
        let expected = vec![Ok("one".to_string()), Ok("two".to_string())];
        for cut in 0..=whole.len() {
            let (a, b) = whole.split_at(cut);
            assert_eq!(events(&[a, b]).await, expected, "cut at {cut}");
        }
        let bytewise: Vec<&[u8]> = whole.chunks(1).collect();
        assert_eq!(events(&bytewise).await, expected);
        // No mark, an empty body, a mark alone: read as they are.
        assert_eq!(events(&[b"data: one\n\ndata: two\n\n"]).await, expected);
        assert_eq!(events(&[]).await, vec![]);
        assert_eq!(events(&[BOM]).await, vec![]);
        // A mark later in the body is text, as the SSE format says.
        assert_eq!(events(&[b"data: a\xEF\xBB\xBFb\n\n"]).await, vec![Ok("a\u{feff}b".to_string())]);
    }
}
