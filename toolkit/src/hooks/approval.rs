//! The approval gate: a person approves, edits or rejects a call before it runs.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

pub use crate::hook::Approval;
use crate::hook::{BeforeCall, BeforeHook, Decision, Hook, HookError, HookStep};
use crate::spec::Annotations;

/// A call awaiting a decision: everything a person needs to decide.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool to be called.
    pub tool: String,
    /// The call's id.
    pub call_id: String,
    /// The agent label of the call's scope.
    pub agent: Option<String>,
    /// The session label.
    pub session: Option<String>,
    /// The task label.
    pub task: Option<String>,
    /// The arguments the tool would run with (after earlier hooks' rewrites).
    pub arguments: Map<String, Value>,
    /// The tool's effect annotations (is it destructive?).
    pub annotations: Annotations,
}

impl fmt::Display for ApprovalRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` (call {}", self.tool, self.call_id)?;
        if let Some(agent) = &self.agent {
            write!(f, ", agent {agent}")?;
        }
        f.write_str(")")?;
        let a = &self.annotations;
        let effects: Vec<&str> =
            [(a.destructive, "destructive"), (a.read_only, "read-only"), (a.open_world, "open world")]
                .into_iter()
                .filter_map(|(on, name)| on.then_some(name))
                .collect();
        if !effects.is_empty() {
            write!(f, " [{}]", effects.join(", "))?;
        }
        write!(f, " with {}", Value::Object(self.arguments.clone()))
    }
}

/// An approver could not obtain a decision. The gate's hook then fails, and, as a
/// before hook, blocks the call (fail closed) unless its policy says otherwise.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ApprovalError {
    /// Nobody is listening: the receiving end of a [`ChannelApprover`] was dropped.
    #[error("the approval channel is closed: nobody is listening for requests")]
    Closed,
    /// The console could not be used.
    #[error("the console approver failed: {0}")]
    Console(#[from] io::Error),
    /// The store holding pending approvals failed (`RedisApprovals`).
    #[error("the approvals store failed: {0}")]
    Store(super::store::StoreError),
}

/// Who decides: a console, a UI behind a channel, a policy. Asked once per gated call;
/// calls wait (asynchronously) for the answer.
///
/// ```
/// use std::future::Future;
/// use std::pin::Pin;
/// use toolkit::hooks::{Approval, ApprovalError, ApprovalRequest, Approver};
///
/// /// Approves everything but deletions.
/// struct NoDeletes;
///
/// impl Approver for NoDeletes {
///     fn approve<'a>(
///         &'a self,
///         request: ApprovalRequest,
///     ) -> Pin<Box<dyn Future<Output = Result<Approval, ApprovalError>> + Send + 'a>> {
///         let approval = if request.tool.starts_with("delete") {
///             Approval::Reject("deleting is not allowed here".into())
///         } else {
///             Approval::Approve
///         };
///         Box::pin(async move { Ok(approval) })
///     }
/// }
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Decides about one call.
    fn approve<'a>(&'a self, request: ApprovalRequest) -> BoxFuture<'a, Result<Approval, ApprovalError>>;
}

/// Rejects every call: the approver of a gate nobody attends (the default of
/// [`ApprovalGate`]).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use toolkit::prelude::*;
/// use toolkit::hooks::ApprovalGate;
///
/// /// Delete a file.
/// #[tool(destructive)]
/// fn delete(path: String) -> String { format!("deleted {path}") }
///
/// let tools = toolbox![delete].with_hook(ApprovalGate::default());
/// let r = tools.call(ToolCall::new("1", "delete", r#"{"path": "a"}"#)).await;
/// assert_eq!(r.content, "blocked: the user rejected this call: it needs a person's approval and none is available");
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

