//! Importing the tools of an MCP server into a toolbox.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, PaginatedRequestParams, Tool};
use rmcp::service::{Peer, RoleClient, RunningService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ServiceError, ServiceExt};
use serde_json::{Map, Value};

use super::McpError;
use super::host::{Answer, Host, Question};
use crate::call::Output;
use crate::error::{ErrorKind, ToolError};
use crate::spec::{Annotations, ToolSpec};
use crate::tool::FnTool;
use crate::toolbox::Toolbox;

/// The tools of an external MCP server, ready to join a [`Toolbox`].
///
/// [`connect_stdio`](McpTools::connect_stdio) starts a server process and talks to it
/// over its stdin/stdout; [`connect_http`](McpTools::connect_http) talks to a
/// streamable HTTP endpoint. Either lists the server's tools once;
/// [`add_to`](McpTools::add_to) then adds them to a toolbox as run-time tools (under an
/// optional [`prefix`](McpTools::with_prefix)), so the toolbox's hooks (sandbox, audit,
/// approval, rate limit, ...) govern them like any other tool, and
/// [`Toolbox::validate`] tells what a provider cannot take of their schemas, which pass
/// through unchanged.
///
/// A call the server answers with `isError: true` is a failed call
/// ([`ErrorKind::ToolFailed`]) with the server's text; a server that cannot be reached is
/// [`ErrorKind::Unavailable`]. The connection lives as long as the tools or this value;
/// [`close`](McpTools::close) ends it (and the server process) at once.
///
/// ```no_run
/// use toolkit::mcp::McpTools;
/// use toolkit::Toolbox;
///
/// # async fn run() -> Result<(), toolkit::mcp::McpError> {
/// let mut command = tokio::process::Command::new("my-mcp-server");
/// command.arg("--stdio");
/// let remote = McpTools::connect_stdio(command).await?.with_prefix("files_");
/// let mut tools = Toolbox::new();
/// remote.add_to(&mut tools)?;
/// assert!(tools.validate(toolkit::Target::OpenAiChat).is_ok());
/// # Ok(()) }
/// ```
pub struct McpTools {
    client: Arc<RunningService<RoleClient, Host>>,
    tools: Vec<Tool>,
    prefix: String,
    timeout: Option<Duration>,
    /// Whether the imported tools are deferred ([`with_deferred`](McpTools::with_deferred)).
    deferred: bool,
    /// The namespace the imported tools go in ([`with_namespace`](McpTools::with_namespace)).
    namespace: Option<(String, String)>,
}

impl std::fmt::Debug for McpTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tools.iter().map(|t| t.name.as_ref()).collect();
        f.debug_struct("McpTools").field("tools", &names).field("prefix", &self.prefix).finish_non_exhaustive()
    }
}

impl McpTools {
    /// Starts `command` as an MCP server speaking over its stdin/stdout (its stderr is
    /// inherited), and lists its tools. The handshake and the list must be done within
    /// two minutes (a first `npx` run may download the server).
    ///
    /// The server process ends with the connection: when the `McpTools` (or a failed
    /// connect) is dropped, it is killed, even if the runtime is shutting down.
    pub async fn connect_stdio(command: tokio::process::Command) -> Result<Self, McpError> {
        Self::stdio(command, Host::default()).await
    }

    /// Connects to a streamable HTTP endpoint (`http://127.0.0.1:8080/mcp`, or
    /// `https://...`) and lists its tools, within two minutes.
    pub async fn connect_http(url: &str) -> Result<Self, McpError> {
        Self::http(url, Host::default()).await
    }

    /// [`connect_stdio`](McpTools::connect_stdio), answering the server's questions with
    /// `ask` (see [`connect_http_answering`](McpTools::connect_http_answering)).
    pub async fn connect_stdio_answering<F, Fut>(command: tokio::process::Command, ask: F) -> Result<Self, McpError>
    where
        F: Fn(Question) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Answer> + Send + 'static,
    {
        Self::stdio(command, Host::asking(ask)).await
    }

    /// [`connect_http`](McpTools::connect_http), answering the server's questions (MCP
    /// form elicitation) with `ask`: a server that defers a call for a person's approval
    /// (a toolkit server with a deferring approval gate) asks through it, in either
    /// protocol era, and the call runs or is refused by the answer. Without it the client
    /// declares no elicitation, and such a server refuses the call (its text says why).
    ///
    /// ```no_run
    /// use toolkit::mcp::{Answer, McpTools};
    ///
    /// # async fn run() -> Result<(), toolkit::mcp::McpError> {
    /// let remote = McpTools::connect_http_answering("http://127.0.0.1:8080/mcp", |question| async move {
    ///     eprintln!("{}", question.message); // "Approve `write_file` with {…}?"
    ///     let mut approve = serde_json::Map::new();
    ///     approve.insert("approve".into(), true.into());
    ///     Answer::Accept(approve)
    /// })
    /// .await?;
    /// # Ok(()) }
    /// ```
    pub async fn connect_http_answering<F, Fut>(url: &str, ask: F) -> Result<Self, McpError>
    where
        F: Fn(Question) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Answer> + Send + 'static,
    {
        Self::http(url, Host::asking(ask)).await
    }

