//! The audit log: one JSON line per call, written off the calling task.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::path::Path;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

mod writer;

use self::writer::{Format, Out, write_all};
use super::redact::Redactor;
use crate::record::{CallRecord, RecordSink};

/// A [`RecordSink`] that writes every call as one line of JSON (JSON Lines).
///
/// It is a sink, not a hook, on purpose: a record is made for *every* call, including
/// calls a hook blocked, calls answered from a cache, and calls naming a tool that does
/// not exist (no before or after hook sees those), and it knows the outcome, which hooks
/// acted, and how long the whole call took. An audit trail must not miss any of them.
///
/// Each line holds:
///
/// | field | |
/// |---|---|
/// | `started_at` | when the call started, RFC 3339 in UTC, to the millisecond |
/// | `call_id`, `tool` | the call's id and the tool name the model used |
/// | `session`, `agent`, `task` | the [`Scope`](crate::Scope)'s labels (or `null`) |
/// | `parent` | the outer call's id, for the calls of an agent used as a tool (only then) |
/// | `arguments` | the arguments the tool ran with ([`CallRecord::effective_arguments`]), as JSON (a string if they were not JSON) |
/// | `model_arguments` | only when a hook rewrote them: the arguments as the model sent them (what a [`Replay`](crate::testing::Replay) sends again) |
/// | `outcome`, `kind` | `ok`, `blocked`, `cached`, `failed` or `recovered`, and the error kind (or `null`) |
/// | `hooks` | the hooks that acted: `hook`, `event`, `effect`, and `detail` when one failed or retried |
/// | `attempts` | only after retries: how many times the tool ran |
/// | `result_head` | the first characters of what the model saw (200 by default) |
/// | `result_bytes` | the whole result's length in bytes |
/// | `duration_ms` | how long the call took, in milliseconds |
///
/// With a [`Redactor`], arguments and result head are redacted before they are written.
/// The head is redacted on its first 512 characters past the cut, so a secret that
/// begins before the cut is recognized whole; only one longer than 512 characters could
/// leave its start behind.
///
/// # Off the calling task
///
/// [`record`](RecordSink::record) only puts the shared record on a bounded queue (1024
/// records by default); a background thread redacts, formats and writes through a
/// buffer, and pushes the buffer to the file whenever the queue runs empty and at least
/// every 100 ms under load ([`flush_every`](AuditLogBuilder::flush_every)). When the
/// queue is full, the calling task **waits** for room: a record is never dropped, so a
/// writer slower than the calls slows the calls down.
///
/// # What a crash loses
///
/// A process killed outright (`kill -9`, an abort) loses what was still in memory: the
/// queue and the unflushed buffer, so at most `capacity` records plus 100 ms of lines.
/// At full load (the writer the bottleneck) that was about 1,200 records, 35 ms of
/// calls, in our measurement (`tests/audit_log.rs` kills a loaded child with `kill -9`;
/// the former defaults, an 8,192-record queue flushed only when idle, lost 8,300). What reached the file
/// survives a killed process; to survive a power cut or a kernel crash too, choose
/// [`Fsync::OnFlush`] (each push to the file is followed by `fdatasync`).
///
/// [`flush`](AuditLog::flush) waits until everything queued before it is written;
/// [`shutdown`](AuditLog::shutdown) does that and stops the thread; dropping the last
/// handle does the same. Records arriving after a shutdown are not written (an error is
/// logged).
///
/// The handle is cheap to clone: keep one to flush or shut down, give one to
/// [`Toolbox::with_sink`](crate::Toolbox::with_sink).
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::{AuditLog, Redactor};
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 { a + b }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let path = std::env::temp_dir().join(format!("audit-doc-{}.jsonl", std::process::id()));
/// let log = AuditLog::builder().redactor(Redactor::new()).to_file(&path).unwrap();
/// let tools = toolbox![add].with_sink(log.clone());
/// tools.call(ToolCall::new("call_1", "add", r#"{"a": 2, "b": 40}"#)).await;
/// log.flush().unwrap();
///
/// let text = std::fs::read_to_string(&path).unwrap();
/// let line: serde_json::Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
/// assert_eq!(line["call_id"], "call_1");
/// assert_eq!(line["arguments"], serde_json::json!({"a": 2, "b": 40}));
/// assert_eq!(line["outcome"], "ok");
/// assert_eq!(line["result_head"], "42");
/// # std::fs::remove_file(&path).ok();
/// # }
/// ```
#[derive(Clone)]
pub struct AuditLog {
    inner: Arc<Inner>,
}

impl fmt::Debug for AuditLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AuditLog").field("head_chars", &self.inner.head).finish_non_exhaustive()
    }
}

