//! The argument errors a model reads: the place, what was sent, what is wanted there in
//! the model's terms (never a Rust type), a nearby field name, and, for a big tool, the
//! part of its signature where the error is.

use toolkit::prelude::*;

mod messages {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Unit {
        Celsius,
        Fahrenheit,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Sub {
        pub name: String,
        pub depth: u8,
    }

    /// Every kind of parameter.
    #[tool]
    pub fn kinds(
        unit: Unit,
        big: i128,
        n: u64,
        x: f64,
        #[arg(min_length = 1)] s: String,
        sub: Sub,
        #[arg(rename = "dueDate", default = 1)] due_date: u32,
    ) -> String {
        format!("{unit:?}{big}{n}{x}{s}{}{}{due_date}", sub.name, sub.depth)
    }
}

/// What a model reads after a wrong argument: the place, what it sent, what is wanted
/// there in its own terms (never a Rust type), no doubled words, a nearby field name.
#[tokio::test]
async fn argument_errors_speak_the_models_language() {
    let tools = toolbox![messages::kinds];
    let base =
        serde_json::json!({"unit": "celsius", "big": 1, "n": 1, "x": 1.0, "s": "a", "sub": {"name": "a", "depth": 1}});
    let cases = [
        (
            "unit",
            serde_json::json!(null),
            "invalid type for `unit`: got null, expected one of \"celsius\", \"fahrenheit\"",
        ),
        ("unit", serde_json::json!(3), "invalid type for `unit`: got 3, expected one of \"celsius\", \"fahrenheit\""),
        ("unit", serde_json::json!(["a"]), "invalid type for `unit`: got an array of 1 item, expected one of"),
        ("big", serde_json::json!(5.0), "invalid type for `big`: got 5.0, expected an integer"),
        ("big", serde_json::json!("5"), "invalid type for `big`: got \"5\", expected an integer"),
        ("n", serde_json::json!(-1), "invalid value for `n`: got -1, expected a non-negative integer"),
        ("x", serde_json::json!("a"), "invalid type for `x`: got \"a\", expected a number"),
        ("s", serde_json::json!(""), "`s` must have at least 1 character (got 0)"),
        (
            "sub",
            serde_json::json!({"name": "a", "depth": 300}),
            "invalid value for `sub.depth`: got 300, expected an integer from 0 to 255",
        ),
        (
            "sub",
            serde_json::json!(5),
            "invalid type for `sub`: got 5, expected an object {name: string, depth: integer}",
        ),
        ("due", serde_json::json!(3), "unknown field `due` (did you mean `dueDate`?); expected {"),
    ];
    for (field, value, wanted) in cases {
        let mut args = base.clone();
        args[field] = value.clone();
        let r = tools.call(ToolCall::new("1", "kinds", args.to_string())).await;
        assert!(r.content.starts_with(wanted) || r.content.contains(wanted), "{field}={value}: {}", r.content);
        for rust in ["u64", "i128", "f64", "u8", "struct ", "invalid value: ", "integer `"] {
            assert!(!r.content.contains(rust), "{field}={value}: `{rust}` in {}", r.content);
        }
    }
}

mod big {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Filter {
        pub field: String,
        pub limit: u32,
    }

