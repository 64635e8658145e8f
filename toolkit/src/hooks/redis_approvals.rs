//! Pending approvals on Redis (feature `redis`): a call waits in one process, a person
//! answers from another (a web UI, an admin tool).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;
use redis::Script;
use serde_json::{Map, Value, json};

use super::approval::{Approval, ApprovalError, ApprovalRequest, Approver};
use super::redis_store::{RedisStore, redis_ms};
use super::store::StoreError;
use crate::spec::Annotations;

/// Answers a pending request, only if it is still pending: one round trip.
const ANSWER: &str = r"
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[2])
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
return 1
";

/// An [`Approver`] whose requests wait on Redis, so that any process can list and answer
/// them: replicas of an agent or MCP server ask, one web UI decides.
///
/// A request is stored (`{toolkit:approval}:request:{id}`, with the wait as its time to
/// live; the hash tag keeps all approval keys in one Cluster slot) and indexed in a
/// sorted set by expiry; [`pending`](RedisApprovals::pending)
/// lists what is waiting, [`answer`](RedisApprovals::answer) decides one (atomically:
/// only a request still pending can be answered, once). The asking call polls for the
/// answer (every 50 ms) and, if none comes within [`wait`](RedisApprovals::wait) (5
/// minutes by default), is rejected with a message saying so. If Redis cannot be
/// reached, the approver fails, and the gate, failing closed, blocks the call.
///
/// ```no_run
/// use toolkit::hooks::{Approval, ApprovalGate, RedisApprovals, RedisStore};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let redis = RedisStore::open("redis://127.0.0.1:6379/")?;
/// // In the agent's process:
/// let gate = ApprovalGate::new(RedisApprovals::new(&redis)).destructive();
/// // In the UI's process:
/// let approvals = RedisApprovals::new(&redis);
/// for pending in approvals.pending().await? {
///     approvals.answer(&pending.id, Approval::Approve).await?;
/// }
/// # drop(gate); Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct RedisApprovals {
    store: RedisStore,
    wait: Duration,
    answer: Script,
}

/// A request waiting for an answer, from [`RedisApprovals::pending`].
#[derive(Debug, Clone, PartialEq)]
pub struct PendingApproval {
    /// What [`RedisApprovals::answer`] takes.
    pub id: String,
    /// The call awaiting a decision.
    pub request: ApprovalRequest,
}

// The approval keys share one hash tag, `{toolkit:approval}`: the scripts that touch
// several of them stay in one slot of a Redis Cluster.
const INDEX: &str = "{toolkit:approval}:pending";

fn request_key(id: &str) -> String {
    format!("{{toolkit:approval}}:request:{id}")
}

fn answer_key(id: &str) -> String {
    format!("{{toolkit:approval}}:answer:{id}")
}

