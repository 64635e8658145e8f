//! Approvals through the host: a call a hook defers (an
//! [`ApprovalGate::deferring`](crate::hooks::ApprovalGate::deferring), or any hook that
//! returns [`Decision::Defer`](crate::Decision::Defer)) asks the person at the MCP client,
//! and their answer runs the call or refuses it.
//!
//! - A 2026-07-28 client that declared form elicitation gets an `input_required` result:
//!   one form ("Approve `delete_file` with {…}?") and a sealed `requestState`. Its retry
//!   of the same call, with the answer, runs the call under the deferred call's id with
//!   the decision, through every hook again (the deferring hook meets its answer).
//! - A 2025-11-25 client that declared elicitation is asked during the call
//!   (`elicitation/create`), and the call goes on with the answer.
//! - Any other client gets the deferral as an error result: the call does not run.
//!
//! The `requestState` is sealed with HMAC-SHA256 (rmcp's [`RequestStateCodec`]) and bound
//! to the tool and the digest of the arguments the client sent: a state that was forged,
//! tampered with, sent with other arguments or another tool, or is older than its
//! time-to-live, is refused, and so is a state used before (its nonce is recorded in a
//! [`Store`], shared by every replica when it is a Redis store).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, ElicitRequest, ElicitRequestParams, ElicitationSchema, InputRequest, InputRequests,
    InputRequiredResult, RequestStateCodec, SealOptions,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::durable::PendingCall;
use crate::hook::{Approval, Decided};
use crate::hooks::store::Store;
use crate::hooks::{MemoryStore, Redactor};

/// The key of the one input request an approval makes (in `inputRequests` and in the
/// client's `inputResponses`).
pub(super) const INPUT: &str = "approval";

/// How long a person has to answer, by default.
const DEFAULT_TTL: Duration = Duration::from_secs(600);

/// The arguments a form shows, at most (longer ones are cut, saying so).
const SHOWN_ARGUMENTS: usize = 2_000;

/// How a server asks for approvals and checks the answers.
#[derive(Clone)]
pub(super) struct Approvals {
    codec: RequestStateCodec,
    ttl: Duration,
    /// The nonces of the states already answered.
    used: Arc<dyn Store>,
}

/// What a form shows is redacted with the default rules (built on the first deferral).
static REDACTOR: OnceLock<Redactor> = OnceLock::new();

/// What a sealed `requestState` holds.
#[derive(Serialize, Deserialize)]
struct Sealed {
    /// The id of the deferred call: the retry runs under it, so its two records share it.
    call: String,
    /// The digest of the arguments shown, which the decision is bound to.
    digest: String,
    /// What makes the state single-use.
    nonce: String,
}

/// An answer the retry of a deferred call brought: the call id to run under and the
/// decision, or why it is refused.
pub(super) enum Answer {
    Decided { call_id: String, decided: Decided },
    Refused(String),
}

impl Approvals {
    /// A random signing key for this process, a memory store, the default time to live.
    pub(super) fn new() -> Approvals {
        let key = random_bytes::<32>();
        let codec = RequestStateCodec::try_new(key.to_vec()).unwrap_or_else(|e| unreachable!("32 bytes: {e}"));
        Approvals { codec, ttl: DEFAULT_TTL, used: Arc::new(MemoryStore::new()) }
    }

    /// Signs with `key` (at least 32 bytes) from now on.
    pub(super) fn with_key(&mut self, key: Vec<u8>) -> Result<(), super::McpError> {
        self.codec = RequestStateCodec::try_new(key).map_err(|e| super::McpError::Config(e.to_string()))?;
        Ok(())
    }

    pub(super) fn with_ttl(&mut self, ttl: Duration) {
        self.ttl = ttl;
    }

    pub(super) fn with_store(&mut self, store: Arc<dyn Store>) {
        self.used = store;
    }

