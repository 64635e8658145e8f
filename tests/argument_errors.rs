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
        ("big", serde_json::json!(5.5), "invalid type for `big`: got 5.5, expected an integer"),
        ("big", serde_json::json!("5"), "invalid type for `big`: got \"5\", expected an integer"),
        (
            "n",
            serde_json::json!(-1),
            "invalid value for `n`: got -1, expected an integer from 0 to 18446744073709551615",
        ),
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
        "invalid type for `filter.limit`: got \"ten\", expected an integer from 0 to 4294967295; expected `filter` to be {field: string, limit: integer}"
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
            "invalid type for `filters.from`: got \"x\", expected an integer from 0 to 4294967295",
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

/// Book a slot.
#[tool]
fn book(
    /// When the slot starts.
    #[arg(format = "date-time")]
    start: String,
    /// Who to tell.
    #[arg(format = "email")]
    notify: Option<String>,
) -> String {
    format!("{start} {}", notify.unwrap_or_default())
}

/// `format` is in the schema; a checked format (`date-time`) is checked when parsing, an
/// unchecked one (`email`) is only published.
#[tokio::test]
async fn format_is_in_the_schema_and_checked_where_it_can_be() {
    let tools = toolbox![book];
    let schema = &tools.spec("book").unwrap().input_schema;
    assert_eq!(schema["properties"]["start"]["format"], "date-time");
    assert_eq!(schema["properties"]["notify"]["format"], "email");
    let ok = tools.call(ToolCall::new("1", "book", r#"{"start": "2024-05-01T09:30:00+02:00", "notify": "x"}"#)).await;
    assert_eq!(ok.content, "2024-05-01T09:30:00+02:00 x");
    let bad = tools.call(ToolCall::new("2", "book", r#"{"start": "tomorrow at 9"}"#)).await;
    assert!(
        bad.content.starts_with(
            r#"invalid argument: `start` must be an RFC 3339 date-time like 2024-05-01T09:30:00Z (got "tomorrow at 9")"#
        ),
        "{}",
        bad.content
    );
}

/// File a story.
#[tool]
fn file_story(
    /// The sections it appears in.
    #[arg(items_one_of = ["news", "sports", "weather"])]
    sections: Vec<String>,
    /// Column widths.
    #[arg(items_one_of = [0.5, 1])]
    widths: Option<[f64; 2]>,
    /// Pages, any order.
    #[arg(items_one_of = [1, 2, 3], default)]
    pages: std::collections::BTreeSet<u8>,
) -> String {
    format!("{} {widths:?} {pages:?}", sections.join("+"))
}

/// `items_one_of` is an `enum` in the schema's `items` and is checked when parsing, the
/// error naming the item (by its index, in a list) and the values allowed.
#[tokio::test]
async fn items_one_of_is_in_the_items_schema_and_checked() {
    let tools = toolbox![file_story];
    let schema = &tools.spec("file_story").unwrap().input_schema;
    assert_eq!(
        schema["properties"]["sections"]["items"],
        serde_json::json!({"type": "string", "enum": ["news", "sports", "weather"]})
    );
    assert_eq!(schema["properties"]["widths"]["items"]["enum"], serde_json::json!([0.5, 1.0]));
    assert_eq!(schema["properties"]["pages"]["items"]["enum"], serde_json::json!([1, 2, 3]));
    let ok =
        tools.call(ToolCall::new("1", "file_story", r#"{"sections": ["news", "weather"], "widths": [1, 0.5]}"#)).await;
    assert_eq!(ok.content, "news+weather Some([1.0, 0.5]) {}");
    let bad = tools.call(ToolCall::new("2", "file_story", r#"{"sections": ["news", "sports", "gossip"]}"#)).await;
    assert!(
        bad.content.starts_with(
            r#"invalid argument: `sections` must hold only "news", "sports", "weather" (got "gossip" at `sections[2]`)"#
        ),
        "{}",
        bad.content
    );
    let bad = tools.call(ToolCall::new("3", "file_story", r#"{"sections": [], "widths": [0.5, 2]}"#)).await;
    assert!(
        bad.content.starts_with("invalid argument: `widths` must hold only 0.5, 1 (got 2 at `widths[1]`)"),
        "{}",
        bad.content
    );
    let bad = tools.call(ToolCall::new("4", "file_story", r#"{"sections": [], "pages": [3, 9, 1]}"#)).await;
    assert!(bad.content.starts_with("invalid argument: `pages` must hold only 1, 2, 3 (got 9)"), "{}", bad.content);
}

mod places {
    use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
    use serde::Deserialize;

    /// A point, sent as `"lat,lon"`: it has no `JsonSchema` of its own.
    #[derive(Debug)]
    pub struct LatLon(pub f64, pub f64);

    impl<'de> Deserialize<'de> for LatLon {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let text = String::deserialize(d)?;
            let parse = |s: Option<&str>| s.and_then(|s| s.trim().parse().ok());
            let mut parts = text.split(',');
            match (parse(parts.next()), parse(parts.next())) {
                (Some(lat), Some(lon)) => Ok(LatLon(lat, lon)),
                _ => Err(serde::de::Error::custom("expected \"lat,lon\"")),
            }
        }
    }

    pub fn lat_lon(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "pattern": "^-?[0-9.]+,-?[0-9.]+$", "description": "Latitude,longitude."})
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Kind {
        Cafe,
        Park,
    }

    /// A list of kinds, at least one, each described once in `$defs`.
    pub fn kinds(generator: &mut SchemaGenerator) -> Schema {
        let item = generator.subschema_for::<Kind>();
        json_schema!({"type": "array", "items": item, "minItems": 1})
    }

    /// The other form: no generator.
    pub fn radius() -> Schema {
        json_schema!({"type": "integer", "minimum": 1, "description": "Metres."})
    }
}

/// Find places near a point.
#[tool]
fn near(
    /// Where to look from.
    #[arg(schema_with = places::lat_lon)]
    at: places::LatLon,
    /// What to look for.
    #[arg(schema_with = places::kinds)]
    kinds: Vec<places::Kind>,
    #[arg(schema_with = "places::radius", default = 500)] radius: u32,
) -> String {
    format!("{} {} {kinds:?} {radius}", at.0, at.1)
}

/// `schema_with` replaces the parameter's schema (the parameter's type needs no
/// `JsonSchema`); the doc comment's description (replacing the function's own) and the
/// default are added to it, the definitions it asks the generator for go into `$defs`,
/// and the value is parsed as before.
#[tokio::test]
async fn schema_with_gives_the_parameters_schema() {
    let tools = toolbox![near];
    let schema = &tools.spec("near").unwrap().input_schema;
    assert_eq!(
        schema["properties"]["at"],
        serde_json::json!({"type": "string", "pattern": "^-?[0-9.]+,-?[0-9.]+$", "description": "Where to look from."})
    );
    assert_eq!(
        schema["properties"]["kinds"],
        serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/Kind"}, "minItems": 1, "description": "What to look for."})
    );
    assert_eq!(schema["$defs"]["Kind"]["enum"], serde_json::json!(["cafe", "park"]));
    assert_eq!(
        schema["properties"]["radius"],
        serde_json::json!({"type": "integer", "minimum": 1, "description": "Metres.", "default": 500})
    );
    assert_eq!(schema["required"], serde_json::json!(["at", "kinds"]));
    let ok = tools.call(ToolCall::new("1", "near", r#"{"at": "59.9,10.7", "kinds": ["park"]}"#)).await;
    assert_eq!(ok.content, "59.9 10.7 [Park] 500");
}

mod expressions {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    /// An arithmetic expression: a recursive enum whose cycle passes through no object.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub enum Expr {
        Num(f64),
        Add(Box<Expr>, Box<Expr>),
        Mul(Box<Expr>, Box<Expr>),
    }

    fn eval(e: &Expr) -> f64 {
        match e {
            Expr::Num(x) => *x,
            Expr::Add(a, b) => eval(a) + eval(b),
            Expr::Mul(a, b) => eval(a) * eval(b),
        }
    }

    /// Evaluate an expression.
    #[tool]
    pub fn evaluate(expr: Expr) -> f64 {
        eval(&expr)
    }
}

/// A recursive parameter type renders once, named where it recurs: the spec builds at
/// once and the model reads a short signature (before, each level of the type rendered
/// the next four times: 4^16 renders, a hang when the spec was first built).
#[tokio::test]
async fn a_recursive_enum_parameter_is_rendered_once_and_named_where_it_recurs() {
    use expressions::*;
    let tools = toolbox![evaluate];
    let ok = tools
        .call(ToolCall::new("1", "evaluate", r#"{"expr": {"Add": [{"Num": 2}, {"Mul": [{"Num": 3}, {"Num": 4}]}]}}"#))
        .await;
    assert_eq!((ok.content.as_str(), ok.error), ("14.0", None));
    let wrong = tools.call(ToolCall::new("2", "evaluate", r#"{"expr": 5}"#)).await;
    assert!(wrong.content.contains("{Add: [Expr, Expr]}"), "{}", wrong.content);
    assert!(wrong.content.len() < 1_000, "{}", wrong.content);
}

mod labels {
    use std::collections::HashMap;

    use toolkit::prelude::*;

    /// Tag things.
    #[tool]
    pub fn tag(labels: HashMap<String, Vec<String>>) -> usize {
        labels.len()
    }
}

/// Finding the value a flattened or map-valued error is about visits each value once:
/// a long key over a long array costs its length, not the product (before, the path of
/// every element was written out in full and resolved from the root again: about 1 GB of
/// strings for this call of some 200 KB, and a crash for one of 1 MB).
#[tokio::test]
async fn locating_an_error_under_a_long_map_key_is_linear() {
    use labels::*;
    let key = "a".repeat(200_000);
    let items = vec![""; 5_000];
    let arguments = serde_json::json!({"labels": {key.as_str(): items, "[0].y": [1]}}).to_string();
    let r = toolbox![tag].call(ToolCall::new("1", "tag", arguments)).await;
    assert_eq!(r.kind(), Some(toolkit::ErrorKind::InvalidType), "{}", &r.content[..r.content.len().min(300)]);
    assert!(r.content.contains("expected a string"), "{}", &r.content[..r.content.len().min(300)]);
    assert!(r.content.len() < 2_000, "{} bytes", r.content.len());
}

mod numbers {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Size {
        Fixed { rows: u16 },
        Auto,
    }

    /// Integers of every width.
    #[tool]
    #[allow(clippy::too_many_arguments)]
    pub fn widths(
        n: i64,
        m: u64,
        k: i32,
        small: u8,
        big: i128,
        maybe: Option<u32>,
        list: Vec<i64>,
        size: Option<Size>,
    ) -> String {
        format!("{n} {m} {k} {small} {big} {maybe:?} {list:?} {size:?}")
    }
}

/// An integer is shown as the model wrote it (not as the float serde_json read), with
/// the range of its type whatever the type; an integer out of range is a wrong value,
/// not a wrong type.
#[tokio::test]
async fn integers_out_of_range_read_as_sent_with_their_types_range() {
    let tools = toolbox![numbers::widths];
    let base = serde_json::json!({"n": 1, "m": 1, "k": 1, "small": 1, "big": 1, "list": []});
    let i64_range = "an integer from -9223372036854775808 to 9223372036854775807";
    let cases = [
        ("n", "-9223372036854775809", ErrorKind::InvalidValue, format!("got -9223372036854775809, expected {i64_range}")),
        ("n", "9223372036854775808", ErrorKind::InvalidValue, format!("got 9223372036854775808, expected {i64_range}")),
        ("n", "1e30", ErrorKind::InvalidValue, format!("got 1e30, expected {i64_range}")),
        ("n", "10.5", ErrorKind::InvalidType, format!("got 10.5, expected {i64_range}")),
        ("n", "\"ten\"", ErrorKind::InvalidType, format!("got \"ten\", expected {i64_range}")),
        (
            "m",
            "18446744073709551616",
            ErrorKind::InvalidValue,
            "got 18446744073709551616, expected an integer from 0 to 18446744073709551615".into(),
        ),
        ("m", "-1", ErrorKind::InvalidValue, "got -1, expected an integer from 0 to 18446744073709551615".into()),
        ("k", "3000000000", ErrorKind::InvalidValue, "got 3000000000, expected an integer from -2147483648 to 2147483647".into()),
        ("small", "256", ErrorKind::InvalidValue, "got 256, expected an integer from 0 to 255".into()),
        (
            "big",
            "1e40",
            ErrorKind::InvalidValue,
            "got 1e40, expected an integer from -170141183460469231731687303715884105728 to 170141183460469231731687303715884105727".into(),
        ),
        ("maybe", "4294967296", ErrorKind::InvalidValue, "got 4294967296, expected an integer from 0 to 4294967295".into()),
        ("list", "[1, 9223372036854775808]", ErrorKind::InvalidValue, format!("got 9223372036854775808, expected {i64_range}")),
    ];
    for (field, sent, kind, wanted) in cases {
        let mut base = base.clone();
        base.as_object_mut().unwrap().remove(field);
        let mut args = base.to_string();
        args.pop();
        let args = format!("{args},\"{field}\":{sent}}}");
        let r = tools.call(ToolCall::new("1", "widths", args.as_str())).await;
        assert_eq!(r.kind(), Some(kind), "{args}: {}", r.content);
        assert!(r.content.contains(&wanted), "{args}: {}", r.content);
        assert!(!r.content.contains("e+"), "{args}: a float where an integer was sent: {}", r.content);
    }
}

/// JSON Schema 2020-12 counts `10.0` an integer, and so does the parser: an integer
/// parameter takes a number with no fraction however it is written, at any depth; a
/// fraction, or more digits than a float holds, is still refused.
#[tokio::test]
async fn an_integer_written_with_a_zero_fraction_is_that_integer() {
    let tools = toolbox![numbers::widths];
    let schema = tools.spec("widths").unwrap().input_schema.clone();
    let args = serde_json::json!({
        "n": 10.0, "m": 1e2, "k": -3.0, "small": 2.50e1, "big": 7.0, "maybe": 4.0,
        "list": [1.0, 2], "size": {"kind": "fixed", "rows": 3.0}
    });
    // (Checked without `maybe`: the `jsonschema` crate takes 4.0 for `"integer"` but not
    // for `["integer", "null"]`, a gap of its own; the specification counts it an integer.)
    let mut checked = args.clone();
    checked.as_object_mut().unwrap().remove("maybe");
    let validator = jsonschema::draft202012::new(&schema).unwrap();
    let refused: Vec<String> = validator.iter_errors(&checked).map(|e| format!("{}: {e}", e.instance_path)).collect();
    assert_eq!(refused, Vec::<String>::new(), "the schema admits {checked}");
    let r = tools.call(ToolCall::new("1", "widths", args.to_string())).await;
    assert_eq!(r.error, None, "{}", r.content);
    assert_eq!(r.content, "10 100 -3 25 7 Some(4) [1, 2] Some(Fixed { rows: 3 })");
    for (sent, wanted) in [
        (r#"{"n": 10.5, "m": 1, "k": 1, "small": 1, "big": 1, "list": []}"#, "got 10.5"),
        (r#"{"n": 10.0000000000000001, "m": 1, "k": 1, "small": 1, "big": 1, "list": []}"#, "got 10.0000000000000001"),
        (
            r#"{"n": 1, "m": 1, "k": 1, "small": 1, "big": 1, "list": [], "size": {"kind": "fixed", "rows": 1.5}}"#,
            "`size.rows`: got 1.5",
        ),
    ] {
        let r = tools.call(ToolCall::new("2", "widths", sent)).await;
        assert_eq!(r.kind(), Some(ErrorKind::InvalidType), "{sent}: {}", r.content);
        assert!(r.content.contains(wanted), "{sent}: {}", r.content);
    }
}

mod unions {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use toolkit::prelude::*;

    /// Externally tagged (serde's default).
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Severity {
        Number(u8),
        Label(String),
    }

    /// Internally tagged.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    #[allow(dead_code)]
    pub enum Assignee {
        Person { name: String },
        Team { size: u8 },
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "snake_case")]
    pub enum Unit {
        Celsius,
        Fahrenheit,
    }

    /// File a ticket.
    #[tool]
    pub fn file_ticket(
        sev: Severity,
        who: Option<Assignee>,
        unit: Option<Unit>,
        #[arg(one_of = [1, 2, 7, 13])] service: Option<i64>,
        #[arg(items_one_of = ["ops", "dev"])] teams: Option<Vec<String>>,
    ) -> String {
        format!("{sev:?} {who:?} {unit:?} {service:?} {teams:?}")
    }
}

/// An error inside an enum with data is named by its own path and said in the terms of
/// the variant meant (the one the tag names, or whose key was sent); a tag that names
/// no variant is an error at the tag, with the tags there are.
#[tokio::test]
async fn errors_inside_enums_name_the_inner_path() {
    let tools = toolbox![unions::file_ticket];
    let cases = [
        (
            r#"{"sev": {"number": "high"}}"#,
            ErrorKind::InvalidType,
            "invalid type for `sev.number`: got \"high\", expected an integer from 0 to 255; expected `sev` to be",
        ),
        (
            r#"{"sev": {"number": 1}, "who": {"kind": "robot"}}"#,
            ErrorKind::ConstraintViolation,
            "invalid value for `who.kind`: got \"robot\", expected one of \"person\", \"team\"; expected `who` to be",
        ),
        (
            r#"{"sev": {"number": 1}, "who": {"kind": "team", "size": "big"}}"#,
            ErrorKind::InvalidType,
            "invalid type for `who.size`: got \"big\", expected an integer from 0 to 255",
        ),
        (r#"{"sev": {"label": 5}}"#, ErrorKind::InvalidType, "invalid type for `sev.label`: got 5, expected a string"),
    ];
    for (sent, kind, wanted) in cases {
        let r = tools.call(ToolCall::new("1", "file_ticket", sent)).await;
        assert_eq!(r.kind(), Some(kind), "{sent}: {}", r.content);
        assert!(r.content.starts_with(wanted), "{sent}: {}", r.content);
    }
}

/// "Not one of the allowed values" is one kind, `constraint_violation`, whether the
/// values are an enum's variants or `one_of`/`items_one_of` (all an `enum` in the schema).
#[tokio::test]
async fn a_value_outside_the_listed_values_is_one_kind() {
    let tools = toolbox![unions::file_ticket];
    for (sent, wanted) in [
        (r#"{"sev": {"number": 1}, "unit": "kelvin"}"#, "invalid value for `unit`: got \"kelvin\""),
        (r#"{"sev": {"number": 1}, "who": {"kind": "robot"}}"#, "invalid value for `who.kind`: got \"robot\""),
        (r#"{"sev": {"number": 1}, "service": 5}"#, "invalid argument: `service` must be one of 1, 2, 7, 13 (got 5)"),
        (r#"{"sev": {"number": 1}, "teams": ["qa"]}"#, "invalid argument: `teams` must hold only \"ops\", \"dev\""),
    ] {
        let r = tools.call(ToolCall::new("1", "file_ticket", sent)).await;
        assert_eq!(r.kind(), Some(ErrorKind::ConstraintViolation), "{sent}: {}", r.content);
        assert!(r.content.starts_with(wanted), "{sent}: {}", r.content);
    }
}
