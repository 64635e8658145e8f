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
    // A message that began on an earlier line and has not parsed yet.
    let mut pending = String::new();
    loop {
        match read_line(&mut reader, &mut line).await {
            Ok(Line::End) | Err(_) => break,
            Ok(Line::TooLong) => {
                pending.clear();
                let refused = error(&Value::Null, -32600, "Invalid Request: the message is larger than 16 MiB");
                if replies.send(refused).await.is_err() {
                    break;
                }
                continue;
            }
            Ok(Line::Read) => {}
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let gathered = if pending.is_empty() { None } else { Some(format!("{pending}\n{text}")) };
        let parsed = match gathered.as_deref().map(serde_json::from_str::<Value>) {
            Some(Ok(message)) => Ok(message),
            Some(Err(e)) if e.is_eof() && gathered.as_ref().is_some_and(|g| g.len() <= MAX_MESSAGE) => {
                pending = gathered.unwrap_or_default();
                continue;
            }
            // What was gathered is not a message; this line may be one on its own.
            Some(Err(_)) | None => serde_json::from_str::<Value>(text),
        };
        pending.clear();
        let message = match parsed {
            Ok(message) => message,
            Err(e) if e.is_eof() && text.starts_with(['{', '[']) => {
                pending = text.to_owned();
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

enum Line {
    Read,
    TooLong,
    End,
}

/// Reads one line (without its newline) into `line`, at most [`MAX_MESSAGE`] bytes; the
/// rest of a longer line is read and discarded.
async fn read_line<R: AsyncBufRead + Unpin>(reader: &mut R, line: &mut Vec<u8>) -> std::io::Result<Line> {
    line.clear();
    let mut too_long = false;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() && !too_long {
                Line::End
            } else if too_long {
                Line::TooLong
            } else {
                Line::Read
            });
        }
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
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
            return Ok(if too_long { Line::TooLong } else { Line::Read });
        }
    }
}