    /// A tool with many parameters.
    #[tool]
    #[allow(clippy::too_many_arguments, unused_variables)]
    pub fn wide(
        filter: Filter,
        p01_parameter_name: String,
        p02_parameter_name: String,
        p03_parameter_name: String,
        p04_parameter_name: String,
        p05_parameter_name: String,
        p06_parameter_name: String,
        p07_parameter_name: String,
        p08_parameter_name: String,
        p09_parameter_name: String,
        p10_parameter_name: String,
        p11_parameter_name: String,
        p12_parameter_name: String,
        p13_parameter_name: String,
        p14_parameter_name: String,
        p15_parameter_name: String,
        p16_parameter_name: String,
        p17_parameter_name: String,
        p18_parameter_name: String,
        p19_parameter_name: String,
        p20_parameter_name: String,
    ) -> String {
        format!("{} {}", filter.field, filter.limit)
    }
}

/// A big tool's signature is cut to the part where the error is.
#[tokio::test]
async fn a_big_tools_signature_is_cut_to_where_the_error_is() {
    let tools = toolbox![big::wide];
    let mut args = serde_json::json!({"filter": {"field": "a", "limit": "ten"}});
    for i in 1..=20 {
        args[format!("p{i:02}_parameter_name")] = "x".into();
    }
    let r = tools.call(ToolCall::new("1", "wide", args.to_string())).await;
    assert_eq!(
        r.content,
        "invalid type for `filter.limit`: got \"ten\", expected a non-negative integer; expected `filter` to be {field: string, limit: integer}"
    );
    args["filter"]["limit"] = 1.into();
    args["p01_parameter_name"] = 1.into();
    let r = tools.call(ToolCall::new("2", "wide", args.to_string())).await;
    assert!(
        r.content.starts_with("invalid type for `p01_parameter_name`: got 1, expected a string; expected {filter: "),
        "{}",
        r.content
    );
    assert!(r.content.ends_with('…') && r.content.chars().count() < 320, "{}", r.content);
}

/// Pick a plan.
#[tool]
fn pick(
    /// The plan's size in seats.
    #[arg(one_of = [1, 5, 25])]
    seats: u32,
    /// A ratio.
    #[arg(one_of = [0.5, 1])]
    ratio: f64,
) -> String {
    format!("{seats} {ratio}")
}

/// `one_of` is an `enum` in the schema and is checked when parsing.
#[tokio::test]
async fn one_of_is_in_the_schema_and_checked() {
    let tools = toolbox![pick];
    let schema = &tools.spec("pick").unwrap().input_schema;
    assert_eq!(schema["properties"]["seats"]["enum"], serde_json::json!([1, 5, 25]));
    assert_eq!(schema["properties"]["ratio"]["enum"], serde_json::json!([0.5, 1.0]));
    let ok = tools.call(ToolCall::new("1", "pick", r#"{"seats": 5, "ratio": 1}"#)).await;
    assert_eq!(ok.content, "5 1");
    let bad = tools.call(ToolCall::new("2", "pick", r#"{"seats": 7, "ratio": 0.5}"#)).await;
    assert!(bad.content.starts_with("invalid argument: `seats` must be one of 1, 5, 25 (got 7)"), "{}", bad.content);
}

mod nested {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    /// A parameter type written the usual way: no `deny_unknown_fields`.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    pub struct Task {
        pub title: String,
        pub due_date: Option<String>,
        #[serde(default)]
        pub subtasks: Vec<Task>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Repeat {
        Daily { hour: u8 },
        Weekly { day: String },
    }

    /// Creates a task.
    #[tool]
    pub fn create_task(task: Task, repeat: Option<Repeat>) -> String {
        format!("{} {:?} {} {repeat:?}", task.title, task.due_date, task.subtasks.len())
    }
}

/// An unknown key inside a parameter's own struct is rejected like one at the top
/// level, with its path and the nearest name, as the schema (closed at every depth) says.
#[tokio::test]
async fn unknown_fields_are_rejected_at_every_depth() {
    let tools = toolbox![nested::create_task];
    let spec = tools.spec("create_task").unwrap();
    let task = &spec.input_schema["$defs"]["Task"];
    assert_eq!(task["additionalProperties"], serde_json::json!(false), "{task}");
    let cases = [
        (r#"{"task": {"title": "a", "due": "today"}}"#, "unknown field `due` in `task` (did you mean `dueDate`?)"),
        (
            r#"{"task": {"title": "a", "subtasks": [{"title": "b"}, {"title": "c", "notes": ""}]}}"#,
            "unknown field `notes` in `task.subtasks[1]`",
        ),
        (
            r#"{"task": {"title": "a"}, "repeat": {"kind": "daily", "hour": 9, "minute": 0}}"#,
            "unknown field `minute` in `repeat`",
        ),
    ];
    for (raw, wanted) in cases {
        let r = tools.call(ToolCall::new("1", "create_task", raw)).await;
        assert!(r.is_error(), "{raw}: {}", r.content);
        assert!(r.content.starts_with(wanted), "{raw}: {}", r.content);
        assert!(r.content.contains("; expected {"), "{}", r.content);
    }
    for raw in [
        r#"{"task": {"title": "a", "dueDate": "today", "subtasks": [{"title": "b", "subtasks": []}]}}"#,
        r#"{"task": {"title": "a", "dueDate": null}, "repeat": {"kind": "weekly", "day": "mon"}}"#,
        r#"{"task": {"title": "a"}, "repeat": null}"#,
    ] {
        let r = tools.call(ToolCall::new("1", "create_task", raw)).await;
        assert!(!r.is_error(), "{raw}: {}", r.content);
    }
}

mod flat {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Range {
        pub from: u32,
        pub to: Option<u32>,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Filters {
        pub tag: String,
        #[serde(flatten)]
        pub range: Range,
    }

    /// Lists things.
    #[tool]
    pub fn list(filters: Filters) -> String {
        format!("{} {} {:?}", filters.tag, filters.range.from, filters.range.to)
    }
}

/// A wrong value inside a `#[serde(flatten)]`ed struct is named by its full path, not
/// only by the outer field.
#[tokio::test]
async fn errors_inside_flattened_fields_name_the_full_path() {
    let tools = toolbox![flat::list];
    let cases = [
        (
            r#"{"filters": {"tag": "a", "from": "x"}}"#,
            "invalid type for `filters.from`: got \"x\", expected a non-negative integer",
        ),
        (r#"{"filters": {"tag": "a", "from": 1, "to": -2}}"#, "invalid value for `filters.to`: got -2, expected"),
        (r#"{"filters": {"tag": 5, "from": 1}}"#, "invalid type for `filters.tag`: got 5, expected a string"),
    ];
    for (raw, wanted) in cases {
        let r = tools.call(ToolCall::new("1", "list", raw)).await;
        assert!(r.content.starts_with(wanted), "{raw}: {}", r.content);
    }
    let ok = tools.call(ToolCall::new("1", "list", r#"{"filters": {"tag": "a", "from": 1, "to": 2}}"#)).await;
    assert_eq!(ok.content, "a 1 Some(2)");
}