    /// The form that asks a person about `pending`.
    pub(super) fn form(&self, pending: &PendingCall) -> ElicitRequestParams {
        let redactor = REDACTOR.get_or_init(Redactor::new);
        let shown = redactor.redact(pending.arguments());
        let shown = match shown.char_indices().nth(SHOWN_ARGUMENTS) {
            Some((cut, _)) => format!("{}… (cut at {SHOWN_ARGUMENTS} characters)", &shown[..cut]),
            None => shown.into_owned(),
        };
        let message = format!("Approve `{}` with {shown}?\n\nWhy you are asked: {}", pending.tool(), pending.reason());
        let schema = json!({
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": format!("Run `{}` with these arguments", pending.tool()),
                },
                "note": {
                    "type": "string",
                    "title": "Note",
                    "description": "Why, if you do not approve (the model reads it)",
                },
            },
            "required": ["approve"],
        });
        let Value::Object(schema) = schema else { unreachable!("an object") };
        let requested_schema =
            ElicitationSchema::from_json_schema(schema).unwrap_or_else(|e| unreachable!("a valid form: {e}"));
        ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema }
    }

    /// The `input_required` result that asks a 2026-07-28 client about `pending`, a call
    /// of `request`.
    pub(super) fn input_required(&self, pending: &PendingCall, request: &CallToolRequestParams) -> InputRequiredResult {
        let sealed = Sealed {
            call: pending.call_id().to_owned(),
            digest: pending.digest().to_owned(),
            nonce: crate::digest::hex(&random_bytes::<16>()),
        };
        let payload = serde_json::to_vec(&sealed).unwrap_or_else(|e| unreachable!("plain strings: {e}"));
        let bound = bound_to(request);
        let state = self.codec.seal_with(&payload, &SealOptions::new().associated_data(bound.as_bytes()).ttl(self.ttl));
        let mut requests = InputRequests::new();
        requests.insert(INPUT.to_owned(), InputRequest::Elicitation(ElicitRequest::new(self.form(pending))));
        let mut result = InputRequiredResult::from_request_state(state);
        result.input_requests = Some(requests);
        result
    }

    /// The decision a retry of a deferred call brings, checked: its state is one this
    /// server sealed for this tool and these arguments, in time, and not used before
    /// (it is used now).
    pub(super) async fn answer(&self, request: &CallToolRequestParams) -> Answer {
        let Some(state) = request.request_state.as_deref() else {
            return Answer::Refused(
                "not run: the call carries answers (`inputResponses`) but no `requestState`; send back the \
                 `requestState` of the `input_required` result it answers"
                    .to_owned(),
            );
        };
        // One message whatever failed (a forged, tampered, expired state, or one for
        // other arguments): the details are logged, not told.
        let sealed = match self.codec.open_with(state, bound_to(request).as_bytes()) {
            Ok(payload) => serde_json::from_slice::<Sealed>(&payload).ok(),
            Err(error) => {
                tracing::warn!(tool = %request.name, %error, "refused a requestState");
                None
            }
        };
        let Some(sealed) = sealed else {
            return Answer::Refused(format!(
                "not run: the `requestState` is not one this server issued for this call of `{}` with these \
                 arguments, or it has expired; call the tool again without it to be asked anew",
                request.name
            ));
        };
        let answer = request.input_responses.as_ref().and_then(|answers| answers.get(INPUT));
        let approval = match approval_of(answer) {
            Ok(approval) => approval,
            Err(problem) => return Answer::Refused(format!("not run: {problem}")),
        };
        let key = format!("toolkit:mcp:approval:{}", sealed.nonce);
        match self.used.set_if_absent(&key, b"1".to_vec(), Some(self.ttl)).await {
            Ok(true) => {}
            Ok(false) => {
                return Answer::Refused(
                    "not run: this approval was already used; call the tool again without `requestState` to be \
                     asked anew"
                        .to_owned(),
                );
            }
            Err(error) => {
                tracing::error!(%error, "cannot record that an approval was used; refusing it");
                return Answer::Refused(format!("not run: the approval could not be recorded as used ({error})"));
            }
        }
        Answer::Decided { call_id: sealed.call, decided: Decided { digest: sealed.digest, approval } }
    }

    /// Asks a 2025-11-25 client's person about `pending` (`elicitation/create`), waiting
    /// at most the time to live: the decision, or why there is none (which refuses).
    pub(super) async fn ask(&self, pending: &PendingCall, cx: &RequestContext<RoleServer>) -> Approval {
        let asked = cx.peer.create_elicitation_with_timeout(self.form(pending), Some(self.ttl));
        let answer = tokio::select! {
            answer = asked => answer,
            () = cx.ct.cancelled() => return Approval::Reject("the call was cancelled while waiting for the answer".into()),
        };
        match answer {
            Ok(result) => {
                let value = serde_json::to_value(result).unwrap_or(Value::Null);
                approval_of(Some(&value)).unwrap_or_else(Approval::Reject)
            }
            Err(error) => {
                tracing::warn!(tool = %pending.tool(), %error, "no answer to an approval request");
                Approval::Reject(format!("no answer to the approval request ({error})"))
            }
        }
    }
}

