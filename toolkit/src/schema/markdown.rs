//! A Markdown page documenting a list of tools, for people: one section per tool with
//! its description, a parameter table, its output, its effects and an example call.

use std::fmt::Write;
use std::time::Duration;

use serde_json::{Map, Value};

use super::example::{example_arguments, one_line};
use crate::json_schema::refs::{self, Defs};
use crate::json_schema::render::{Render, required};
use crate::spec::ToolSpec;

/// Nested parameters are listed this many levels down (`filters.range.from`).
const MAX_ROW_DEPTH: usize = 4;
/// References followed to find what a parameter is.
const MAX_HOPS: usize = 16;

/// A Markdown page for `specs`: `# {title}`, then per tool a `## name` section with
/// the description, a parameter table (name, type, required, default, constraints,
/// description; nested fields as `filters.tags`), the output type when the tool has an
/// output schema, its effect annotations and timeout, and an example call. The same
/// input always gives the same page.
///
/// ```
/// use serde_json::json;
/// use toolkit::ToolSpec;
///
/// let spec = ToolSpec::new("get_weather", "Current weather for a city.", json!({
///     "type": "object",
///     "properties": {"location": {"type": "string", "description": "City name."}},
///     "required": ["location"],
///     "additionalProperties": false
/// }));
/// let page = toolkit::schema::markdown("Weather tools", [&spec]);
/// assert!(page.starts_with("# Weather tools\n"));
/// assert!(page.contains("## get_weather"));
/// assert!(page.contains("| `location` | `string` | yes |  |  | City name. |"));
/// assert!(page.contains(r#"{"location": "..."}"#));
/// ```
pub fn markdown<'a>(title: &str, specs: impl IntoIterator<Item = &'a ToolSpec>) -> String {
    let mut page = format!("# {}\n", title.trim());
    for spec in specs {
        page.push('\n');
        page.push_str(&section(spec));
    }
    page
}

fn section(spec: &ToolSpec) -> String {
    let mut out = format!("## {}\n\n", spec.name);
    if let Some(title) = spec.title.as_deref().filter(|t| !t.is_empty()) {
        let _ = writeln!(out, "*{}*\n", title.trim());
    }
    if !spec.description.trim().is_empty() {
        let _ = writeln!(out, "{}\n", spec.description.trim());
    }
    out.push_str(&parameters(&spec.input_schema));
    if let Some(output) = &spec.output_schema {
        let _ = writeln!(out, "**Returns:** {}\n", code(&Render::new(output).value(output, 0)));
    }
    let _ = writeln!(out, "**Effects:** {}\n", effects(spec));
    if let Some(timeout) = spec.timeout {
        let _ = writeln!(out, "**Timeout:** {}\n", duration(timeout));
    }
    if let Some(retry) = spec.retry {
        let _ = writeln!(out, "**Retries:** {} (first after about {})\n", retry.retries, duration(retry.backoff));
    }
    if let Some(freeform) = &spec.freeform {
        let param = &freeform.param;
        let _ = match &freeform.grammar {
            None => writeln!(out, "**Free-form:** the model writes `{param}` as plain text\n"),
            Some(crate::spec::Grammar::Lark(text)) => {
                writeln!(
                    out,
                    "**Free-form:** the model writes `{param}` in this Lark grammar:\n\n```lark\n{}\n```\n",
                    text.trim_end()
                )
            }
            Some(crate::spec::Grammar::Regex(pattern)) => {
                writeln!(out, "**Free-form:** the model writes `{param}` as text matching `{pattern}`\n")
            }
        };
    }
    // The tool's own examples when it has some, else one built from the schema.
    if spec.examples.is_empty() {
        let example = one_line(&example_arguments(&spec.input_schema));
        let _ = writeln!(out, "**Example call:**\n\n```json\n{example}\n```");
    } else {
        let heading = if spec.examples.len() == 1 { "Example call" } else { "Example calls" };
        let examples: Vec<String> = spec.examples.iter().map(one_line).collect();
        let _ = writeln!(out, "**{heading}:**\n\n```json\n{}\n```", examples.join("\n"));
    }
    out
}

/// The parameter table, or a sentence when there are none.
fn parameters(schema: &Value) -> String {
    let table = Table { defs: Defs::new(schema), render: Render::new(schema) };
    let mut rows = Vec::new();
    if let Some(map) = schema.as_object() {
        table.rows(map, "", 0, &mut vec!["#".to_string()], &mut rows);
    }
    if rows.is_empty() {
        return "Takes no parameters.\n\n".to_string();
    }
    let mut out = String::from("| Parameter | Type | Required | Default | Constraints | Description |\n");
    out.push_str("| --- | --- | --- | --- | --- | --- |\n");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
    out.push('\n');
    out
}

/// One line of the parameter table, each cell already escaped.
struct Row {
    name: String,
    kind: String,
    required: bool,
    default: String,
    constraints: String,
    description: String,
}

impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let required = if self.required { "yes" } else { "no" };
        let Row { name, kind, default, constraints, description, .. } = self;
        write!(f, "| {name} | {kind} | {required} | {default} | {constraints} | {description} |")
    }
}

struct Table<'a> {
    defs: Defs<'a>,
    render: Render<'a>,
}

impl Table<'_> {
    /// Rows for the properties of `object`, then (depth first) for the fields of each
    /// property that is itself an object or an array of objects.
    fn rows(
        &self,
        object: &Map<String, Value>,
        prefix: &str,
        depth: usize,
        stack: &mut Vec<String>,
        rows: &mut Vec<Row>,
    ) {
        let Some(properties) = object.get("properties").and_then(Value::as_object) else { return };
        let required = required(object);
        for (name, property) in properties {
            let path = format!("{prefix}{name}");
            let (resolved, followed) = self.resolve(property);
            rows.push(Row {
                name: code(&path),
                // Objects show as `object`: their fields get rows of their own.
                kind: code(&self.render.value(property, 2)),
                required: required.contains(&name.as_str()),
                default: resolved.get("default").map(|d| code(&one_line(d))).unwrap_or_default(),
                constraints: cell(&constraints(&resolved).join(", ")),
                description: resolved.get("description").and_then(Value::as_str).map(prose).unwrap_or_default(),
            });
            let recursive = followed.iter().any(|r| stack.contains(r));
            if depth + 1 >= MAX_ROW_DEPTH || recursive {
                continue;
            }
            stack.extend(followed.iter().cloned());
            if let Some((fields, more)) = self.fields_of(&resolved, stack) {
                self.rows(&fields, &format!("{path}{more}."), depth + 1, stack, rows);
            }
            stack.truncate(stack.len() - followed.len());
        }
    }

    /// The object whose fields a property has: the property itself, or its array's
    /// elements (`[]`).
    fn fields_of(&self, resolved: &Map<String, Value>, stack: &[String]) -> Option<(Map<String, Value>, &'static str)> {
        if resolved.get("properties").is_some_and(Value::is_object) {
            return Some((resolved.clone(), ""));
        }
        let items = resolved.get("items")?;
        let (items, followed) = self.resolve(items);
        let fresh = !followed.iter().any(|r| stack.contains(r));
        (fresh && items.get("properties").is_some_and(Value::is_object)).then_some((items, "[]"))
    }

    /// What a property is once references are followed and an `Option`'s `null`
    /// branch is set aside; use-site annotations win. Also the references followed.
    fn resolve(&self, schema: &Value) -> (Map<String, Value>, Vec<String>) {
        let mut current = schema.as_object().cloned().unwrap_or_default();
        let mut followed = Vec::new();
        for _ in 0..MAX_HOPS {
            if let Some(reference) = current.get("$ref").and_then(Value::as_str).map(str::to_string) {
                let Some(target) = self.defs.resolve(&reference) else { break };
                current = as_map(refs::overlay(target, &current));
                current.shift_remove("$ref");
                followed.push(reference);
                continue;
            }
            let Some(variant) = single_non_null_variant(&current) else { break };
            let mut rest = current.clone();
            rest.shift_remove("anyOf");
            rest.shift_remove("oneOf");
            current = as_map(refs::overlay(&variant, &rest));
        }
        (current, followed)
    }
}

/// The one non-null branch of an `anyOf`/`oneOf` (an `Option<T>`), if that is its
/// shape.
fn single_non_null_variant(map: &Map<String, Value>) -> Option<Value> {
    let variants = map.get("anyOf").or_else(|| map.get("oneOf"))?.as_array()?;
    let mut others = variants.iter().filter(|v| !refs::is_null_schema(v));
    let only = others.next()?;
    others.next().is_none().then(|| only.clone())
}