    async fn stdio(mut command: tokio::process::Command, host: Host) -> Result<Self, McpError> {
        // The SDK kills the process from a task it spawns on drop; on a runtime that is
        // ending that task never runs, and the process would outlive the program.
        command.kill_on_drop(true);
        let transport = TokioChildProcess::new(command)?;
        within_connect_time(async { Self::listed(host.serve(transport).await.map_err(handshake)?).await }).await
    }

    async fn http(url: &str, host: Host) -> Result<Self, McpError> {
        let transport = StreamableHttpClientTransport::from_uri(url);
        within_connect_time(async { Self::listed(host.serve(transport).await.map_err(handshake)?).await }).await
    }

    /// Lists the server's tools, page by page: at most [`MAX_PAGES`] pages and
    /// [`MAX_TOOLS`] tools, and no cursor twice, so a server that pages without end is
    /// refused rather than followed.
    async fn listed(client: RunningService<RoleClient, Host>) -> Result<Self, McpError> {
        let refused = |message: String| McpError::Request { method: "tools/list", message };
        let (mut tools, mut cursor, mut seen) = (Vec::new(), None, std::collections::HashSet::new());
        for _ in 0..MAX_PAGES {
            let page = client
                .peer()
                .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor.take())))
                .await
                .map_err(|e| refused(e.to_string()))?;
            tools.extend(page.tools);
            if tools.len() > MAX_TOOLS {
                return Err(refused(format!("the server listed more than {MAX_TOOLS} tools")));
            }
            match page.next_cursor {
                None => {
                    let client = Arc::new(client);
                    return Ok(McpTools {
                        client,
                        tools,
                        prefix: String::new(),
                        timeout: None,
                        deferred: false,
                        namespace: None,
                    });
                }
                Some(next) if !seen.insert(next.clone()) => {
                    return Err(refused(format!("the server gave the cursor `{next}` twice")));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(refused(format!("the server's list of tools went on past {MAX_PAGES} pages")))
    }

    /// Names the tools `{prefix}{name}` in the toolbox (`files_read_file`), to keep
    /// apart tools of several servers and to let hooks match them (`matching =
    /// "files_*"`). The server still sees its own names.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// The time each call may take before it fails with `timed_out` (default: the
    /// toolbox's [`Limits::default_timeout`](crate::Limits::default_timeout)).
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Imports the tools deferred: a toolbox does not send them to the model until its
    /// `search_tools` finds them (see [`search`](crate::search)), so a large server's
    /// tools cost nothing in the prompt until needed.
    pub fn with_deferred(mut self, deferred: bool) -> Self {
        self.deferred = deferred;
        self
    }

    /// Puts the imported tools in a [`Namespace`](crate::search::Namespace) of the
    /// toolbox named `name`, described by `description` (what the server is for): the
    /// OpenAI Responses API with tool search shows the model the namespace until it
    /// loads the tools, and `search_tools` names it. With
    /// [`with_deferred`](McpTools::with_deferred), a large server costs the prompt one
    /// line until its tools are needed.
    pub fn with_namespace(mut self, name: impl Into<String>, description: impl Into<String>) -> Self {
        self.namespace = Some((name.into(), description.into()));
        self
    }

    /// The tools the server listed, as it described them.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// The specs the tools get in a toolbox: prefixed names (characters a model
    /// provider does not accept in a name become `_`, at most 64 characters; two names
    /// that come out the same are told apart with `_2`, `_3`, … in the server's order),
    /// the server's schemas unchanged, its annotations (MCP defaults where absent: not
    /// read-only, destructive, not idempotent, open world).
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut taken = std::collections::HashSet::new();
        self.tools
            .iter()
            .map(|tool| {
                let name = distinct(local_name(&self.prefix, &tool.name), &mut taken);
                self.spec(tool, name)
            })
            .collect()
    }

    fn spec(&self, tool: &Tool, name: String) -> ToolSpec {
        let description = tool.description.as_deref().unwrap_or_default();
        let mut spec = ToolSpec::new(name, description, Value::Object((*tool.input_schema).clone()));
        if let Some(output) = &tool.output_schema {
            spec = spec.with_output_schema(Value::Object((**output).clone()));
        }
        let hints = tool.annotations.clone().unwrap_or_default();
        let read_only = hints.read_only_hint.unwrap_or(false);
        spec = spec.with_annotations(Annotations {
            read_only,
            destructive: !read_only && hints.destructive_hint.unwrap_or(true),
            idempotent: hints.idempotent_hint.unwrap_or(false),
            open_world: hints.open_world_hint.unwrap_or(true),
        });
        if let Some(title) = tool.title.clone().or(hints.title) {
            spec = spec.with_title(title);
        }
        if let Some(timeout) = self.timeout {
            spec = spec.with_timeout(timeout);
        }
        spec.with_deferred(self.deferred)
    }

    /// Adds every tool to `toolbox` as a run-time tool, in the namespace if one was
    /// given; returns how many. Fails, adding none, if a name is already taken (a
    /// tool's, or the namespace's).
    pub fn add_to(&self, toolbox: &mut Toolbox) -> Result<usize, McpError> {
        let specs = self.specs();
        if let Some(taken) = specs.iter().find(|s| toolbox.spec(&s.name).is_some()) {
            return Err(crate::toolbox::ToolboxError::DuplicateName(taken.name.clone()).into());
        }
        let namespace = self.namespace.as_ref().map(|(name, description)| {
            crate::search::Namespace::new(name.clone(), description.clone())
                .with_tools(specs.iter().map(|s| s.name.clone()))
        });
        if let Some(namespace) = &namespace {
            if !crate::schema::is_valid_name(namespace.name()) {
                return Err(crate::toolbox::ToolboxError::InvalidName(namespace.name().to_owned()).into());
            }
            if toolbox.namespaces().iter().any(|ns| ns.name() == namespace.name()) {
                return Err(crate::toolbox::ToolboxError::DuplicateNamespace(namespace.name().to_owned()).into());
            }
        }
        for (tool, spec) in self.tools.iter().zip(specs) {
            let peer = self.client.peer().clone();
            let remote: Arc<str> = Arc::from(tool.name.as_ref());
            // The tool keeps the connection alive as long as it is in a toolbox.
            let client = Arc::clone(&self.client);
            toolbox.add_dynamic(FnTool::new(spec, move |arguments| {
                let _keep_alive = &client;
                call_remote(peer.clone(), Arc::clone(&remote), arguments)
            }))?;
        }
        if let Some(namespace) = namespace {
            toolbox.add_namespace(namespace)?;
        }
        Ok(self.tools.len())
    }

    /// Ends the connection now (and stops a server process started by
    /// [`connect_stdio`](McpTools::connect_stdio)); calls of the imported tools then
    /// fail as unavailable.
    pub async fn close(self) {
        self.client.cancellation_token().cancel();
    }
}

