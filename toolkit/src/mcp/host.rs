//! The client side of a server's questions (MCP elicitation): what [`McpTools`]
//! answers when a server asks the person using it, such as a toolkit server asking to
//! approve a deferred call.
//!
//! [`McpTools`]: super::McpTools

use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rmcp::model::{
    ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability, ErrorData,
    FormElicitationCapability, Implementation,
};
use rmcp::service::{RequestContext, RoleClient};
use serde_json::{Map, Value};

/// A server's question for the person using the client: what it says, and the form it
/// wants filled (a flat JSON Schema object: `properties` of strings, numbers, booleans
/// and enums, some `required`). A toolkit server asking to approve a call sends
/// ``Approve `tool` with {…}?`` and a form of `approve` (boolean) and `note` (string).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Question {
    /// The message to show.
    pub message: String,
    /// The form to fill.
    pub schema: Value,
}

/// The person's answer to a [`Question`].
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// They filled the form (these values, fitting its schema).
    Accept(Map<String, Value>),
    /// They said no.
    Decline,
    /// They dismissed the question without answering.
    Cancel,
}

type Asker = Arc<dyn Fn(Question) -> BoxFuture<'static, Answer> + Send + Sync>;

/// The `rmcp` client handler of [`McpTools`](super::McpTools): it declares form
/// elicitation when it has someone to ask, and asks them.
#[derive(Clone, Default)]
pub(super) struct Host {
    ask: Option<Asker>,
}

impl Host {
    pub(super) fn asking<F, Fut>(ask: F) -> Host
    where
        F: Fn(Question) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Answer> + Send + 'static,
    {
        Host { ask: Some(Arc::new(move |question| Box::pin(ask(question)))) }
    }
}

impl rmcp::ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let mut config = ClientConfig::default();
        config.client_info = Implementation::new("toolkit", env!("CARGO_PKG_VERSION"));
        if self.ask.is_some() {
            config.capabilities.elicitation =
                Some(ElicitationCapability::new().with_form(FormElicitationCapability::default()));
        }
        config
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (Some(ask), ElicitRequestParams::FormElicitationParams { message, requested_schema, .. }) =
            (&self.ask, request)
        else {
            // Nobody to ask, or a URL to open, which a library cannot: no.
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(requested_schema).unwrap_or_default();
        Ok(match ask(Question { message, schema }).await {
            Answer::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content))
            }
            Answer::Decline => ElicitResult::new(ElicitationAction::Decline),
            Answer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}