/// Why the audit log could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuditError {
    /// The log was shut down.
    #[error("the audit log is shut down")]
    Closed,
    /// Writing failed (the first error since the last flush).
    #[error("the audit log could not be written: {0}")]
    Io(#[from] io::Error),
}

/// Options of an [`AuditLog`]: queue capacity, result head length, redaction.
///
/// ```
/// use toolkit::hooks::{AuditLog, Redactor};
/// let log = AuditLog::builder()
///     .capacity(1024)
///     .head_chars(500)
///     .redactor(Redactor::new().redact_keys(["ssn"]))
///     .to_writer(std::io::sink());
/// # drop(log);
/// ```
#[derive(Debug, Clone)]
pub struct AuditLogBuilder {
    capacity: usize,
    head: usize,
    redactor: Option<Redactor>,
    flush_every: Duration,
    fsync: Fsync,
}

/// Whether the audit file is synced to disk ([`AuditLogBuilder::fsync`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Fsync {
    /// Written lines are handed to the operating system (they survive the process being
    /// killed, not a power cut). The default.
    #[default]
    Never,
    /// Every push of the buffer to the file (at least every flush interval under load,
    /// and on `flush` and `shutdown`) is followed by `fdatasync`: lines also survive a
    /// power cut, at the cost of a disk sync per push.
    OnFlush,
}

/// How far past the head a redactor looks, so that a secret that starts before the cut
/// is seen whole.
const REDACTION_MARGIN: usize = 512;

impl AuditLogBuilder {
    /// How many records may wait for the writer (default 1024; at least 1, at most
    /// 1,048,576: the queue's slots are allocated when the log starts). When it is full,
    /// calls wait. A crash loses at most this many records besides the buffer.
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.clamp(1, 1 << 20);
        self
    }

    /// How many characters of each result to keep (default 200).
    pub fn head_chars(mut self, chars: usize) -> Self {
        self.head = chars;
        self
    }

    /// Redacts arguments and result heads before writing them.
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// The longest a written line may stay in the buffer under sustained load (default
    /// 100 ms; the buffer also goes out whenever the queue runs empty).
    pub fn flush_every(mut self, interval: Duration) -> Self {
        self.flush_every = interval;
        self
    }

    /// Whether to sync the file to disk after each push of the buffer (default
    /// [`Fsync::Never`]). Applies to [`to_file`](AuditLogBuilder::to_file).
    pub fn fsync(mut self, policy: Fsync) -> Self {
        self.fsync = policy;
        self
    }

    /// Appends to the file at `path` (created if missing).
    ///
    /// An error, not a panic, when the file cannot be opened or the writer thread
    /// cannot start.
    pub fn to_file(self, path: impl AsRef<Path>) -> Result<AuditLog, AuditError> {
        let file = OpenOptions::new().create(true).append(true).open(path)?;
        let sync = match self.fsync {
            Fsync::OnFlush => Some(file.try_clone()?),
            Fsync::Never => None,
        };
        self.start(file, sync)
    }

    /// Writes to `writer`.
    ///
    /// # Panics
    ///
    /// If the operating system cannot start the writer thread (as
    /// [`std::thread::spawn`] does).
    pub fn to_writer(self, writer: impl Write + Send + 'static) -> AuditLog {
        match self.start(writer, None) {
            Ok(log) => log,
            Err(e) => panic!("failed to spawn the audit log's writer thread: {e}"),
        }
    }

    /// Starts the writer thread on `writer`.
    fn start(self, writer: impl Write + Send + 'static, sync: Option<File>) -> Result<AuditLog, AuditError> {
        let (queue, received) = sync_channel(self.capacity);
        let capture = if self.redactor.is_some() { self.head.saturating_add(REDACTION_MARGIN) } else { self.head };
        let format = Format { head: self.head, capture, redactor: self.redactor.clone() };
        let out = Out {
            buffer: BufWriter::with_capacity(64 * 1024, Box::new(writer) as Box<dyn Write + Send>),
            sync,
            every: self.flush_every,
            last: Instant::now(),
        };
        let thread = std::thread::Builder::new()
            .name("toolkit-audit-log".to_owned())
            .spawn(move || write_all(received, out, format))?;
        Ok(AuditLog { inner: Arc::new(Inner { queue, head: self.head, thread: Mutex::new(Some(thread)) }) })
    }
}

impl AuditLog {
    /// The options, to set before choosing where to write.
    pub fn builder() -> AuditLogBuilder {
        AuditLogBuilder {
            capacity: 1024,
            head: 200,
            redactor: None,
            flush_every: Duration::from_millis(100),
            fsync: Fsync::Never,
        }
    }

