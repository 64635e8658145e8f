//! The audit log's writer thread: entries copied from records, redacted and formatted
//! into JSON lines, written through a buffer pushed out when the queue runs empty, at
//! least every flush interval, and on `flush` and `shutdown`.

use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;
use serde_json::Value;

use super::{Message, Rfc3339};
use crate::hooks::redact::Redactor;
use crate::record::{CallRecord, HookAction, Outcome};

/// What a line needs, copied from the record on the calling task.
struct Entry {
    started_at: SystemTime,
    call_id: String,
    tool: String,
    session: Option<Arc<str>>,
    agent: Option<Arc<str>>,
    task: Option<Arc<str>>,
    parent: Option<Arc<str>>,
    arguments: String,
    /// The arguments as the model sent them, when a hook rewrote them.
    model_arguments: Option<String>,
    outcome: Outcome,
    hooks: Vec<HookAction>,
    attempts: u32,
    head: String,
    result_bytes: usize,
    /// Boxed: most results have none, and an entry is moved through the queue.
    parts: Option<Box<[crate::parts::PartSummary]>>,
    duration: Duration,
}

impl Entry {
    fn new(record: &CallRecord, capture: usize) -> Self {
        Entry {
            started_at: record.started_at,
            call_id: record.call_id.clone(),
            tool: record.tool.clone(),
            session: record.session.clone(),
            agent: record.agent.clone(),
            task: record.task.clone(),
            parent: record.parent.clone(),
            arguments: record.effective_arguments().to_owned(),
            model_arguments: record.rewritten_arguments.as_ref().map(|_| record.arguments.clone()),
            outcome: record.outcome,
            hooks: record.hooks.clone(),
            attempts: record.attempts,
            head: head(&record.content, capture).to_owned(),
            result_bytes: record.content.len(),
            parts: (!record.parts.is_empty()).then(|| record.parts.clone().into_boxed_slice()),
            duration: record.duration,
        }
    }
}

/// The first `chars` characters of `text`.
pub(super) fn head(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// How the writer thread turns entries into lines.
pub(super) struct Format {
    pub(super) head: usize,
    /// How many characters of a result are read for the line (more than `head` with a
    /// redactor, so a secret cut by the head is still recognised).
    pub(super) capture: usize,
    pub(super) redactor: Option<Redactor>,
}

#[derive(Serialize)]
struct Line<'a> {
    started_at: String,
    call_id: &'a str,
    session: Option<&'a str>,
    agent: Option<&'a str>,
    task: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<&'a str>,
    tool: &'a str,
    arguments: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    model_arguments: Option<Value>,
    outcome: &'static str,
    kind: Option<&'static str>,
    hooks: &'a [HookAction],
    #[serde(skip_serializing_if = "is_one")]
    attempts: u32,
    result_head: Cow<'a, str>,
    result_bytes: usize,
    /// The result's parts: kind, MIME type, size and SHA-256, never the bytes.
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    parts: &'a [crate::parts::PartSummary],
    duration_ms: f64,
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Format {
    /// Arguments as JSON (a string if they are not JSON), redacted when there is a
    /// redactor.
    fn arguments(&self, text: &str) -> Value {
        let mut arguments = serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.to_owned()));
        if let Some(redactor) = &self.redactor {
            match &mut arguments {
                Value::String(text) => {
                    if let Cow::Owned(redacted) = redactor.redact(text) {
                        *text = redacted;
                    }
                }
                value => {
                    redactor.redact_json(value);
                }
            }
        }
        arguments
    }

    /// Formats `entry` into the scratch buffer `line`, then writes it to `out`.
    fn write(&self, entry: &Entry, line: &mut Vec<u8>, out: &mut impl Write) -> io::Result<()> {
        line.clear();
        self.line(entry, line).map_err(io::Error::other)?;
        out.write_all(line)
    }

    fn line(&self, entry: &Entry, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let arguments = self.arguments(&entry.arguments);
        let model_arguments = entry.model_arguments.as_deref().map(|sent| self.arguments(sent));
        let result_head = match &self.redactor {
            Some(redactor) => Cow::Owned(redactor.redact_head(&entry.head, self.head)),
            None => Cow::Borrowed(head(&entry.head, self.head)),
        };
        let kind = match entry.outcome {
            Outcome::Failed(kind) | Outcome::Recovered(kind) => Some(kind.as_str()),
            _ => None,
        };
        let line = Line {
            started_at: Rfc3339(entry.started_at).to_string(),
            call_id: &entry.call_id,
            session: entry.session.as_deref(),
            agent: entry.agent.as_deref(),
            task: entry.task.as_deref(),
            parent: entry.parent.as_deref(),
            tool: &entry.tool,
            arguments,
            model_arguments,
            outcome: entry.outcome.label(),
            kind,
            hooks: &entry.hooks,
            attempts: entry.attempts,
            result_head,
            result_bytes: entry.result_bytes,
            parts: entry.parts.as_deref().unwrap_or_default(),
            duration_ms: (entry.duration.as_nanos() as f64 / 1_000.0).round() / 1_000.0,
        };
        serde_json::to_writer(&mut *out, &line)?;
        out.push(b'\n');
        Ok(())
    }
}

