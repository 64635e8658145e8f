//! The two pumps between a byte-stream client (stdio) and the SDK: newline-delimited
//! JSON-RPC in, checked by the [`Gate`]; the SDK's messages and the gate's answers out,
//! one whole line at a time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use super::gate::{Gate, Verdict, error};

/// The longest message read from a client, in bytes; a longer line is refused (the
/// toolbox refuses arguments over its own, smaller, limit anyway).
const MAX_MESSAGE: usize = 16 << 20;

/// The requests of one connection whose answers the client has not been sent yet: at
/// most the window's size. When it is full the server stops reading the client's input
/// until an answer is written, so a client that sends without reading holds a bounded
/// amount of the server's memory, not one request (and one answer) per line it wrote.
pub(crate) struct Window {
    slots: Arc<Semaphore>,
    /// Request id (its JSON text) → the slot it holds.
    held: Mutex<HashMap<String, OwnedSemaphorePermit>>,
}

impl Window {
    pub(crate) fn new(size: usize) -> Arc<Window> {
        Arc::new(Window { slots: Arc::new(Semaphore::new(size.max(1))), held: Mutex::default() })
    }

    /// Waits for a slot for request `id` (reading stops meanwhile).
    async fn hold(&self, id: &Value) {
        let Ok(permit) = Arc::clone(&self.slots).acquire_owned().await else { return };
        // A repeated id replaces (and frees) the earlier one's slot: one answer comes.
        self.lock().insert(id.to_string(), permit);
    }

