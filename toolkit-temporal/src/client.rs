//! The client's side: start a run, decide its pending calls, await or query it.

use temporalio_client::errors::WorkflowGetResultError;
use temporalio_client::{
    Client, WorkflowGetResultOptions, WorkflowHandle, WorkflowQueryOptions, WorkflowSignalOptions, WorkflowStartOptions,
};
use toolkit::durable::{CallDecision, PendingCall};

use crate::workflow::{AgentWorkflow, RunInput, RunResult, RunStatus};

/// Agent runs on one task queue, from a client.
///
/// ```no_run
/// # async fn f(client: toolkit_temporal::temporalio_client::Client) -> Result<(), toolkit_temporal::Error> {
/// use toolkit_temporal::{Agents, RunInput};
///
/// let agents = Agents::new(client, "agents");
/// let run = agents.start(RunInput::new("support", "Refund order 42"), "refund-42").await?;
/// for call in run.pending().await? {
///     run.decide(call.approve()).await?;
/// }
/// let result = run.result().await?;
/// println!("{}", result.text);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Agents {
    client: Client,
    task_queue: String,
}

impl std::fmt::Debug for Agents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agents").field("task_queue", &self.task_queue).finish_non_exhaustive()
    }
}

impl Agents {
    /// Runs started on `task_queue`, where workers built with
    /// [`AgentWorker`](crate::AgentWorker) poll.
    pub fn new(client: Client, task_queue: impl Into<String>) -> Self {
        Agents { client, task_queue: task_queue.into() }
    }

    /// Starts a run with the workflow id `id` (the run's id: part of every call's
    /// idempotency key; a second start with a running id is refused by the server).
    pub async fn start(&self, input: RunInput, id: impl Into<String>) -> Result<AgentRunHandle, Error> {
        let id = id.into();
        let options = WorkflowStartOptions::new(self.task_queue.clone(), id.clone()).build();
        self.client
            .start_workflow(AgentWorkflow::run, input, options)
            .await
            .map_err(|e| Error::Start(e.to_string()))?;
        Ok(self.run(id))
    }

    /// The run with workflow id `id`, started earlier (by this process or any other).
    pub fn run(&self, id: impl Into<String>) -> AgentRunHandle {
        AgentRunHandle { handle: self.client.get_workflow_handle::<AgentWorkflow>(id) }
    }
}

/// One agent run on Temporal.
pub struct AgentRunHandle {
    handle: WorkflowHandle<Client, AgentWorkflow>,
}

impl std::fmt::Debug for AgentRunHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AgentRunHandle").field("id", &self.id()).finish()
    }
}

impl AgentRunHandle {
    /// The run's id (its workflow id).
    pub fn id(&self) -> &str {
        &self.handle.info().workflow_id
    }

    /// Where the run stands: its turns, the calls waiting for a decision, the decisions
    /// it refused.
    pub async fn status(&self) -> Result<RunStatus, Error> {
        self.handle
            .query(AgentWorkflow::status, (), WorkflowQueryOptions::default())
            .await
            .map_err(|e| Error::Query(e.to_string()))
    }

    /// The calls waiting for a decision (none while the run is between them).
    pub async fn pending(&self) -> Result<Vec<PendingCall>, Error> {
        Ok(self.status().await?.pending)
    }

    /// Decides a waiting call ([`PendingCall::approve`], [`approve_with`](PendingCall::approve_with),
    /// [`deny`](PendingCall::deny)). The decision is checked against the call as the
    /// run shows it first, and refused here if it does not answer it; the run checks it
    /// again when the signal arrives.
    pub async fn decide(&self, decision: CallDecision) -> Result<(), Error> {
        let pending = self.pending().await?;
        let Some(call) = pending.iter().find(|p| p.call_id() == decision.call_id) else {
            return Err(Error::Decision(format!("call `{}` is not waiting for a decision", decision.call_id)));
        };
        call.check(&decision).map_err(|e| Error::Decision(e.to_string()))?;
        self.handle
            .signal(AgentWorkflow::decide, decision, WorkflowSignalOptions::default())
            .await
            .map_err(|e| Error::Signal(e.to_string()))
    }

    /// Waits for the run to finish (through any pause, for as long as it takes).
    pub async fn result(&self) -> Result<RunResult, Error> {
        self.handle.get_result(WorkflowGetResultOptions::default()).await.map_err(|e| match e {
            // The workflow's own message, not the SDK's rendering of the failure.
            WorkflowGetResultError::Failed(failure) => Error::Run(failure.failure().message.clone()),
            other => Error::Run(other.to_string()),
        })
    }
}

/// Why a client call about a run failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The run could not be started (the id is running already, the server is
    /// unreachable, ...).
    #[error("the run could not be started: {0}")]
    Start(String),
    /// The run could not be queried.
    #[error("the run could not be queried: {0}")]
    Query(String),
    /// The decision does not answer a waiting call; nothing was sent.
    #[error("the decision was refused: {0}")]
    Decision(String),
    /// The decision could not be sent.
    #[error("the decision could not be sent: {0}")]
    Signal(String),
    /// The run ended without an answer: its model failed for good, it ran out of turns,
    /// or it was cancelled or terminated.
    #[error("the run ended without an answer: {0}")]
    Run(String),
    /// The server could not be reached.
    #[error("cannot connect to the Temporal server: {0}")]
    Connect(String),
    /// A worker could not be configured.
    #[error("the worker could not be configured: {0}")]
    Worker(String),
}

/// A client of the Temporal server at `address` (`http://127.0.0.1:7233`, say), in
/// `namespace` (`default` on a dev server).
pub async fn connect(address: &str, namespace: &str) -> Result<Client, Error> {
    let url = temporalio_client::Url::parse(address).map_err(|e| Error::Connect(format!("`{address}`: {e}")))?;
    let connection = temporalio_client::Connection::connect(temporalio_client::ConnectionOptions::new(url).build())
        .await
        .map_err(|e| Error::Connect(format!("{address}: {e}")))?;
    Client::new(connection, temporalio_client::ClientOptions::new(namespace).build())
        .map_err(|e| Error::Connect(format!("{address}: {e}")))
}
