//! The main example: an assistant that reads files under a data directory (text, and
//! images and PDFs it can look at) and tells the time, with hooks keeping it safe.
//!
//! ```sh
//! cargo run --example file_agent                      # offline: a scripted model
//! OPENAI_API_KEY=... cargo run --example file_agent   # a real model (OPENAI_BASE_URL, TOOLKIT_MODEL)
//! cargo run --example file_agent -- "What is in report.md?"
//! GEMINI_API_KEY=... cargo run --example file_agent -- --provider gemini
//! ```
//!
//! `--provider openai|responses|anthropic|gemini` picks the client (default `openai`);
//! without that provider's key the scripted model runs.
//!
//! The example creates a data directory with a short report, a long log, a small image
//! (`read_file` returns it as an image, which the model client sends in its API's shape)
//! and a small binary file. The hooks:
//!
//! - relative paths are resolved against the data directory (`NormalizePaths`);
//! - anything outside it, `/etc/passwd` included, is blocked, and the model hears why
//!   (`PathSandbox`);
//! - results over 4,000 characters are cut, and say so (`Truncate`);
//! - a missing file and a binary file no model can read get a message the model can act
//!   on (an error hook);
//! - every call, blocked ones included, goes to an audit log in JSON Lines (`AuditLog`).
//!
//! Offline, a scripted model makes exactly the calls that show each of these; the
//! example prints the conversation as it happens, what each hook did, and a table of
//! the call records.

#[path = "support/files.rs"]
mod files;
#[path = "support/show.rs"]
mod show;

use std::error::Error;

use toolkit::agent::Agent;
use toolkit::hooks::AuditLog;
use toolkit::model::{Message, ModelRequest, ScriptedModel, Turn};
use toolkit::toolbox;

const QUESTION: &str = "What does the quarterly report say, and what time is it? \
                        Also show me /etc/passwd, and check notes.txt, logo.png, backup.bin and server.log.";

/// The calls a model would make for [`QUESTION`], and an answer built from the results.
fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::calls([("list_files", r#"{"path": "."}"#), ("current_time", "{}")]).usage(310, 40),
        Turn::calls([
            ("read_file", r#"{"path": "report.md"}"#),
            ("read_file", r#"{"path": "/etc/passwd"}"#),
            ("read_file", r#"{"path": "server.log"}"#),
        ])
        .usage(420, 60),
        Turn::calls([
            ("read_file", r#"{"path": "notes.txt"}"#),
            ("read_file", r#"{"path": "logo.png"}"#),
            ("read_file", r#"{"path": "backup.bin"}"#),
        ])
        .usage(1650, 45),
        Turn::with(|request| {
            let time = result_of(request, "current_time").unwrap_or("unknown");
            Turn::text(format!(
                "Here is what I found:\n\
                 - The quarterly report: revenue grew 12% to 4.2 million, and churn fell from 3.1% to 2.4%. \
                 Next quarter's plan is to ship the MCP server and hire two engineers.\n\
                 - It is {time} (UTC).\n\
                 - /etc/passwd is outside the data directory, so I was not allowed to read it.\n\
                 - server.log is long: I only saw its first 4,000 characters (GET requests, all 200).\n\
                 - There is no notes.txt; logo.png is a small image (a 4×4 PNG), and backup.bin is a binary \
                 file I cannot read."
            ))
            .usage(1790, 120)
        }),
    ])
}

/// The content of the tool message answering the first call of `tool` in the request.
fn result_of<'r>(request: &'r ModelRequest<'_>, tool: &str) -> Option<&'r str> {
    let id = request.messages.iter().find_map(|m| match m {
        Message::Assistant(a) => a.tool_calls.iter().find(|c| c.name == tool).map(|c| c.id.as_str()),
        _ => None,
    })?;
    request.messages.iter().find_map(|m| match m {
        Message::Tool { tool_call_id, content, .. } if tool_call_id == id => Some(content.as_str()),
        _ => None,
    })
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    show::exit_code(run().await)
}

async fn run() -> Result<(), Box<dyn Error>> {
    // `TOOLKIT_FILE_AGENT_DIR` moves the sample data and the audit log (tests running the
    // example at the same time each use their own).
    let work = std::env::var_os("TOOLKIT_FILE_AGENT_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("toolkit-file-agent"));
    let data = files::create_sample_data(&work.join("data"))?;
    let audit_path = work.join("audit.jsonl");
    let _ = std::fs::remove_file(&audit_path);
    let audit = AuditLog::to_file(&audit_path)?;
    println!("data directory: {}", data.display());
    println!("audit log:      {}", audit_path.display());

    let tools = toolbox![files::read_file, files::list_files, files::current_time]
        .with_hooks(files::file_hooks(&data))
        .with_state(files::file_state(&data)?)
        .with_sink(audit.clone());
    let model = show::pick_model(script())?;
    let agent = Agent::builder(model, tools)
        .name("file-assistant")
        .system_prompt(
            "You answer questions about the files in the user's data directory. \
             Use list_files to see them and read_file to read one; paths are relative to that directory. \
             Use current_time for the date and time.",
        )
        .on_event(show::print_event)
        .build()?;

    let question = show::question(QUESTION);
    println!("user: {question}\n");
    let run = show::run_and_show(&agent, question).await?;
    audit.flush()?;
    let lines = std::fs::read_to_string(&audit_path)?.lines().count();
    let plural = |n: usize, what: &str| if n == 1 { format!("1 {what}") } else { format!("{n} {what}s") };
    // Offline, the scripted model's token counts are synthetic (see the README).
    println!(
        "\n{}, {}, {} tokens; {lines} audit lines written to {}",
        plural(run.iterations, "model turn"),
        plural(run.records.len(), "tool call"),
        run.usage.total_tokens,
        audit_path.display()
    );
    Ok(())
}
