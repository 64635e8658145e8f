//! Namespaces: named groups of tools with a description of what the group is for.

/// A group of a toolbox's tools under one name, with a description of what they are for
/// (`crm`: "Customer lookup and order management").
///
/// A namespace changes no tool's name, and every tool stays callable by its own name.
/// What it changes is what a model is shown:
///
/// - the OpenAI Responses client (feature `openai`) built with `tool_search(true)` sends
///   the group as one `namespace` tool: the model sees the namespace's name and
///   description, and the API's own tool search loads the deferred tools inside it;
/// - everywhere else, `search_tools` lists the namespaces of the deferred tools in its
///   description, finds a tool by its namespace's words as well as its own, and says
///   which namespace each tool it found is in.
///
/// A tool is in at most one namespace. Add one with
/// [`Toolbox::add_namespace`](crate::Toolbox::add_namespace):
///
/// ```
/// use toolkit::prelude::*;
/// use toolkit::search::Namespace;
///
/// /// List a customer's open orders.
/// #[tool(defer)]
/// fn list_open_orders(customer_id: String) -> String { format!("{customer_id}: none") }
///
/// /// Refund an order.
/// #[tool(defer, destructive)]
/// fn refund_order(order_id: u64) -> String { format!("refunded {order_id}") }
///
/// let tools = toolbox![list_open_orders, refund_order].with_namespace(
///     Namespace::new("crm", "Customer lookup and order management.").with_tools(["list_open_orders", "refund_order"]),
/// );
/// assert_eq!(tools.namespace_of("refund_order").map(|ns| ns.name()), Some("crm"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    name: String,
    description: String,
    tools: Vec<String>,
}

impl Namespace {
    /// A namespace with no tools yet. The name follows the rule of tool names
    /// (`^[a-zA-Z0-9_-]{1,64}$`), checked when it is added to a toolbox.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Namespace { name: name.into(), description: description.into(), tools: Vec::new() }
    }

    /// Adds these tools (by name) to the namespace.
    pub fn with_tools<S: Into<String>>(mut self, tools: impl IntoIterator<Item = S>) -> Self {
        self.tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What its tools are for.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Its tools' names, in the order given.
    pub fn tools(&self) -> &[String] {
        &self.tools
    }

    /// Whether the tool `name` is in it.
    pub fn contains(&self, name: &str) -> bool {
        self.tools.iter().any(|t| t == name)
    }
}