fn as_map(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// The constraints a schema states, readably: `≥ 1`, `length ≤ 64`, `pattern ^a$`.
fn constraints(map: &Map<String, Value>) -> Vec<String> {
    const BOUNDS: &[(&str, &str)] = &[
        ("minimum", "≥ "),
        ("exclusiveMinimum", "> "),
        ("maximum", "≤ "),
        ("exclusiveMaximum", "< "),
        ("multipleOf", "multiple of "),
        ("minLength", "length ≥ "),
        ("maxLength", "length ≤ "),
        ("minItems", "items ≥ "),
        ("maxItems", "items ≤ "),
    ];
    let mut found: Vec<String> = BOUNDS
        .iter()
        .filter_map(|(key, label)| map.get(*key).filter(|v| v.is_number()).map(|v| format!("{label}{v}")))
        .collect();
    if map.get("uniqueItems") == Some(&Value::Bool(true)) {
        found.push("unique items".into());
    }
    for key in ["pattern", "format"] {
        if let Some(text) = map.get(key).and_then(Value::as_str) {
            found.push(format!("{key} {}", code(text)));
        }
    }
    found
}

fn effects(spec: &ToolSpec) -> String {
    let a = &spec.annotations;
    let declared: Vec<&str> = [
        (a.read_only, "read-only"),
        (a.destructive, "destructive"),
        (a.idempotent, "idempotent"),
        (a.open_world, "open world"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    if declared.is_empty() { "none declared".into() } else { declared.join(", ") }
}

fn duration(timeout: Duration) -> String {
    if timeout.subsec_millis() == 0 && timeout.as_secs() > 0 {
        format!("{} s", timeout.as_secs())
    } else {
        format!("{} ms", timeout.as_millis())
    }
}

/// Inline code that survives a table cell: the fence outgrows any backticks inside,
/// and `|` is escaped.
fn code(text: &str) -> String {
    let fence = if text.contains('`') { "``" } else { "`" };
    let pad = if text.contains('`') { " " } else { "" };
    cell(&format!("{fence}{pad}{text}{pad}{fence}"))
}

/// Text made safe for one table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\r', '\n'], " ")
}

/// A doc comment for a table cell: lines of a paragraph joined, paragraphs on lines of
/// their own (`<br>`).
fn prose(text: &str) -> String {
    let paragraphs: Vec<String> = text
        .split("\n\n")
        .map(|p| p.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" "))
        .filter(|p| !p.is_empty())
        .collect();
    cell(&paragraphs.join("<br>"))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::spec::Annotations;

    fn search() -> ToolSpec {
        ToolSpec::new(
            "search",
            "Search the web.\n\nUse for current events.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for.", "minLength": 1, "maxLength": 200},
                    "unit": {"$ref": "#/$defs/Unit", "description": "Temperature unit.", "default": "celsius"},
                    "filters": {"anyOf": [{"$ref": "#/$defs/Filters"}, {"type": "null"}]},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10}
                },
                "required": ["query"],
                "additionalProperties": false,
                "$defs": {
                    "Unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                    "Filters": {"type": "object", "description": "Narrow the search.", "properties": {
                        "site": {"type": "string", "pattern": "^[a-z.]+$", "description": "Only this\nsite."},
                        "tree": {"$ref": "#/$defs/Node"}
                    }, "required": ["site"]},
                    "Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}
                }
            }),
        )
        .with_annotations(Annotations { read_only: true, open_world: true, ..Default::default() })
        .with_timeout(Duration::from_secs(10))
        .with_output_schema(json!({"type": "object", "properties": {"hits": {"type": "array", "items": {"type": "string"}}}, "required": ["hits"]}))
    }

    #[test]
    fn a_section_has_every_part() {
        let page = markdown("Tools", [&search()]);
        let expected = r#"# Tools

## search

Search the web.

Use for current events.

| Parameter | Type | Required | Default | Constraints | Description |
| --- | --- | --- | --- | --- | --- |
| `query` | `string` | yes |  | length ≥ 1, length ≤ 200 | What to look for. |
| `unit` | `"celsius" \| "fahrenheit"` | no | `"celsius"` |  | Temperature unit. |
| `filters` | `object \| null` | no |  |  | Narrow the search. |
| `filters.site` | `string` | yes |  | pattern `^[a-z.]+$` | Only this site. |
| `filters.tree` | `object` | no |  |  |  |
| `filters.tree.next` | `object` | no |  |  |  |
| `limit` | `integer` | no | `10` | ≥ 1, ≤ 50 |  |

**Returns:** `{hits: string[]}`

**Effects:** read-only, open world

**Timeout:** 10 s

**Example call:**

```json
{"query": "..."}
```
"#;
        assert_eq!(page, expected);
    }

    #[test]
    fn tools_without_parameters_and_effects_say_so() {
        let spec = ToolSpec::new("now", "The time.", json!({"type": "object", "properties": {}}));
        let page = markdown("Clock", [&spec]);
        assert!(page.contains("Takes no parameters."));
        assert!(page.contains("**Effects:** none declared"));
        assert!(page.contains("```json\n{}\n```"));
        assert!(!page.contains("**Returns:**"));
    }

    #[test]
    fn sections_follow_the_given_order_and_the_page_is_deterministic() {
        let a = ToolSpec::new("a_tool", "A.", json!({"type": "object", "properties": {}}));
        let b = ToolSpec::new("b_tool", "B.", json!({"type": "object", "properties": {}}));
        let page = markdown("Two", [&b, &a]);
        assert!(page.find("## b_tool") < page.find("## a_tool"));
        assert_eq!(page, markdown("Two", [&b, &a]));
    }

    #[test]
    fn cells_escape_pipes_and_backticks() {
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("a`b"), "`` a`b ``");
        assert_eq!(prose("one\ntwo\n\nthree | four"), "one two<br>three \\| four");
    }
}
