//! The schemas a provider receives: one canonical schema per tool, exported per target,
//! each a valid JSON Schema, with snapshots a reviewer reads as diffs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolkit::prelude::*;

/// How results are ordered.
#[derive(Debug, Default, Clone, Copy, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sort {
    #[default]
    Relevance,
    Newest,
}

/// Narrows a search.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Filters {
    /// Only documents with all of these tags.
    pub tags: Vec<String>,
    /// Only documents changed in the last N days.
    pub newer_than_days: Option<u32>,
}

/// One search hit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    /// The document's title.
    pub title: String,
    /// How well it matches, from 0 to 1.
    pub score: f64,
}

/// Search the document store.
///
/// Use when the user asks about company documents: policies, reports, meeting notes.
/// Not for the public web.
#[tool(read_only, idempotent)]
#[allow(clippy::too_many_arguments)]
fn search_docs(
    /// Words to look for, as the user said them.
    #[arg(min_length = 1, max_length = 200)]
    query: String,
    /// How many hits to return.
    #[arg(default = 10, minimum = 1, maximum = 50)]
    limit: u32,
    /// How to order hits.
    #[arg(default)]
    sort: Sort,
    /// Optional narrowing.
    filters: Option<Filters>,
    /// The kind of document, for example "report".
    r#type: Option<String>,
    /// The token of the next page, from an earlier answer.
    #[arg(rename = "pageToken", pattern = "^[A-Za-z0-9]+$")]
    page_token: Option<String>,
    /// Extra weight per field name.
    boosts: Option<BTreeMap<String, f64>>,
    /// Match the words exactly.
    exact: bool,
) -> Vec<Hit> {
    let _ = (query, limit, sort, filters, r#type, page_token, boosts, exact);
    vec![Hit { title: "Travel policy".into(), score: 0.9 }]
}

/// Tell the current time on the server.
#[tool(name = "current_time", title = "Current time")]
fn now() -> String {
    "12:00".into()
}

fn tools() -> Toolbox {
    toolbox![search_docs, now]
}

const TARGETS: [(Target, &str); 6] = [
    (Target::OpenAiChat, "openai_chat"),
    (Target::OpenAiChatStrict, "openai_chat_strict"),
    (Target::OpenAiResponses, "openai_responses"),
    (Target::Anthropic, "anthropic"),
    (Target::Gemini, "gemini"),
    (Target::Mcp, "mcp"),
];

#[test]
fn the_canonical_schema_keeps_declaration_order_and_descriptions() {
    let tools = tools();
    let schema = &tools.spec("search_docs").unwrap().input_schema;
    let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(names, ["query", "limit", "sort", "filters", "type", "pageToken", "boosts", "exact"]);
    assert_eq!(schema["required"], json!(["query", "exact"]));
    assert_eq!(schema["additionalProperties"], json!(false));
    assert_eq!(schema["properties"]["limit"]["default"], json!(10));
    assert_eq!(schema["properties"]["limit"]["minimum"], json!(1));
    assert_eq!(schema["properties"]["limit"]["maximum"], json!(50));
    assert_eq!(schema["properties"]["query"]["maxLength"], json!(200));
    assert_eq!(schema["properties"]["sort"]["default"], json!("relevance"));
    assert_eq!(schema["properties"]["query"]["description"], json!("Words to look for, as the user said them."));
    assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
    assert!(!schema.to_string().contains("uint32"), "non-standard formats are noise");
    let spec = tools.spec("search_docs").unwrap();
    assert_eq!(
        spec.description,
        "Search the document store.\n\nUse when the user asks about company documents: policies, reports, meeting notes.\nNot for the public web."
    );
    assert!(spec.output_schema.is_some(), "a typed output publishes its schema");
    assert!(tools.spec("current_time").unwrap().output_schema.is_none(), "text has no output schema");
}

#[test]
fn every_export_is_a_valid_json_schema() {
    let tools = tools();
    for spec in tools.specs() {
        jsonschema::draft202012::meta::validate(&spec.input_schema)
            .unwrap_or_else(|e| panic!("{}: canonical schema: {e}", spec.name));
        if let Some(out) = &spec.output_schema {
            jsonschema::draft202012::meta::validate(out)
                .unwrap_or_else(|e| panic!("{}: output schema: {e}", spec.name));
        }
        for (target, label) in TARGETS {
            let exported = spec.export(target);
            let schema = match target {
                Target::OpenAiChat | Target::OpenAiChatStrict => &exported["function"]["parameters"],
                Target::OpenAiResponses => &exported["parameters"],
                // Gemini's OpenAPI subset, or its JSON Schema form where the subset would
                // cut the schema (both are JSON Schema as far as the meta-schema goes).
                Target::Gemini => exported.get("parameters").unwrap_or(&exported["parametersJsonSchema"]),
                Target::Anthropic => &exported["input_schema"],
                Target::Mcp => &exported["inputSchema"],
                _ => unreachable!(),
            };
            if target == Target::Gemini && spec.takes_no_arguments() {
                // Gemini rejects an object with no properties: a tool without
                // arguments is declared without `parameters`.
                assert!(exported.get("parameters").is_none(), "{exported}");
                assert!(exported.get("parametersJsonSchema").is_none(), "{exported}");
                continue;
            }
            assert!(schema.is_object(), "{label}: {exported}");
            jsonschema::draft202012::meta::validate(schema).unwrap_or_else(|e| panic!("{}/{label}: {e}", spec.name));
        }
    }
}

#[test]
fn arguments_the_parser_accepts_conform_to_the_schema_and_defaults_too() {
    let tools = tools();
    let schema = &tools.spec("search_docs").unwrap().input_schema;
    let good = json!({"query": "travel", "exact": false, "limit": 5, "sort": "newest",
                      "filters": {"tags": ["hr"], "newer_than_days": 30}, "type": "report",
                      "pageToken": "abc123", "boosts": {"title": 2.0}});
    jsonschema::draft202012::validate(schema, &good).unwrap();
    for (name, property) in schema["properties"].as_object().unwrap() {
        if let Some(default) = property.get("default") {
            let one = json!({"query": "q", "exact": true, name.as_str(): default});
            jsonschema::draft202012::validate(schema, &one).unwrap_or_else(|e| panic!("default of {name}: {e}"));
        }
    }
    let bad = json!({"query": "", "exact": false});
    assert!(!jsonschema::draft202012::is_valid(schema, &bad), "minLength is in the schema");
}

#[tokio::test]
async fn a_typed_output_conforms_to_its_output_schema() {
    let tools = tools();
    let r = tools.call(ToolCall::new("1", "search_docs", r#"{"query": "travel", "exact": true}"#)).await;
    let output: Value = serde_json::from_str(&r.content).unwrap();
    let schema = tools.spec("search_docs").unwrap().output_schema.clone().unwrap();
    jsonschema::draft202012::validate(&schema, &output).unwrap();
}

#[test]
fn strict_makes_every_property_required_and_optional_ones_nullable() {
    let spec = tools().spec("search_docs").unwrap().clone();
    // `boosts` is an open map, which strict mode cannot represent: the tool goes out
    // without `strict`, with its plain schema.
    let plain = spec.export(Target::OpenAiChatStrict);
    assert_eq!(plain["function"].get("strict"), None, "{plain}");
    assert_eq!(plain["function"]["parameters"], spec.input_schema);
    // Without it, strict.
    let mut schema = spec.input_schema.clone();
    schema["properties"].as_object_mut().unwrap().remove("boosts");
    let exported = ToolSpec::new("search_docs", spec.description.clone(), schema).export(Target::OpenAiChatStrict);
    assert_eq!(exported["function"]["strict"], json!(true));
    let params = &exported["function"]["parameters"];
    let required: Vec<&str> = params["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert_eq!(required, ["query", "limit", "sort", "filters", "type", "pageToken", "exact"]);
    let page_token = params["properties"]["pageToken"].to_string();
    assert!(page_token.contains("null"), "optional becomes nullable: {page_token}");
    assert!(!params.to_string().contains("\"default\""), "strict mode takes no defaults");
}

#[test]
fn validate_reports_what_a_target_cannot_take_precisely() {
    let tools = tools();
    assert_eq!(tools.validate(Target::Anthropic), Ok(()));
    let problems = tools.validate(Target::OpenAiChatStrict).unwrap_err();
    assert!(
        problems.iter().any(|p| p.tool == "search_docs" && p.path.contains("boosts")),
        "an open map cannot be strict: {problems:?}"
    );
    assert!(problems.iter().all(|p| !p.to_string().is_empty()));
}

#[test]
fn gemini_gets_its_subset_unless_the_subset_would_cut_the_schema() {
    let spec = tools().spec("search_docs").unwrap().clone();
    // `boosts` is a map of numbers: the OpenAPI subset has no `additionalProperties`, so
    // the tool goes out in Gemini's JSON Schema form, which keeps the value type.
    let exported = spec.export(Target::Gemini);
    assert!(exported.get("parameters").is_none(), "{exported}");
    let json_form = &exported["parametersJsonSchema"];
    assert_eq!(json_form["properties"]["boosts"]["additionalProperties"]["type"], json!("number"));
    // That form has no `pattern` or lengths: they are told in the description instead.
    let query = json_form["properties"]["query"]["description"].as_str().unwrap();
    assert!(query.ends_with("At least 1 character. At most 200 characters."), "{query}");
    assert_eq!(tools().validate(Target::Gemini), Ok(()), "a map is no fault in the JSON Schema form");
    // Without the map: the subset, references inlined and no type arrays.
    let mut schema = spec.input_schema.clone();
    schema["properties"].as_object_mut().unwrap().remove("boosts");
    let exported = ToolSpec::new("search_docs", spec.description.clone(), schema).export(Target::Gemini);
    let text = exported.to_string();
    assert!(exported.get("parametersJsonSchema").is_none(), "{text}");
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    assert!(!text.contains(r#""type":["#), "{text}");
    assert_eq!(exported["parameters"]["properties"]["sort"]["enum"], json!(["relevance", "newest"]));
}

#[test]
fn mcp_carries_title_annotations_and_output_schema() {
    let tools = tools();
    let search = tools.spec("search_docs").unwrap().export(Target::Mcp);
    assert_eq!(search["annotations"]["readOnlyHint"], json!(true));
    assert_eq!(search["annotations"]["idempotentHint"], json!(true));
    assert_eq!(search["inputSchema"]["type"], json!("object"));
    let now = tools.spec("current_time").unwrap().export(Target::Mcp);
    assert_eq!(now["title"], json!("Current time"));
    assert!(now.get("outputSchema").is_none());
}

#[test]
fn snapshots_of_every_target() {
    let tools = tools();
    for (target, label) in TARGETS {
        insta::assert_json_snapshot!(format!("export_{label}"), tools.export(target));
    }
    insta::assert_json_snapshot!("canonical_search_docs", tools.spec("search_docs").unwrap().input_schema);
    insta::assert_snapshot!("markdown", tools.markdown("Document tools"));
}

/// Count things.
#[tool]
fn count_things(n: u32) -> u64 {
    u64::from(n)
}

#[test]
fn a_scalar_output_is_a_note_for_mcp_not_a_rejection() {
    let tools = toolbox![count_things];
    assert_eq!(tools.validate(Target::Mcp), Ok(()));
    let notes = tools.notes(Target::Mcp);
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].rule.contains("outputSchema"), "{}", notes[0]);
}

/// Import rows of anything.
#[tool]
fn import_rows(
    /// The rows, as they come.
    rows: Vec<Value>,
) -> usize {
    rows.len()
}

/// A list of untyped values (`Vec<serde_json::Value>`, which schemars writes with
/// `items: true`) keeps its `items` in every export and is reported where a target
/// cannot take an untyped value (before, the boolean `items` escaped the checks, and the
/// strict OpenAI and Gemini exports dropped it: an array without `items`, which both
/// refuse, while `validate` said nothing).
#[test]
fn a_list_of_untyped_values_keeps_its_items_and_is_reported_where_untyped_is_refused() {
    let tools = toolbox![import_rows];
    let spec = tools.spec("import_rows").unwrap();
    assert_eq!(spec.input_schema["properties"]["rows"]["items"], json!({}));
    for target in [Target::OpenAiChat, Target::OpenAiChatStrict, Target::Anthropic, Target::Gemini, Target::Mcp] {
        let text = spec.export(target).to_string();
        assert!(text.contains(r#""items""#), "{target:?}: {text}");
    }
    for target in [Target::OpenAiChatStrict, Target::Gemini] {
        let problems = tools.validate(target).unwrap_err();
        assert!(problems.iter().any(|p| p.path.contains("rows")), "{target:?}: {problems:?}");
    }
    assert_eq!(tools.validate(Target::Anthropic), Ok(()));
}

/// Page through results.
#[tool]
fn page(
    /// Results per page.
    #[arg(one_of = [10, 25, 50])]
    size: u8,
) -> u8 {
    size
}

/// Gemini takes `enum` on strings only (an integer enum is a 400, "enum: only allowed for
/// STRING type"): the values a number may take go into its description (before, they
/// went out as `{"type": "integer", "enum": ["10", ...], "format": "enum"}`).
#[test]
fn gemini_gets_the_values_of_a_number_in_words_not_as_an_enum() {
    let exported = toolbox![page].spec("page").unwrap().export(Target::Gemini);
    let size = &exported["parameters"]["properties"]["size"];
    assert_eq!(size["type"], "integer", "{exported}");
    assert!(size.get("enum").is_none() && size.get("format").is_none(), "{size}");
    assert_eq!(size["description"], "Results per page. One of 10, 25, 50.");
}

/// Look up an OData collection.
#[tool]
fn odata(
    /// How many to return.
    #[arg(rename = "$top")]
    top: u32,
    /// Where to start.
    skip: u32,
) -> u32 {
    top + skip
}

/// Anthropic refuses a whole request when one parameter name is outside
/// `^[a-zA-Z0-9_.-]{1,64}$` (`$top`, `filter[id]`, a name of 65 characters): `validate`
/// says so, naming the parameter (before, it said nothing).
#[test]
fn validate_names_the_parameters_anthropic_refuses() {
    let problems = toolbox![odata].validate(Target::Anthropic).unwrap_err();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path, "$top");
    assert!(problems[0].rule.contains("^[a-zA-Z0-9_.-]{1,64}$"), "{}", problems[0]);
    assert_eq!(toolbox![page].validate(Target::Anthropic), Ok(()));
}
