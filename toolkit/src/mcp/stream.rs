//! The two pumps between a byte-stream client (stdio) and the SDK: newline-delimited
//! JSON-RPC in, checked by the [`Gate`]; the SDK's messages and the gate's answers out,
//! one whole line at a time.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::gate::{Gate, Verdict, error};

/// The longest message read from a client, in bytes; a longer line is refused (the
/// toolbox refuses arguments over its own, smaller, limit anyway).
const MAX_MESSAGE: usize = 16 << 20;

/// Reads the client's messages and passes those the gate lets through to the SDK.
///
/// A line that is not JSON is skipped (there is no id to answer to); a message
/// pretty-printed over several lines is gathered until it parses. At the end of the
/// client's input (or a read error), `closed` is cancelled and the SDK sees its input
/// end.
pub(crate) async fn pump_in<R, W>(reader: R, mut to_sdk: W, replies: mpsc::Sender<Value>, closed: CancellationToken)
where
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
/// until both have ended (or the client cannot be written to).
pub(crate) async fn pump_out<R, W>(from_sdk: R, mut replies: mpsc::Receiver<Value>, mut writer: W)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut sdk = BufReader::new(from_sdk).lines();
    let (mut sdk_open, mut replies_open) = (true, true);
    while sdk_open || replies_open {
        let line = tokio::select! {
            line = sdk.next_line(), if sdk_open => match line {
                Ok(Some(line)) => line,
                Ok(None) | Err(_) => {
                    sdk_open = false;
                    continue;
                }
            },
            reply = replies.recv(), if replies_open => match reply {
                Some(reply) => reply.to_string(),
                None => {
                    replies_open = false;
                    continue;
                }
            },
        };
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
    }
    let _ = writer.flush().await;
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