fn unix_ms(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl RedisApprovals {
    /// Approvals on the server (and under the prefix) of `store`.
    pub fn new(store: &RedisStore) -> Self {
        RedisApprovals { store: store.clone(), wait: Duration::from_secs(300), answer: Script::new(ANSWER) }
    }

    /// How long a call waits for an answer before it is rejected (default 5 minutes).
    pub fn wait(mut self, wait: Duration) -> Self {
        self.wait = wait;
        self
    }

    /// The requests waiting for an answer, oldest first.
    pub async fn pending(&self) -> Result<Vec<PendingApproval>, StoreError> {
        let index = self.store.key(INDEX);
        let now = unix_ms(SystemTime::now());
        let ids: Vec<String> = self
            .store
            .bounded("pending", |mut c| async move {
                redis::cmd("ZRANGEBYSCORE").arg(&index).arg(now).arg("+inf").query_async(&mut c).await
            })
            .await?;
        let mut pending = Vec::with_capacity(ids.len());
        for id in ids {
            let key = self.store.key(&request_key(&id));
            let text: Option<String> = self
                .store
                .bounded("pending", |mut c| async move { redis::cmd("GET").arg(&key).query_async(&mut c).await })
                .await?;
            if let Some(request) = text.as_deref().and_then(decode) {
                pending.push(PendingApproval { id, request });
            }
        }
        Ok(pending)
    }

    /// Answers the request `id`; `false` if it is no longer pending (answered already,
    /// or its wait is over).
    pub async fn answer(&self, id: &str, approval: Approval) -> Result<bool, StoreError> {
        let answer = match approval {
            Approval::Approve => json!({"approve": true}),
            Approval::ApproveWith(arguments) => json!({"approve": true, "arguments": arguments}),
            Approval::Reject(message) => json!({"approve": false, "message": message}),
        };
        let mut invocation = self.answer.key(self.store.key(INDEX));
        invocation
            .key(self.store.key(&request_key(id)))
            .key(self.store.key(&answer_key(id)))
            .arg(id)
            .arg(answer.to_string())
            .arg(redis_ms(self.wait).max(1000));
        let answered: i64 =
            self.store.bounded("answer", |mut c| async move { invocation.invoke_async(&mut c).await }).await?;
        Ok(answered == 1)
    }

    /// The answer at `key`, taken (read and deleted in one step), if one was given.
    async fn take_answer(&self, key: &str) -> Result<Option<String>, StoreError> {
        let key = key.to_owned();
        self.store
            .bounded("wait", |mut c| async move { redis::cmd("GETDEL").arg(&key).query_async(&mut c).await })
            .await
    }

    async fn ask(&self, request: ApprovalRequest) -> Result<Approval, StoreError> {
        let id = format!("{}-{:x}", request.call_id, unix_ms(SystemTime::now()) ^ u64::from(std::process::id()) << 40);
        // `None`: a wait longer than the clock can count, which never runs out.
        let deadline = SystemTime::now().checked_add(self.wait);
        let ttl = redis_ms(self.wait);
        let (key, index, text) = (self.store.key(&request_key(&id)), self.store.key(INDEX), encode(&request));
        let expires = deadline.map_or(u64::MAX, unix_ms);
        let id_for_index = id.clone();
        // Dropped before an answer or the deadline (the gate's hook timeout, a cancelled
        // call): the request is withdrawn, so that nobody answers a call that has ended.
        // Armed before the request is written: a call cancelled while the write is in
        // flight (Redis has stored the request, the reply has not reached this task) must
        // not leave it pending. The withdrawal goes out after the write on the same
        // connection, so it finds what the write stored, or nothing.
        let mut pending = Withdraw { store: self.store.clone(), id: Some(id.clone()) };
        self.store
            .bounded("ask", |mut c| async move {
                redis::pipe()
                    .atomic()
                    .cmd("SET")
                    .arg(&key)
                    .arg(text)
                    .arg("PX")
                    .arg(ttl)
                    .ignore()
                    .cmd("ZADD")
                    .arg(&index)
                    .arg(expires)
                    .arg(&id_for_index)
                    .ignore()
                    // The index lives as long as its newest entry.
                    .cmd("PEXPIRE")
                    .arg(&index)
                    .arg(ttl)
                    .ignore()
                    .query_async::<()>(&mut c)
                    .await
            })
            .await?;
        let answer_at = self.store.key(&answer_key(&id));
        loop {
            let got = self.take_answer(&answer_at).await;
            if let Ok(Some(text)) = got {
                pending.id = None;
                return Ok(parse_answer(&text));
            }
            if deadline.is_some_and(|deadline| SystemTime::now() >= deadline) {
                pending.id = None;
                // Withdraw the request; a late answer finds it gone. If it was no longer
                // pending, an answer came between the last look and now: it is honoured.
                let (index, id) = (self.store.key(INDEX), id.clone());
                let withdrawn = self
                    .store
                    .bounded("withdraw", |mut c| async move {
                        redis::cmd("ZREM").arg(&index).arg(&id).query_async::<i64>(&mut c).await
                    })
                    .await;
                if matches!(withdrawn, Ok(0))
                    && let Ok(Some(text)) = self.take_answer(&answer_at).await
                {
                    return Ok(parse_answer(&text));
                }
                return match got {
                    Err(e) => Err(e),
                    Ok(_) => Ok(Approval::Reject(format!(
                        "nobody answered the approval request within {}s",
                        self.wait.as_secs()
                    ))),
                };
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

/// Withdraws a request (its index entry and its text) when dropped while it still holds
/// its id: the asking call ended without an answer or its deadline.
struct Withdraw {
    store: RedisStore,
    id: Option<String>,
}

impl Drop for Withdraw {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current()) else { return };
        let store = self.store.clone();
        // In the background (a drop cannot wait); if it fails, the request expires.
        runtime.spawn(async move {
            let (index, key) = (store.key(INDEX), store.key(&request_key(&id)));
            let _ = store
                .bounded("withdraw", |mut c| async move {
                    redis::pipe()
                        .atomic()
                        .cmd("ZREM")
                        .arg(&index)
                        .arg(&id)
                        .ignore()
                        .cmd("DEL")
                        .arg(&key)
                        .ignore()
                        .query_async::<()>(&mut c)
                        .await
                })
                .await;
        });
    }
}

impl Approver for RedisApprovals {
    fn approve<'a>(&'a self, request: ApprovalRequest) -> BoxFuture<'a, Result<Approval, ApprovalError>> {
        Box::pin(async move { self.ask(request).await.map_err(ApprovalError::Store) })
    }
}

fn encode(request: &ApprovalRequest) -> String {
    let a = &request.annotations;
    json!({
        "tool": request.tool, "call_id": request.call_id, "agent": request.agent, "session": request.session,
        "task": request.task, "arguments": request.arguments,
        "annotations": {"read_only": a.read_only, "destructive": a.destructive, "idempotent": a.idempotent, "open_world": a.open_world},
    })
    .to_string()
}

fn decode(text: &str) -> Option<ApprovalRequest> {
    let v: Value = serde_json::from_str(text).ok()?;
    let string = |field: &str| v[field].as_str().map(str::to_owned);
    let flag = |field: &str| v["annotations"][field].as_bool().unwrap_or(false);
    Some(ApprovalRequest {
        tool: string("tool")?,
        call_id: string("call_id")?,
        agent: string("agent"),
        session: string("session"),
        task: string("task"),
        arguments: v["arguments"].as_object().cloned().unwrap_or_else(Map::new),
        annotations: Annotations {
            read_only: flag("read_only"),
            destructive: flag("destructive"),
            idempotent: flag("idempotent"),
            open_world: flag("open_world"),
        },
    })
}

fn parse_answer(text: &str) -> Approval {
    let v: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    match (v["approve"].as_bool(), v["arguments"].as_object()) {
        (Some(true), Some(arguments)) => Approval::ApproveWith(arguments.clone()),
        (Some(true), None) => Approval::Approve,
        _ => Approval::Reject(v["message"].as_str().unwrap_or("rejected").to_owned()),
    }
}