/// The writer thread: lines in queue order; the buffer goes to the writer whenever
/// the queue runs empty, on `Flush`, and on `Shutdown`.
/// How long the writer waits for more records after catching up, before it sleeps
/// until woken: records of a burst then cost their callers no wake-up, and a lone
/// record is written within this long.
const BURST_PAUSE: std::time::Duration = std::time::Duration::from_millis(1);

/// The writer's output: the buffer, the file to sync (if asked), and when the buffer
/// last went out.
pub(super) struct Out {
    pub(super) buffer: BufWriter<Box<dyn Write + Send>>,
    pub(super) sync: Option<File>,
    pub(super) every: Duration,
    pub(super) last: Instant,
}

impl Out {
    /// Pushes the buffer to the writer (and syncs the file, if asked).
    fn flush(&mut self) -> io::Result<()> {
        self.last = Instant::now();
        self.buffer.flush()?;
        match &self.sync {
            Some(file) => file.sync_data(),
            None => Ok(()),
        }
    }

    /// Pushes the buffer out if it has waited the flush interval.
    fn flush_if_due(&mut self) -> io::Result<()> {
        if self.last.elapsed() >= self.every { self.flush() } else { Ok(()) }
    }
}

pub(super) fn write_all(queue: Receiver<Message>, mut out: Out, format: Format) {
    let mut failed: Option<io::Error> = None;
    let note = |failed: &mut Option<io::Error>, e: io::Error| {
        tracing::error!(error = %e, "the audit log could not be written");
        failed.get_or_insert(e);
    };
    let mut line = Vec::with_capacity(1024);
    let mut busy = false;
    loop {
        let message = match queue.try_recv() {
            Ok(message) => message,
            // Caught up after writing: pause before parking, so the next records of a
            // burst find the writer awake and their callers pay no wake-up (a system
            // call per record otherwise, several times the cost of the call itself).
            Err(TryRecvError::Empty) if busy => {
                busy = false;
                std::thread::sleep(BURST_PAUSE);
                continue;
            }
            Err(TryRecvError::Empty) => {
                if let Err(e) = out.flush() {
                    note(&mut failed, e);
                }
                match queue.recv() {
                    Ok(message) => message,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        match message {
            Message::Record(record) => {
                busy = true;
                let written = format.write(&Entry::new(&record, format.capture), &mut line, &mut out.buffer);
                if let Err(e) = written.and_then(|()| out.flush_if_due()) {
                    note(&mut failed, e);
                }
            }
            Message::Flush(reply) => {
                let flushed = out.flush();
                let _ = reply.send(flushed.and(failed.take().map_or(Ok(()), Err)));
            }
            Message::Shutdown(reply) => {
                // Records that raced the shutdown are written too.
                while let Ok(message) = queue.try_recv() {
                    if let Message::Record(record) = message
                        && let Err(e) = format.write(&Entry::new(&record, format.capture), &mut line, &mut out.buffer)
                    {
                        note(&mut failed, e);
                    }
                }
                let flushed = out.flush();
                let _ = reply.send(flushed.and(failed.take().map_or(Ok(()), Err)));
                return;
            }
        }
    }
    if let Err(e) = out.flush() {
        note(&mut failed, e);
    }
}
