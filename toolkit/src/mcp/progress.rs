//! A call's progress, to the MCP client that asked for it (`_meta.progressToken`):
//! `notifications/progress`, at most one per [`EVERY`] per call, and always the last.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{ProgressNotificationParam, ProgressToken};
use rmcp::service::{Peer, RoleServer};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::progress::{Progress, ProgressSink};

/// The shortest time between two notifications of one call.
const EVERY: Duration = Duration::from_millis(100);

/// The progress sink of one call: reports pass on at most once per [`EVERY`]; one that
/// comes sooner is kept, replaced by any later one, and sent when the call ends.
pub(super) struct Relay {
    token: ProgressToken,
    state: Mutex<State>,
    to_client: mpsc::UnboundedSender<ProgressNotificationParam>,
}

struct State {
    last_sent: Option<Instant>,
    held: Option<ProgressNotificationParam>,
}

impl Relay {
    /// A relay for `token`, and the task that sends its notifications to `peer` (it ends
    /// once the relay is [`finish`](Relay::finish)ed and dropped).
    pub(super) fn start(peer: Peer<RoleServer>, token: ProgressToken) -> (Arc<Relay>, JoinHandle<()>) {
        let (to_client, mut queue) = mpsc::unbounded_channel::<ProgressNotificationParam>();
        let sending = tokio::spawn(async move {
            while let Some(param) = queue.recv().await {
                if let Err(error) = peer.notify_progress(param).await {
                    tracing::debug!(%error, "a progress notification could not be sent");
                    break;
                }
            }
        });
        let state = Mutex::new(State { last_sent: None, held: None });
        (Arc::new(Relay { token, state, to_client }), sending)
    }

    /// Sends the report held back, if any: the client sees the last progress before
    /// the result.
    pub(super) fn finish(&self) {
        let held = self.lock().held.take();
        if let Some(param) = held {
            let _ = self.to_client.send(param);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl ProgressSink for Arc<Relay> {
    fn progress(&self, report: &Progress<'_>) {
        let mut param = ProgressNotificationParam::new(self.token.clone(), report.done);
        if let Some(total) = report.total {
            param = param.with_total(total);
        }
        if !report.message.is_empty() {
            param = param.with_message(report.message);
        }
        let mut state = self.lock();
        let now = Instant::now();
        if state.last_sent.is_some_and(|at| now.duration_since(at) < EVERY) {
            state.held = Some(param);
            return;
        }
        state.last_sent = Some(now);
        state.held = None;
        let _ = self.to_client.send(param);
    }
}