/// Whether the client of `cx` can show a form (it declared elicitation: form mode, or
/// elicitation with no mode, which meant forms before modes existed).
pub(super) fn can_ask(cx: &RequestContext<RoleServer>) -> bool {
    cx.client_capabilities().and_then(|c| c.elicitation).is_some_and(|e| e.form.is_some() || e.url.is_none())
}

/// What a state is bound to besides its own content: the tool and the arguments the
/// client sent (their digest), so it answers that call and no other.
fn bound_to(request: &CallToolRequestParams) -> String {
    let empty = Map::new();
    let digest = crate::digest::arguments_digest(request.arguments.as_ref().unwrap_or(&empty));
    format!("toolkit.approval\n{}\n{digest}", request.name)
}

/// The decision an elicitation answer (`ElicitResult` JSON) stands for.
pub(super) fn approval_of(answer: Option<&Value>) -> Result<Approval, String> {
    let Some(answer) = answer else {
        return Err(format!("the call carries no answer to the approval request (`inputResponses.{INPUT}`)"));
    };
    let note = answer["content"]["note"].as_str().unwrap_or("").trim().to_owned();
    match answer["action"].as_str() {
        Some("accept") => match answer["content"]["approve"].as_bool() {
            Some(true) => Ok(Approval::Approve),
            Some(false) => Ok(Approval::Reject(note)),
            None => Err("the approval answer has no boolean `approve`".to_owned()),
        },
        Some("decline") => Ok(Approval::Reject(note)),
        Some("cancel") => Ok(Approval::Reject("the request was dismissed without an answer".to_owned())),
        _ => Err("the approval answer is not an elicitation result (`action`: accept, decline or cancel)".to_owned()),
    }
}

/// `N` random bytes from the operating system; should it fail, bytes no other process
/// or call can predict or share (the time, the process, a counter, hashed).
pub(super) fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    if getrandom::fill(&mut bytes).is_err() {
        use sha2::{Digest, Sha256};
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
        let seed = format!("{}:{}:{n}:{:p}", now.as_nanos(), std::process::id(), &bytes);
        let mut out = Sha256::digest(seed.as_bytes()).to_vec();
        while out.len() < N {
            out.extend_from_slice(&Sha256::digest(&out));
        }
        bytes.copy_from_slice(&out[..N]);
    }
    bytes
}