impl Approver for DenyAll {
    fn approve<'a>(&'a self, _request: ApprovalRequest) -> BoxFuture<'a, Result<Approval, ApprovalError>> {
        Box::pin(std::future::ready(Ok(Approval::Reject(
            "it needs a person's approval and none is available".to_owned(),
        ))))
    }
}

/// The half of a [`ChannelApprover`] request that carries the answer back. Dropping it
/// without sending rejects the call.
pub type ApprovalResponder = oneshot::Sender<Approval>;

/// Sends each request with a [`ApprovalResponder`] over a Tokio channel, for a UI (a
/// web page, a chat message with buttons) to answer. A responder dropped without an
/// answer rejects the call.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::{Approval, ApprovalGate, ChannelApprover};
///
/// /// Delete a file.
/// #[tool(destructive)]
/// fn delete(path: String) -> String { format!("deleted {path}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let (approver, mut requests) = ChannelApprover::new(16);
/// tokio::spawn(async move {
///     while let Some((request, responder)) = requests.recv().await {
///         let _ = responder.send(if request.arguments["path"] == "keep.txt" {
///             Approval::Reject("keep.txt must stay".into())
///         } else {
///             Approval::Approve
///         });
///     }
/// });
/// let tools = toolbox![delete].with_hook(ApprovalGate::new(approver).destructive());
/// let r = tools.call(ToolCall::new("1", "delete", r#"{"path": "keep.txt"}"#)).await;
/// assert_eq!(r.content, "blocked: the user rejected this call: keep.txt must stay");
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct ChannelApprover {
    requests: mpsc::Sender<(ApprovalRequest, ApprovalResponder)>,
}

impl ChannelApprover {
    /// An approver and the receiving end of its requests; at most `capacity` requests
    /// wait in the channel (further calls wait to send theirs).
    pub fn new(capacity: usize) -> (Self, mpsc::Receiver<(ApprovalRequest, ApprovalResponder)>) {
        let (requests, receiver) = mpsc::channel(capacity.max(1));
        (ChannelApprover { requests }, receiver)
    }
}

impl Approver for ChannelApprover {
    fn approve<'a>(&'a self, request: ApprovalRequest) -> BoxFuture<'a, Result<Approval, ApprovalError>> {
        Box::pin(async move {
            let (responder, answer) = oneshot::channel();
            self.requests.send((request, responder)).await.map_err(|_| ApprovalError::Closed)?;
            Ok(answer.await.unwrap_or_else(|_| Approval::Reject("no answer was given".to_owned())))
        })
    }
}

/// Asks on a terminal: prints the request to standard error and reads `y` (approve),
/// `n` (reject, then an optional reason for the model) or `e` (edit: a JSON object on
/// one line replaces the arguments). Reading blocks, so it runs on Tokio's blocking
/// pool; concurrent requests are asked one at a time. A closed input rejects.
///
/// ```
/// use toolkit::hooks::{ApprovalGate, ConsoleApprover};
/// let gate = ApprovalGate::new(ConsoleApprover::new()).destructive();
/// # drop(gate);
/// ```
#[derive(Clone)]
pub struct ConsoleApprover {
    io: Arc<Mutex<Console>>,
}

impl fmt::Debug for ConsoleApprover {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConsoleApprover").finish_non_exhaustive()
    }
}

struct Console {
    input: Option<Box<dyn BufRead + Send>>,
    output: Box<dyn Write + Send>,
}

impl Default for ConsoleApprover {
    fn default() -> Self {
        ConsoleApprover::new()
    }
}

impl ConsoleApprover {
    /// Asks on standard error, reads standard input.
    pub fn new() -> Self {
        ConsoleApprover { io: Arc::new(Mutex::new(Console { input: None, output: Box::new(io::stderr()) })) }
    }

