//! Serving tasks: a task tool's call in the background, and the `tasks/*` methods on the
//! records in the store (see `mcp/tasks.rs`).

use std::sync::Arc;

use rmcp::model::{
    CallToolResponse, CallToolResult, CancelTaskParams, ContentBlock, ErrorData, GetTaskParams, GetTaskResult,
    RequestMetaObject, UpdateTaskParams,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use tokio::sync::OwnedSemaphorePermit;

use super::call::to_mcp_result;
use super::{McpServer, Structured};
use crate::call::ToolCall;
use crate::durable::PendingCall;
use crate::hook::Scope;
use crate::mcp::approval::decisions;
use crate::mcp::tasks::{Tasks, notify};

impl McpServer {
    /// Answers a task tool's call with a new task and runs the call in the background,
    /// in `slot`.
    pub(super) async fn start_task(
        &self,
        tasks: Arc<Tasks>,
        call: ToolCall,
        scope: Scope,
        output: Structured,
        slot: OwnedSemaphorePermit,
        cx: &RequestContext<RoleServer>,
    ) -> CallToolResponse {
        let (id, created) = match tasks.create(&call.name, &call.id, &call.arguments).await {
            Ok(created) => created,
            Err(error) => {
                let text = format!("The call could not start as a task: {}", error.message);
                return CallToolResponse::Complete(CallToolResult::error(vec![ContentBlock::text(text)]));
            }
        };
        let server = self.clone();
        let (peer, meta) = (cx.peer.clone(), cx.meta.clone());
        let running = async move {
            server.run_task(&tasks, &id, call, &scope, output, &peer, &meta).await;
            drop(slot);
        };
        tokio::spawn(self.connection.calls.track_future(running));
        CallToolResponse::Task(created)
    }

    /// Runs task `id`'s call to its end (or its cancellation), renewing its lease, and
    /// records how it ended: completed with its result, or waiting for a decision when
    /// a hook deferred it.
    #[allow(clippy::too_many_arguments)]
    async fn run_task(
        &self,
        tasks: &Tasks,
        id: &str,
        call: ToolCall,
        scope: &Scope,
        output: Structured,
        peer: &Peer<RoleServer>,
        meta: &RequestMetaObject,
    ) {
        let token = tasks.track(id);
        let span = crate::mcp::trace::server_span(&call.name, meta);
        let calling = tracing::Instrument::instrument(self.inner.toolbox.call_in(call.clone(), scope), span);
        let result = tokio::select! {
            result = calling => Some(result),
            () = token.cancelled() => None,
            () = tasks.keep_alive(id, &token) => None,
        };
        // Cancelled (the record says so already), or ended: record how, then let go of
        // the lease (a record still `working` with no lease reads as a lost task).
        if let Some(result) = result
            && !tasks.cancelled(id).await
            && let Ok(mut record) = tasks.load(id).await
        {
            match PendingCall::of(&call, &result) {
                Some(pending) => record.ask(pending, &self.inner.approvals),
                None => record.complete(&to_mcp_result(result, output)),
            }
            match tasks.save(id, &record).await {
                Ok(()) => notify(peer, &record).await,
                Err(error) => tracing::error!(task = id, error = %error.message, "cannot record how a task ended"),
            }
        }
        token.cancel();
        tasks.untrack(id).await;
    }

    /// The server's tasks, or `-32601` when it runs none.
    fn tasks(&self) -> Result<Arc<Tasks>, ErrorData> {
        self.inner.tasks.clone().ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }

    pub(super) async fn get_task_now(&self, request: GetTaskParams) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(self.tasks()?.load(&request.task_id).await?.task))
    }

    pub(super) async fn cancel_task_now(
        &self,
        request: CancelTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(record) = self.tasks()?.cancel(&request.task_id).await? {
            notify(&cx.peer, &record).await;
        }
        Ok(())
    }

    /// `tasks/update` on a task waiting for a decision: the call runs again in the
    /// background with it, under its id, through every hook.
    pub(super) async fn update_task_now(
        &self,
        request: UpdateTaskParams,
        cx: &RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let tasks = self.tasks()?;
        let id = request.task_id;
        let (record, decided) = tasks.answer(&id, &request.input_responses).await?;
        notify(&cx.peer, &record).await;
        let call = ToolCall::new(record.call_id, record.tool, record.arguments);
        let scope = Scope::new()
            .with_session(Arc::clone(&self.connection.label))
            .with_decisions(decisions(call.id.clone(), decided));
        let output = self.inner.routes.get(&call.name).map_or(Structured::Never, |r| r.output);
        let server = self.clone();
        let (peer, meta) = (cx.peer.clone(), cx.meta.clone());
        let running = async move {
            let slot = Arc::clone(&server.connection.running).acquire_owned().await;
            server.run_task(&tasks, &id, call, &scope, output, &peer, &meta).await;
            drop(slot);
        };
        tokio::spawn(self.connection.calls.track_future(running));
        Ok(())
    }
}
