//! `examples/docs.rs` publishes the example tools' documentation: a stable Markdown page
//! and one JSON file per provider format, each parsing and holding valid schemas.

mod support;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use support::{example, scratch};
use toolkit::Target;
use toolkit::schema::docs_file_name;

fn run_docs(dir: &Path) -> String {
    let out = Command::new(example("docs")).arg(dir).output().expect("docs runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "docs failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The `json` blocks after each "**Example call:**", in page order.
fn example_calls(page: &str) -> Vec<Value> {
    page.split("**Example call:**")
        .skip(1)
        .map(|rest| {
            let block = rest.split("```json").nth(1).and_then(|b| b.split("```").next()).expect("a json block");
            serde_json::from_str(block.trim()).unwrap_or_else(|e| panic!("example call is not JSON ({e}): {block}"))
        })
        .collect()
}

#[test]
fn docs_writes_a_stable_page_and_every_targets_json() {
    let dir = scratch("docs");
    let stdout = run_docs(&dir);
    assert!(stdout.contains("every target accepts all 4 tools"), "{stdout}");

    let page = std::fs::read_to_string(dir.join("TOOLS.md")).expect("TOOLS.md");
    insta::assert_snapshot!("docs_tools_md", page);
    insta::assert_json_snapshot!("docs_tools_mcp", read_json(&dir.join("tools.mcp.json")));

    // Writing again gives the same bytes, so the files can be committed and diffed.
    let again = scratch("docs-again");
    run_docs(&again);
    for name in std::iter::once("TOOLS.md".to_string()).chain(Target::ALL.map(docs_file_name)) {
        let first = std::fs::read(dir.join(&name)).unwrap();
        assert_eq!(first, std::fs::read(again.join(&name)).unwrap(), "{name} differs between runs");
    }
}

#[test]
fn every_targets_json_parses_and_its_schemas_are_valid() {
    let dir = scratch("docs-json");
    run_docs(&dir);
    let names = ["read_file", "list_files", "current_time", "get_weather"];
    for target in Target::ALL {
        let path = dir.join(docs_file_name(target));
        let tools = read_json(&path);
        let tools = tools.as_array().unwrap_or_else(|| panic!("{} is not an array", path.display()));
        assert_eq!(tools.len(), names.len(), "{}", path.display());
        for (tool, name) in tools.iter().zip(names) {
            // Each format puts the name and the schema in its own place.
            let (found, schema) = match target {
                Target::OpenAiChat | Target::OpenAiChatStrict => {
                    (&tool["function"]["name"], tool["function"].get("parameters"))
                }
                Target::OpenAiResponses => (&tool["name"], tool.get("parameters")),
                Target::Anthropic => (&tool["name"], tool.get("input_schema")),
                Target::Gemini => (&tool["name"], tool.get("parameters")),
                Target::Mcp => (&tool["name"], tool.get("inputSchema")),
                _ => unreachable!("a new target needs a case here"),
            };
            assert_eq!(found, name, "{target}");
            // Gemini leaves out the parameters of a tool that takes none.
            if let Some(schema) = schema {
                assert_eq!(schema["type"], "object", "{target} {name}");
                jsonschema::validator_for(schema).unwrap_or_else(|e| panic!("{target} {name}: invalid schema: {e}"));
            }
            if let Some(output) = tool.get("outputSchema") {
                jsonschema::validator_for(output).unwrap_or_else(|e| panic!("{name}: invalid output schema: {e}"));
            }
        }
    }

    // The page's example calls are valid arguments for their tools.
    let page = std::fs::read_to_string(dir.join("TOOLS.md")).unwrap();
    let mcp = read_json(&dir.join(docs_file_name(Target::Mcp)));
    let examples = example_calls(&page);
    assert_eq!(examples.len(), names.len(), "one example call per tool");
    for (tool, call) in mcp.as_array().unwrap().iter().zip(&examples) {
        let schema = jsonschema::validator_for(&tool["inputSchema"]).unwrap();
        assert!(schema.is_valid(call), "{}: example {call} does not validate", tool["name"]);
    }
}

#[test]
fn docs_without_a_directory_says_how_to_run_it() {
    let out = Command::new(example("docs")).output().expect("docs runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: docs OUTPUT_DIR"));
}