    /// Appends to the file at `path` (created if missing), with the default options.
    pub fn to_file(path: impl AsRef<Path>) -> Result<AuditLog, AuditError> {
        AuditLog::builder().to_file(path)
    }

    /// Writes to `writer`, with the default options.
    ///
    /// # Panics
    ///
    /// If the operating system cannot start the writer thread (as
    /// [`std::thread::spawn`] does).
    pub fn to_writer(writer: impl Write + Send + 'static) -> AuditLog {
        AuditLog::builder().to_writer(writer)
    }

    /// Waits until every record queued before this call is written and the writer is
    /// flushed; reports the first write error since the last flush.
    pub fn flush(&self) -> Result<(), AuditError> {
        let (reply, done) = sync_channel(1);
        self.inner.queue.send(Message::Flush(reply)).map_err(|_| AuditError::Closed)?;
        done.recv().map_err(|_| AuditError::Closed)?.map_err(AuditError::Io)
    }

    /// Writes everything queued, flushes, and stops the writer thread. Later records
    /// are not written; later calls of `flush` and `shutdown` return
    /// [`AuditError::Closed`].
    pub fn shutdown(&self) -> Result<(), AuditError> {
        self.inner.shutdown()
    }
}

impl RecordSink for AuditLog {
    fn record(&self, record: &CallRecord) {
        self.record_shared(&Arc::new(record.clone()));
    }

    fn keeps_records(&self) -> bool {
        true
    }

    /// Queues the shared record itself: the caller pays one reference count, and the
    /// writer thread does the rest (the line, the redaction, the I/O).
    fn record_shared(&self, record: &Arc<CallRecord>) {
        if self.inner.queue.send(Message::Record(Arc::clone(record))).is_err() {
            tracing::error!(gen_ai.tool.call.id = %record.call_id, "the audit log is shut down; this call was not written to it");
        }
    }
}

struct Inner {
    queue: SyncSender<Message>,
    head: usize,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Inner {
    fn shutdown(&self) -> Result<(), AuditError> {
        let Some(thread) = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return Err(AuditError::Closed);
        };
        let (reply, done) = sync_channel(1);
        let sent = self.queue.send(Message::Shutdown(reply)).is_ok();
        let result = if sent { done.recv().unwrap_or(Ok(())) } else { Ok(()) };
        if thread.join().is_err() {
            return Err(AuditError::Io(io::Error::other("the audit log's writer thread panicked")));
        }
        Ok(result?)
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        match self.shutdown() {
            Ok(()) | Err(AuditError::Closed) => {}
            Err(e) => tracing::error!(error = %e, "the audit log failed while shutting down"),
        }
    }
}

enum Message {
    Record(Arc<CallRecord>),
    Flush(SyncSender<io::Result<()>>),
    Shutdown(SyncSender<io::Result<()>>),
}

/// A time as RFC 3339 in UTC with milliseconds, `2023-11-14T22:13:20.000Z`: the audit
/// log's format, for a [`CallRecord::started_at`] or any other `SystemTime`.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let t = UNIX_EPOCH + Duration::from_millis(1_700_000_000_000);
/// assert_eq!(toolkit::hooks::Rfc3339(t).to_string(), "2023-11-14T22:13:20.000Z");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rfc3339(pub SystemTime);

impl fmt::Display for Rfc3339 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let since = self.0.duration_since(UNIX_EPOCH).unwrap_or_default();
        let secs = since.as_secs();
        let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
        // Days since the epoch to a civil date (the proleptic Gregorian calendar, in
        // 400-year eras).
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = doy - (153 * mp + 2) / 5 + 1;
        let month = if mp < 10 { mp + 3 } else { mp - 9 };
        let year = yoe + era * 400 + i64::from(month <= 2);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
            rem / 3_600,
            rem % 3_600 / 60,
            rem % 60,
            since.subsec_millis()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Rfc3339;
    use super::writer::head;
    use std::time::{Duration, UNIX_EPOCH};

    #[test]
    fn timestamps_are_rfc3339_utc() {
        let at = |secs: u64, ms: u64| {
            Rfc3339(UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(ms)).to_string()
        };
        assert_eq!(at(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(at(1_700_000_000, 123), "2023-11-14T22:13:20.123Z");
        assert_eq!(at(951_782_400, 0), "2000-02-29T00:00:00.000Z");
        assert_eq!(at(4_102_444_799, 999), "2099-12-31T23:59:59.999Z");
    }

    #[test]
    fn heads_end_on_a_character_boundary() {
        assert_eq!(head("日本語のテキスト", 3), "日本語");
        assert_eq!(head("ab", 5), "ab");
    }
}