/// The decisions a scope carries for a retry: this one, for this call.
pub(super) fn decisions(call_id: String, decided: Decided) -> HashMap<String, Decided> {
    HashMap::from([(call_id, decided)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(args: Value) -> CallToolRequestParams {
        let Value::Object(args) = args else { panic!("an object") };
        CallToolRequestParams::new("delete_file").with_arguments(args)
    }

    fn pending() -> PendingCall {
        let call = crate::call::ToolCall::new("mcp-1-1", "delete_file", r#"{"path":"a.txt"}"#);
        let result = crate::call::ToolResult::failed(
            "mcp-1-1",
            "delete_file",
            crate::error::ToolError::new(crate::error::ErrorKind::Deferred, "deferred: it needs a person's approval")
                .with_detail(r#"{"path":"a.txt"}"#),
        );
        PendingCall::of(&call, &result).expect("deferred")
    }

    fn accept(approve: bool) -> Value {
        json!({"action": "accept", "content": {"approve": approve, "note": "not that file"}})
    }

    fn retry(first: &InputRequiredResult, args: Value, answer: Value) -> CallToolRequestParams {
        let mut retry = request(args);
        retry.request_state = first.request_state.clone();
        retry.input_responses = Some([(INPUT.to_owned(), answer)].into_iter().collect());
        retry
    }

    #[tokio::test]
    async fn an_answer_is_bound_to_its_arguments_sealed_and_used_once() {
        let approvals = Approvals::new();
        let asked = approvals.input_required(&pending(), &request(json!({"path": "a.txt"})));
        let form = serde_json::to_value(&asked.input_requests.as_ref().unwrap()[INPUT]).unwrap();
        assert_eq!(form["method"], "elicitation/create");
        assert!(form["params"]["message"].as_str().unwrap().starts_with("Approve `delete_file` with {"), "{form}");
        assert_eq!(form["params"]["requestedSchema"]["required"], json!(["approve"]));

        // Other arguments, or another tool: refused.
        let other = approvals.answer(&retry(&asked, json!({"path": "b.txt"}), accept(true))).await;
        assert!(matches!(other, Answer::Refused(ref m) if m.contains("not one this server issued")));
        let mut renamed = retry(&asked, json!({"path": "a.txt"}), accept(true));
        renamed.name = "delete_all".into();
        assert!(matches!(approvals.answer(&renamed).await, Answer::Refused(_)));
        // A state changed by one character: refused.
        let mut tampered = retry(&asked, json!({"path": "a.txt"}), accept(true));
        let state = tampered.request_state.as_mut().unwrap();
        let last = state.pop().unwrap();
        state.push(if last == 'A' { 'B' } else { 'A' });
        assert!(matches!(approvals.answer(&tampered).await, Answer::Refused(_)));
        // Another server's state (another key): refused.
        let elsewhere = Approvals::new().input_required(&pending(), &request(json!({"path": "a.txt"})));
        let foreign = approvals.answer(&retry(&elsewhere, json!({"path": "a.txt"}), accept(true))).await;
        assert!(matches!(foreign, Answer::Refused(_)));

        // The right one: the deferred call's id and digest, approved; then never again.
        let Answer::Decided { call_id, decided } =
            approvals.answer(&retry(&asked, json!({"path": "a.txt"}), accept(true))).await
        else {
            panic!("refused")
        };
        assert_eq!(call_id, "mcp-1-1");
        assert_eq!(decided.digest, pending().digest());
        assert_eq!(decided.approval, Approval::Approve);
        let replay = approvals.answer(&retry(&asked, json!({"path": "a.txt"}), accept(true))).await;
        assert!(matches!(replay, Answer::Refused(ref m) if m.contains("already used")));
    }

    #[tokio::test]
    async fn an_expired_state_is_refused() {
        let mut approvals = Approvals::new();
        approvals.with_ttl(Duration::from_millis(1));
        let asked = approvals.input_required(&pending(), &request(json!({"path": "a.txt"})));
        tokio::time::sleep(Duration::from_millis(20)).await;
        let late = approvals.answer(&retry(&asked, json!({"path": "a.txt"}), accept(true))).await;
        assert!(matches!(late, Answer::Refused(ref m) if m.contains("expired")));
    }

    #[test]
    fn answers_map_to_decisions() {
        assert_eq!(approval_of(Some(&accept(true))), Ok(Approval::Approve));
        assert_eq!(approval_of(Some(&accept(false))), Ok(Approval::Reject("not that file".into())));
        assert_eq!(approval_of(Some(&json!({"action": "decline"}))), Ok(Approval::Reject(String::new())));
        assert!(
            matches!(approval_of(Some(&json!({"action": "cancel"}))), Ok(Approval::Reject(m)) if m.contains("dismissed"))
        );
        assert!(approval_of(Some(&json!({"action": "accept", "content": {}}))).is_err());
        assert!(approval_of(Some(&json!({"action": "maybe"}))).is_err());
        assert!(approval_of(None).is_err());
    }

    #[test]
    fn a_short_key_is_refused_and_secrets_are_not_shown() {
        let mut approvals = Approvals::new();
        assert!(approvals.with_key(b"short".to_vec()).is_err());
        assert!(approvals.with_key([7u8; 32].to_vec()).is_ok());
        let call = crate::call::ToolCall::new("1", "deploy", r#"{"token":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}"#);
        let result = crate::call::ToolResult::failed(
            "1",
            "deploy",
            crate::error::ToolError::new(crate::error::ErrorKind::Deferred, "deferred: check")
                .with_detail(call.arguments.clone()),
        );
        let ElicitRequestParams::FormElicitationParams { message, .. } =
            approvals.form(&PendingCall::of(&call, &result).unwrap())
        else {
            panic!("a form")
        };
        assert!(!message.contains("ghp_abcdefghij"), "{message}");
    }
}
