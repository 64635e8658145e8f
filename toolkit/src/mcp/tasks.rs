//! MCP tasks (the `io.modelcontextprotocol/tasks` extension of 2026-07-28) kept in a
//! [`Store`]: a `tools/call` of a task tool, from a client that declared the extension,
//! answers at once with a task, and the call runs on in the background; `tasks/get`,
//! `tasks/update` and `tasks/cancel` read and change the task's record in the store, so
//! any replica sharing it answers them, and a restarted server still does.
//!
//! A task's record holds its status and, at the end, the `tools/call` result. The
//! process running it renews a lease next to it; a `working` task whose lease has lapsed
//! (its server stopped or crashed) is reported `failed`, saying the call may or may not
//! have taken effect: the work is not resumed, since running a call twice is what a
//! crash must never cause.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CallToolResult, CreateTaskResult, DetailedTask, ElicitRequest, ErrorData, InputRequest, InputRequests, JsonObject,
    Notification, ServerNotification, Task, TaskPayload, TaskStatus, TaskStatusNotificationParams,
};
use rmcp::service::{Peer, RoleServer};
use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use super::approval::{Approvals, approval_of, random_bytes};
use crate::digest::hex;
use crate::durable::PendingCall;
use crate::hook::Decided;
use crate::hooks::Rfc3339;
use crate::hooks::store::Store;

/// How long a task's record is kept, by default.
const DEFAULT_TTL: Duration = Duration::from_secs(3600);

/// How often clients are told to poll.
const POLL: Duration = Duration::from_secs(1);

/// How often the running process renews a task's lease; it lapses after three periods.
const LEASE: Duration = Duration::from_secs(2);

/// The tasks of a server: which tools run as tasks, where their records are, and the
/// ones this process runs.
pub(super) struct Tasks {
    store: Arc<dyn Store>,
    tools: HashSet<String>,
    ttl: Duration,
    /// The tasks running in this process: what cancels them.
    running: Mutex<HashMap<String, CancellationToken>>,
}

/// What the store holds for one task.
#[derive(Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) task: DetailedTask,
    /// The tool, the call id and the arguments: what a decided call runs again with.
    pub(super) tool: String,
    pub(super) call_id: String,
    pub(super) arguments: String,
    /// The deferred call an `input_required` task waits on.
    pub(super) pending: Option<PendingCall>,
}

impl Tasks {
    pub(super) fn new(store: Arc<dyn Store>, tools: HashSet<String>) -> Tasks {
        Tasks { store, tools, ttl: DEFAULT_TTL, running: Mutex::new(HashMap::new()) }
    }

    /// The same tools and store, records kept `ttl` (before any task has run).
    pub(super) fn with_ttl_of(&self, ttl: Duration) -> Tasks {
        Tasks { store: Arc::clone(&self.store), tools: self.tools.clone(), ttl, running: Mutex::new(HashMap::new()) }
    }

    /// Whether calls of `tool` run as tasks.
    pub(super) fn runs(&self, tool: &str) -> bool {
        self.tools.contains(tool)
    }

    /// A new task's record (`working`) and what `tools/call` answers with.
    pub(super) async fn create(
        &self,
        tool: &str,
        call_id: &str,
        arguments: &str,
    ) -> Result<(String, CreateTaskResult), ErrorData> {
        let id = format!("task-{}", hex(&random_bytes::<16>()));
        let now = Rfc3339(SystemTime::now()).to_string();
        let task = Task::new(&id, TaskStatus::Working, &now, &now)
            .with_ttl_ms(millis(self.ttl))
            .with_poll_interval_ms(millis(POLL));
        let record = Record {
            task: DetailedTask::new(task.clone(), TaskPayload::Working),
            tool: tool.to_owned(),
            call_id: call_id.to_owned(),
            arguments: arguments.to_owned(),
            pending: None,
        };
        // The lease first: a `tasks/get` between the two writes must not see a lapsed one.
        self.renew(&id).await?;
        self.save(&id, &record).await?;
        Ok((id, CreateTaskResult::new(task)))
    }