async fn call_remote(
    peer: Peer<RoleClient>,
    remote: Arc<str>,
    arguments: Map<String, Value>,
) -> Result<Output, ToolError> {
    let mut params = CallToolRequestParams::new(Cow::Owned(remote.to_string()));
    params.arguments = Some(arguments);
    // The server continues this call's trace (feature `otel`).
    super::trace::inject(&mut params.meta);
    match peer.call_tool(params).await {
        Ok(result) => from_mcp_result(result),
        Err(error) => Err(unreachable_error(&remote, error)),
    }
}

/// A toolbox outcome of an MCP result: its text blocks (joined by newlines), its
/// other blocks as [parts](crate::parts) with their bytes, or its structured content
/// when it has neither. A failed call's parts are named in its text.
fn from_mcp_result(result: CallToolResult) -> Result<Output, ToolError> {
    use super::content::{Block, from_block};
    let mut texts: Vec<String> = Vec::new();
    let mut parts = Vec::new();
    for block in &result.content {
        match from_block(block) {
            Block::Text(text) => texts.push(text),
            Block::Part(part) => parts.push(part),
        }
    }
    if texts.is_empty()
        && parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        texts.push(structured.to_string());
    }
    if result.is_error == Some(true) {
        texts.extend(parts.iter().map(crate::parts::Part::describe));
        return Err(ToolError::new(ErrorKind::ToolFailed, texts.join("\n")));
    }
    Ok(Output::text(texts.join("\n")).with_parts(parts))
}

fn unreachable_error(remote: &str, error: ServiceError) -> ToolError {
    let message = match &error {
        ServiceError::McpError(data) => format!("The MCP server refused the call: {}", data.message),
        _ => "The MCP server providing this tool is not reachable; try again later or use another tool.".to_string(),
    };
    ToolError::new(ErrorKind::Unavailable, message).with_detail(format!("MCP tool `{remote}`: {error}"))
}