    /// Asks on `output`, reads `input` (for tests, or a terminal other than the
    /// process's own).
    ///
    /// ```
    /// use toolkit::hooks::ConsoleApprover;
    /// let approver = ConsoleApprover::with_io(std::io::Cursor::new("y\n"), std::io::sink());
    /// # drop(approver);
    /// ```
    pub fn with_io(input: impl BufRead + Send + 'static, output: impl Write + Send + 'static) -> Self {
        ConsoleApprover { io: Arc::new(Mutex::new(Console { input: Some(Box::new(input)), output: Box::new(output) })) }
    }
}

impl Console {
    /// One line of input; `None` at the end of input.
    fn line(&mut self) -> io::Result<Option<String>> {
        let mut line = String::new();
        let read = match &mut self.input {
            Some(input) => input.read_line(&mut line)?,
            None => io::stdin().read_line(&mut line)?,
        };
        Ok((read > 0).then(|| line.trim().to_owned()))
    }

    fn ask(&mut self, request: &ApprovalRequest) -> io::Result<Approval> {
        let closed = || Approval::Reject("no one answered (the console input is closed)".to_owned());
        writeln!(self.output, "approval needed: {request}")?;
        loop {
            write!(self.output, "approve? [y]es / [n]o / [e]dit arguments: ")?;
            self.output.flush()?;
            let Some(answer) = self.line()? else { return Ok(closed()) };
            match answer.to_lowercase().as_str() {
                "y" | "yes" => return Ok(Approval::Approve),
                "n" | "no" => {
                    write!(self.output, "reason, for the model (optional): ")?;
                    self.output.flush()?;
                    let reason = self.line()?.unwrap_or_default();
                    return Ok(Approval::Reject(reason));
                }
                "e" | "edit" => {
                    write!(self.output, "new arguments, a JSON object on one line: ")?;
                    self.output.flush()?;
                    let Some(text) = self.line()? else { return Ok(closed()) };
                    match serde_json::from_str::<Value>(&text) {
                        Ok(Value::Object(arguments)) => return Ok(Approval::ApproveWith(arguments)),
                        Ok(_) => writeln!(self.output, "that is not a JSON object")?,
                        Err(e) => writeln!(self.output, "that is not valid JSON: {e}")?,
                    }
                }
                _ => writeln!(self.output, "please answer y, n or e")?,
            }
        }
    }
}

impl Approver for ConsoleApprover {
    fn approve<'a>(&'a self, request: ApprovalRequest) -> BoxFuture<'a, Result<Approval, ApprovalError>> {
        let io = Arc::clone(&self.io);
        Box::pin(async move {
            let asked = tokio::task::spawn_blocking(move || {
                let mut console = io.lock().unwrap_or_else(|e| e.into_inner());
                console.ask(&request)
            });
            match asked.await {
                Ok(answer) => Ok(answer?),
                Err(e) => Err(ApprovalError::Console(io::Error::other(e.to_string()))),
            }
        })
    }
}

/// A before hook that asks an [`Approver`] before a call runs.
///
/// By default every call is gated; [`tools`](ApprovalGate::tools) and
/// [`destructive`](ApprovalGate::destructive) narrow it (to the tools named, plus those
/// declared `destructive`, when both are given). The approver may approve, approve with
/// new arguments (they replace the JSON arguments, and the tool runs with them), or
/// reject: the call is blocked with ``the user rejected this call: {message}``. If the
/// approver fails, the call is blocked (fail closed). To bound the wait, set a timeout
/// on the hook: `Hook::from(gate).timeout(Duration::from_secs(300))`.
///
/// Named `approval`, priority -50: a person is asked only about calls every automatic
/// check of default priority already let through.
///
/// See [`ChannelApprover`] for an example.
///
/// # Deferring instead of waiting
///
/// [`ApprovalGate::deferring`] asks nobody and holds no task: it defers the call
/// ([`Decision::Defer`]), an agent run pauses with the call pending, and the decision
/// comes later, from anywhere, through [`Agent::resume`](crate::agent::Agent::resume).
/// Nothing waits in memory, so a crash or a deploy loses nothing. The decision is bound
/// to the exact arguments shown, and used once.
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::hooks::ApprovalGate;
///
/// /// Delete a file.
/// #[tool(destructive)]
/// fn delete(path: String) -> String { format!("deleted {path}") }
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// let tools = toolbox![delete].with_hook(ApprovalGate::deferring().destructive());
/// let result = tools.call(ToolCall::new("1", "delete", r#"{"path": "a.txt"}"#)).await;
/// assert_eq!(result.kind(), Some(ErrorKind::Deferred));
/// assert_eq!(result.content, "deferred: it needs a person's approval");
/// # }
/// ```
pub struct ApprovalGate {
    name: Cow<'static, str>,
    /// `None`: defer instead of asking.
    approver: Option<Arc<dyn Approver>>,
    tools: Vec<Cow<'static, str>>,
    destructive: bool,
}

