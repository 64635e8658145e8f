//! A synthetic catalog of tools for the tool-search benchmark and its token test: each
//! tool a verb on a noun in a system (`crm_refund_payment`), described and with
//! parameters as real tools are.

use serde_json::json;
use toolkit::ToolSpec;

const VERBS: [&str; 10] =
    ["get", "list", "create", "update", "delete", "search", "send", "export", "import", "archive"];
const NOUNS: [&str; 40] = [
    "invoice",
    "customer",
    "order",
    "ticket",
    "user",
    "report",
    "payment",
    "refund",
    "shipment",
    "product",
    "review",
    "coupon",
    "subscription",
    "account",
    "contract",
    "lead",
    "campaign",
    "event",
    "calendar",
    "message",
    "file",
    "folder",
    "repository",
    "issue",
    "build",
    "deployment",
    "server",
    "database",
    "backup",
    "alert",
    "metric",
    "log",
    "token",
    "team",
    "project",
    "task",
    "comment",
    "note",
    "photo",
    "playlist",
];
const SYSTEMS: [&str; 25] = [
    "billing",
    "crm",
    "helpdesk",
    "warehouse",
    "shop",
    "payroll",
    "marketing",
    "calendar",
    "mail",
    "drive",
    "git",
    "ci",
    "cloud",
    "monitoring",
    "analytics",
    "hr",
    "legal",
    "sales",
    "support",
    "finance",
    "inventory",
    "travel",
    "music",
    "photos",
    "notes",
];

/// `n` tools (at most 10,000), each a verb on a noun in a system, described and with
/// parameters as real tools are.
pub fn tools(n: usize) -> Vec<ToolSpec> {
    let mut out = Vec::with_capacity(n);
    'all: for system in SYSTEMS {
        for noun in NOUNS {
            for verb in VERBS {
                if out.len() == n {
                    break 'all;
                }
                let name = format!("{system}_{verb}_{noun}");
                let description = format!(
                    "{verb} {noun} records in the {system} system. Use it when the user asks to {verb} a {noun} \
                     in {system}; it returns the {noun} as JSON with its id, status and last change."
                );
                let schema = json!({
                    "type": "object",
                    "properties": {
                        format!("{noun}_id"): {"type": "string", "description": format!("The {noun}'s id in {system}.")},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many to return."},
                        "include_archived": {"type": "boolean", "description": "Also archived records."}
                    },
                    "required": [format!("{noun}_id")],
                    "additionalProperties": false
                });
                out.push(ToolSpec::new(name, description, schema));
            }
        }
    }
    out
}

/// The `tools` array of the first request of an agent run on a toolbox of `n` of these
/// tools, as `target` takes it: every tool sent in full, and every tool deferred (only
/// `search_tools` is sent).
pub fn first_request_tools(n: usize, target: toolkit::Target) -> (String, String) {
    let specs = tools(n);
    let all = serde_json::Value::Array(specs.iter().map(|s| s.export(target)).collect()).to_string();
    let mut toolbox = toolkit::Toolbox::new();
    for spec in specs {
        let tool = toolkit::FnTool::new(spec.with_deferred(true), |_| async { Ok(toolkit::Output::text("ok")) });
        toolbox.add_dynamic(tool).unwrap();
    }
    let search = toolbox.spec(toolkit::search::SEARCH_TOOLS).unwrap();
    (all, serde_json::Value::Array(vec![search.export(target)]).to_string())
}