/// The most pages of `tools/list` read when connecting.
const MAX_PAGES: usize = 100;
/// The most tools imported from one server.
const MAX_TOOLS: usize = 10_000;
/// How long connecting (the handshake and the tool list) may take.
const CONNECT_TIME: Duration = Duration::from_secs(120);

fn handshake(e: impl std::fmt::Display) -> McpError {
    McpError::Handshake(e.to_string())
}

/// `connect`, or a handshake error when it takes longer than [`CONNECT_TIME`] (the
/// connection, and a server process, are dropped with it).
async fn within_connect_time<T>(connect: impl Future<Output = Result<T, McpError>>) -> Result<T, McpError> {
    tokio::time::timeout(CONNECT_TIME, connect).await.unwrap_or_else(|_| {
        Err(McpError::Handshake(format!(
            "the server did not finish the handshake and its list of tools within {}s",
            CONNECT_TIME.as_secs()
        )))
    })
}

/// `{prefix}{name}`, with what a provider does not accept in a tool name replaced by `_`
/// and cut to 64 characters (`tool` when nothing is left).
fn local_name(prefix: &str, name: &str) -> String {
    let name: String = format!("{prefix}{name}")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' })
        .take(64)
        .collect();
    if name.is_empty() { "tool".into() } else { name }
}

/// `name`, or, when it is taken already, the first of `name_2`, `name_3`, … that is not
/// (cut so it stays within 64 characters); marked taken.
fn distinct(name: String, taken: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while taken.contains(&candidate) {
        let suffix = format!("_{n}");
        candidate = format!("{}{suffix}", &name[..name.len().min(64 - suffix.len())]);
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::ContentBlock;

    /// A server that never answers the handshake is given up on after two minutes (on a
    /// paused clock, which runs ahead whenever nothing else can), and its process ends
    /// with the runtime even though the SDK's own kill (a spawned task) never ran.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_server_that_never_answers_is_given_up_on_after_two_minutes_and_killed() {
        // A `sleep` this test can find again by its command line.
        let marker = format!("599.{}", std::process::id());
        let runtime =
            tokio::runtime::Builder::new_current_thread().enable_all().start_paused(true).build().expect("a runtime");
        runtime.block_on(async {
            let started = tokio::time::Instant::now();
            let mut silent = tokio::process::Command::new("sleep");
            silent.arg(&marker);
            let error = McpTools::connect_stdio(silent).await.expect_err("no handshake");
            assert_eq!(started.elapsed(), CONNECT_TIME);
            assert!(matches!(&error, McpError::Handshake(m) if m.contains("within 120s")), "{error}");
        });
        drop(runtime);
        let running = || {
            std::fs::read_dir("/proc").into_iter().flatten().flatten().find_map(|entry| {
                let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
                String::from_utf8_lossy(&cmdline).contains(&marker).then(|| entry.file_name())
            })
        };
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while running().is_some() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(pid) = running() {
            // Not left behind (it would hold the test run's output open for ten minutes).
            let _ = std::process::Command::new("kill").arg("-9").arg(&pid).status();
            panic!("the server process outlived its runtime");
        }
    }

    #[test]
    fn names_are_made_acceptable_to_every_provider() {
        assert_eq!(local_name("gh_", "repos.list"), "gh_repos_list");
        assert_eq!(local_name("", &"x".repeat(80)).len(), 64);
        assert_eq!(local_name("", ""), "tool");
    }

    #[test]
    fn names_that_come_out_the_same_are_told_apart() {
        let mut taken = std::collections::HashSet::new();
        let names: Vec<String> = ["a.b", "a_b", "a b", "", "tool"]
            .iter()
            .map(|remote| distinct(local_name("", remote), &mut taken))
            .collect();
        assert_eq!(names, ["a_b", "a_b_2", "a_b_3", "tool", "tool_2"]);
        let long = "x".repeat(80);
        let first = distinct(local_name("", &long), &mut taken);
        let second = distinct(local_name("", &long), &mut taken);
        assert_eq!((first.len(), second.len()), (64, 64));
        assert!(second.ends_with("_2") && crate::schema::is_valid_name(&second), "{second}");
    }

    #[test]
    fn error_results_are_failed_calls_with_the_servers_text() {
        let failed = from_mcp_result(CallToolResult::error(vec![ContentBlock::text("no such city")])).unwrap_err();
        assert_eq!((failed.kind, failed.message.as_str()), (ErrorKind::ToolFailed, "no such city"));
        let ok = from_mcp_result(CallToolResult::success(vec![ContentBlock::text("a"), ContentBlock::text("b")]));
        assert_eq!(ok.unwrap().as_str(), "a\nb");
    }
}