impl fmt::Debug for ApprovalGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ApprovalGate")
            .field("name", &self.name)
            .field("tools", &self.tools)
            .field("destructive", &self.destructive)
            .finish_non_exhaustive()
    }
}

impl Default for ApprovalGate {
    /// A gate that rejects every call ([`DenyAll`]).
    fn default() -> Self {
        ApprovalGate::new(DenyAll)
    }
}

impl ApprovalGate {
    /// A gate asking `approver` about every call.
    pub fn new(approver: impl Approver) -> Self {
        ApprovalGate {
            name: Cow::Borrowed("approval"),
            approver: Some(Arc::new(approver)),
            tools: Vec::new(),
            destructive: false,
        }
    }

    /// A gate that defers every call it gates ([`Decision::Defer`]) instead of asking
    /// an approver and waiting: see [Deferring instead of waiting](ApprovalGate#deferring-instead-of-waiting).
    pub fn deferring() -> Self {
        ApprovalGate { name: Cow::Borrowed("approval"), approver: None, tools: Vec::new(), destructive: false }
    }

    /// Gates these tools.
    pub fn tools<I, S>(mut self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<Cow<'static, str>>,
    {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Gates the tools declared `destructive`.
    pub fn destructive(mut self) -> Self {
        self.destructive = true;
        self
    }

    /// Sets the hook's name (default `approval`).
    pub fn name(mut self, name: impl Into<Cow<'static, str>>) -> Self {
        self.name = name.into();
        self
    }

    fn gates(&self, call: &BeforeCall<'_>) -> bool {
        if self.tools.is_empty() && !self.destructive {
            return true;
        }
        self.tools.iter().any(|t| t == call.tool())
            || (self.destructive && call.spec().is_some_and(|s| s.annotations.destructive))
    }
}

impl BeforeHook for ApprovalGate {
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        if !self.gates(call) {
            return HookStep::Ready(Ok(Decision::Continue));
        }
        let Some(approver) = &self.approver else {
            return HookStep::Ready(Ok(Decision::Defer("it needs a person's approval".to_owned())));
        };
        let request = ApprovalRequest {
            tool: call.tool().to_owned(),
            call_id: call.call_id().to_owned(),
            agent: call.agent().map(str::to_owned),
            session: call.session().map(str::to_owned),
            task: call.task().map(str::to_owned),
            annotations: call.spec().map(|s| s.annotations).unwrap_or_default(),
            arguments: call.arguments().clone(),
        };
        HookStep::Pending(Box::pin(async move {
            let approval = approver.approve(request).await.map_err(HookError::new)?;
            if let Some(reason) = approval.rejection() {
                return Ok(Decision::Block(reason));
            }
            if let Approval::ApproveWith(arguments) = approval {
                *call.arguments_mut() = arguments;
            }
            Ok(Decision::Continue)
        }))
    }
}

impl From<ApprovalGate> for Hook {
    fn from(gate: ApprovalGate) -> Hook {
        Hook::new(gate.name.clone()).priority(-50).on_before(gate)
    }
}