    /// The record of task `id`, or an error naming it when it is unknown or expired. A
    /// `working` task whose lease has lapsed is failed first (and saved so).
    pub(super) async fn load(&self, id: &str) -> Result<Record, ErrorData> {
        let bytes = self.store.get(&key(id)).await.map_err(store_error)?;
        let Some(bytes) = bytes else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown task `{}`: it never existed here or has expired",
                    id.chars().take(80).collect::<String>()
                ),
                None,
            ));
        };
        let mut record: Record =
            serde_json::from_slice(&bytes).map_err(|e| ErrorData::internal_error(format!("task record: {e}"), None))?;
        if record.task.status() == TaskStatus::Working
            && self.store.get(&lease_key(id)).await.map_err(store_error)?.is_none()
        {
            let error = serde_json::json!({
                "code": -32603,
                "message": "the server running this task stopped before it finished; the call may or may not have \
                            taken effect: check before calling the tool again",
            });
            record.task = DetailedTask::new(record.task.task.clone(), TaskPayload::Failed { error: object(error) });
            stamp(&mut record);
            self.save(id, &record).await?;
        }
        Ok(record)
    }

    pub(super) async fn save(&self, id: &str, record: &Record) -> Result<(), ErrorData> {
        let bytes = serde_json::to_vec(record).map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        self.store.set(&key(id), bytes, Some(self.ttl)).await.map_err(store_error)
    }

    /// Renews the lease of a task this process runs.
    async fn renew(&self, id: &str) -> Result<(), ErrorData> {
        self.store.set(&lease_key(id), b"1".to_vec(), Some(LEASE * 3)).await.map_err(store_error)
    }

    /// Registers a task this process runs; the token cancels it.
    pub(super) fn track(&self, id: &str) -> CancellationToken {
        let token = CancellationToken::new();
        self.running.lock().unwrap_or_else(|e| e.into_inner()).insert(id.to_owned(), token.clone());
        token
    }

    /// Renews `id`'s lease until `token` is cancelled, and cancels it when another
    /// replica asked for it (`tasks/cancel` there).
    pub(super) async fn keep_alive(&self, id: &str, token: &CancellationToken) {
        loop {
            tokio::select! {
                () = token.cancelled() => return,
                () = tokio::time::sleep(LEASE) => {}
            }
            if let Err(error) = self.renew(id).await {
                tracing::warn!(task = id, error = %error.message, "cannot renew a task's lease");
            }
            if matches!(self.store.get(&cancel_key(id)).await, Ok(Some(_))) {
                token.cancel();
            }
        }
    }

    /// Ends a task this process ran: the lease goes, and so does its token.
    pub(super) async fn untrack(&self, id: &str) {
        self.running.lock().unwrap_or_else(|e| e.into_inner()).remove(id);
        let _ = self.store.delete(&lease_key(id)).await;
    }

    /// `tasks/cancel`: the task is cancelled (in this process now, elsewhere at its
    /// next lease renewal) and says so, unless it has already ended.
    pub(super) async fn cancel(&self, id: &str) -> Result<Option<Record>, ErrorData> {
        let mut record = self.load(id).await?;
        if record.task.status().is_terminal() {
            return Ok(None);
        }
        self.store.set(&cancel_key(id), b"1".to_vec(), Some(self.ttl)).await.map_err(store_error)?;
        if let Some(token) = self.running.lock().unwrap_or_else(|e| e.into_inner()).get(id) {
            token.cancel();
        }
        record.task = DetailedTask::new(record.task.task.clone(), TaskPayload::Cancelled);
        stamp(&mut record);
        self.save(id, &record).await?;
        Ok(Some(record))
    }

    /// Whether the task was cancelled (by any replica).
    pub(super) async fn cancelled(&self, id: &str) -> bool {
        matches!(self.store.get(&cancel_key(id)).await, Ok(Some(_)))
    }

    /// `tasks/update` on an `input_required` task: the decision its answer stands for,
    /// taken once (a second answer is refused), and the record now `working`.
    pub(super) async fn answer(
        &self,
        id: &str,
        answers: &rmcp::model::InputResponses,
    ) -> Result<(Record, Decided), ErrorData> {
        let mut record = self.load(id).await?;
        let Some(pending) = record.pending.clone().filter(|_| record.task.status() == TaskStatus::InputRequired) else {
            return Err(ErrorData::invalid_params(format!("task `{id}` is not waiting for input"), None));
        };
        let approval =
            approval_of(answers.get(super::approval::INPUT)).map_err(|m| ErrorData::invalid_params(m, None))?;
        let first = self
            .store
            .set_if_absent(&format!("{}:answer:{}", key(id), pending.digest()), b"1".to_vec(), Some(self.ttl))
            .await
            .map_err(store_error)?;
        if !first {
            return Err(ErrorData::invalid_params(format!("task `{id}` was already answered"), None));
        }
        record.task = DetailedTask::new(record.task.task.clone(), TaskPayload::Working);
        record.pending = None;
        stamp(&mut record);
        self.renew(id).await?;
        self.save(id, &record).await?;
        Ok((record, Decided { digest: pending.digest().to_owned(), approval }))
    }
}

impl Record {
    /// The task has ended with `result`.
    pub(super) fn complete(&mut self, result: &CallToolResult) {
        let value = serde_json::to_value(result).unwrap_or_default();
        self.task = DetailedTask::new(self.task.task.clone(), TaskPayload::Completed { result: object(value) });
        stamp(self);
    }

    /// The task waits for a person's decision on `pending`, asked in the form
    /// `approvals` makes.
    pub(super) fn ask(&mut self, pending: PendingCall, approvals: &Approvals) {
        let mut requests = InputRequests::new();
        let form = InputRequest::Elicitation(ElicitRequest::new(approvals.form(&pending)));
        requests.insert(super::approval::INPUT.to_owned(), form);
        self.task = DetailedTask::new(self.task.task.clone(), TaskPayload::InputRequired { input_requests: requests });
        self.pending = Some(pending);
        stamp(self);
    }
}

/// Tells `peer` the task's status now (`notifications/tasks`), if it still listens.
pub(super) async fn notify(peer: &Peer<RoleServer>, record: &Record) {
    let params = TaskStatusNotificationParams::new(record.task.clone());
    let sent = peer.send_notification(ServerNotification::TaskStatusNotification(Notification::new(params))).await;
    if let Err(error) = sent {
        tracing::debug!(%error, "task status not sent: the client no longer listens");
    }
}

fn stamp(record: &mut Record) {
    record.task.task.last_updated_at = Rfc3339(SystemTime::now()).to_string();
}

fn key(id: &str) -> String {
    format!("toolkit:mcp:task:{id}")
}

fn lease_key(id: &str) -> String {
    format!("toolkit:mcp:task:{id}:lease")
}

fn cancel_key(id: &str) -> String {
    format!("toolkit:mcp:task:{id}:cancel")
}

fn object(value: serde_json::Value) -> JsonObject {
    match value {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn store_error(error: crate::hooks::store::StoreError) -> ErrorData {
    ErrorData::internal_error(format!("the task store failed: {error}"), None)
}