    /// The request `id` was answered (or cancelled): its slot is free.
    fn release(&self, id: &Value) {
        self.lock().remove(&id.to_string());
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, OwnedSemaphorePermit>> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Reads the client's messages and passes those the gate lets through to the SDK.
///
/// A line that is not JSON is skipped (there is no id to answer to); a message
/// pretty-printed over several lines is gathered until it parses. At the end of the
/// client's input (or a read error), `closed` is cancelled and the SDK sees its input
/// end. A request passed on holds a slot of `window` until its answer is written.
pub(crate) async fn pump_in<R, W>(
    reader: R,
    mut to_sdk: W,
    replies: mpsc::Sender<Value>,
    closed: CancellationToken,
    window: Arc<Window>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(reader);
    let mut gate = Gate::default();
    let mut line = Vec::new();
    // A message that began on an earlier line and has not closed yet.
    let mut pending = Gather::default();
    loop {
        match read_line(&mut reader, &mut line).await {
            Ok(Line::End) | Err(_) => break,
            // A line of nothing but spaces is a blank line, however long.
            Ok(Line::TooLong { blank: true }) => continue,
            Ok(Line::TooLong { blank: false }) => {
                pending = Gather::default();
                let refused = error(&Value::Null, -32600, "Invalid Request: the message is larger than 16 MiB");
                if replies.send(refused).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(Line::Read) => {}
        }
        let Ok(text) = std::str::from_utf8(&line) else {
            // Never served as something else than what was sent (a replacement character
            // in a path or an argument): refused, as JSON must be UTF-8.
            pending = Gather::default();
            let refused = error(&Value::Null, -32700, "Parse error: the message is not valid UTF-8");
            if replies.send(refused).await.is_err() {
                break;
            }
            continue;
        };
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let alone = serde_json::from_str::<Value>(text);
        let parsed = match alone {
            // A line that is a whole message by itself is one, even after the start of
            // another (which it ends: a stray `[` or a cut line must not swallow the
            // requests after it).
            Ok(message) if pending.is_empty() || is_message(&message) => Ok(message),
            _ if !pending.is_empty() => match pending.push(text) {
                Gathered::Open => continue,
                Gathered::Closed(whole) => serde_json::from_str::<Value>(&whole),
            },
            Err(e) if e.is_eof() && text.starts_with(['{', '[']) => {
                pending.push(text);
                continue;
            }
            other => other,
        };
        pending = Gather::default();
        let message = match parsed {
            Ok(message) => message,
            Err(e) if e.to_string().starts_with("recursion limit exceeded") => {
                // JSON, but deeper than the parser goes: say so rather than stay silent.
                let refused =
                    error(&Value::Null, -32700, "Parse error: the message is nested too deeply (over 128 levels)");
                if replies.send(refused).await.is_err() {
                    break;
                }
                continue;
            }
            Err(e) => {
                tracing::debug!(error = %e, "skipping a line that is not JSON");
                continue;
            }
        };
        match gate.check(&message) {
            Verdict::Forward => {
                match (message.get("method"), message.get("id")) {
                    (Some(_), Some(id)) => window.hold(id).await,
                    // A cancelled request gets no answer (the protocol says none is sent).
                    (Some(Value::String(method)), None) if method == "notifications/cancelled" => {
                        if let Some(id) = message.get("params").and_then(|p| p.get("requestId")) {
                            window.release(id);
                        }
                    }
                    _ => {}
                }
                let mut bytes = serde_json::to_vec(&message).unwrap_or_default();
                bytes.push(b'\n');
                if to_sdk.write_all(&bytes).await.is_err() {
                    break;
                }
            }
            Verdict::Drop(why) => tracing::debug!(why, "ignoring a message"),
            Verdict::Reply(reply) => {
                if replies.send(reply).await.is_err() {
                    break;
                }
            }
        }
    }
    closed.cancel();
    let _ = to_sdk.shutdown().await;
}

/// Writes the SDK's messages and the gate's answers to the client, each a whole line,
/// until both have ended (or the client cannot be written to). An answer written frees
/// its request's slot of `window`.
pub(crate) async fn pump_out<R, W>(from_sdk: R, mut replies: mpsc::Receiver<Value>, mut writer: W, window: Arc<Window>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut sdk = BufReader::new(from_sdk).lines();
    let (mut sdk_open, mut replies_open) = (true, true);
    while sdk_open || replies_open {
        let (line, from_sdk) = tokio::select! {
            line = sdk.next_line(), if sdk_open => match line {
                Ok(Some(line)) => (line, true),
                Ok(None) | Err(_) => {
                    sdk_open = false;
                    continue;
                }
            },
            reply = replies.recv(), if replies_open => match reply {
                Some(reply) => (reply.to_string(), false),
                None => {
                    replies_open = false;
                    continue;
                }
            },
        };
        // An answer of the SDK's: its request's slot is freed once it is written.
        let answered = if from_sdk { answer_id(&line) } else { None };
        // One write per message (on stdout each write is a hop to a blocking thread).
        let mut bytes = line.into_bytes();
        bytes.push(b'\n');
        let written = async {
            writer.write_all(&bytes).await?;
            writer.flush().await
        };
        if written.await.is_err() {
            break;
        }
        if let Some(id) = answered {
            window.release(&id);
        }
    }
    let _ = writer.flush().await;
}

/// The id of a response (a message with an `id` and no `method`), read without building
/// the rest of the message.
fn answer_id(line: &str) -> Option<Value> {
    #[derive(serde::Deserialize)]
    struct Head {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    let head: Head = serde_json::from_str(line).ok()?;
    if head.method.is_some() { None } else { head.id }
}

/// Whether `value` is a JSON-RPC message (or a batch of them), not a piece of one.
fn is_message(value: &Value) -> bool {
    match value {
        Value::Object(map) => map.contains_key("jsonrpc"),
        Value::Array(items) => items.first().is_some_and(|item| item.get("jsonrpc").is_some()),
        _ => false,
    }
}

/// A message written over several lines, being gathered: its text so far, and how many
/// of its brackets are open (outside strings). Each line is scanned once, and the whole
/// text parsed once, when its brackets close: parsing it again at every line would take
/// time quadratic in its length.
#[derive(Default)]
struct Gather {
    text: String,
    open: usize,
}

enum Gathered {
    /// Not closed yet.
    Open,
    /// Closed, or broken (a bracket closed that was not open, a string left open at a
    /// line's end, over [`MAX_MESSAGE`]): the text, for the parser to accept or refuse.
    Closed(String),
}

impl Gather {
    fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    fn push(&mut self, line: &str) -> Gathered {
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(line);
        let (mut in_string, mut escaped, mut broken) = (false, false, false);
        for byte in line.bytes() {
            match byte {
                _ if escaped => escaped = false,
                b'\\' if in_string => escaped = true,
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'{' | b'[' => self.open += 1,
                b'}' | b']' => match self.open.checked_sub(1) {
                    Some(open) => self.open = open,
                    None => broken = true,
                },
                _ => {}
            }
        }
        if self.open == 0 || in_string || broken || self.text.len() > MAX_MESSAGE {
            return Gathered::Closed(std::mem::take(&mut self.text));
        }
        Gathered::Open
    }
}

enum Line {
    Read,
    /// Longer than [`MAX_MESSAGE`]; `blank` when it held nothing but ASCII whitespace.
    TooLong {
        blank: bool,
    },
    End,
}

/// Reads one line (without its newline) into `line`, at most [`MAX_MESSAGE`] bytes; the
/// rest of a longer line is read and discarded.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    let mut blank = true;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                Line::End
            } else if too_long {
                Line::TooLong { blank }
            } else {
                Line::Read
            });
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        blank = blank && chunk.iter().all(u8::is_ascii_whitespace);
        if !too_long {
            if line.len() + chunk.len() > MAX_MESSAGE {
                too_long = true;
                line.clear();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = done.unwrap_or(available.len());
        reader.consume(used);
        if done.is_some() {
            return Ok(if too_long { Line::TooLong { blank } } else { Line::Read });
        }
    }
}
