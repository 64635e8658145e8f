//! Tool search over a large toolbox: building the index of 10,000 tools, one search in
//! it, and what deferring saves on the first request of a 1,000-tool toolbox (the bytes
//! of the `tools` array each provider gets, printed once). `cargo bench --bench
//! tool_search`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolkit::search::ToolIndex;
use toolkit::{Target, ToolSpec};

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
fn tools(n: usize) -> Vec<ToolSpec> {
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

/// The bytes of the `tools` array of a first request: every tool, or only
/// `search_tools` (each tool deferred).
fn first_request_bytes() {
    let specs = tools(1000);
    let deferred: Vec<ToolSpec> = specs.iter().cloned().map(|s| s.with_deferred(true)).collect();
    let mut toolbox = toolkit::Toolbox::new();
    for spec in deferred {
        let tool = toolkit::FnTool::new(spec, |_| async { Ok(toolkit::Output::text("ok")) });
        toolbox.add_dynamic(tool).unwrap();
    }
    let search = toolbox.spec(toolkit::search::SEARCH_TOOLS).unwrap();
    for target in [Target::OpenAiResponses, Target::Anthropic, Target::Gemini] {
        let all: usize = specs.iter().map(|s| s.export(target).to_string().len() + 1).sum::<usize>() + 1;
        let first = search.export(target).to_string().len() + 2;
        let saved = 100.0 * (1.0 - first as f64 / all as f64);
        eprintln!(
            "1,000 tools, {target}: first request's tools {all} bytes in full, {first} deferred ({saved:.1}% fewer)"
        );
    }
}

fn bench(c: &mut Criterion) {
    first_request_bytes();
    let specs = tools(10_000);
    c.bench_function("index 10,000 tools", |b| b.iter(|| black_box(ToolIndex::new(specs.iter()))));
    let index = ToolIndex::new(specs.iter());
    let queries = [
        "refund the customer's last payment",
        "send a message to the support team",
        "which server alerts fired in monitoring",
        "archive old photos",
    ];
    c.bench_function("search 10,000 tools", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(index.search(queries[i], 5))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
