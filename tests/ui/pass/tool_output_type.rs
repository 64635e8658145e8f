//! `Tool::Output` is the tool's success type, nameable outside the function: what a
//! typed after hook's `raw` parameter is checked against.
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;

use serde::Serialize;
use toolkit::prelude::*;

#[derive(Debug, Clone, Serialize)]
pub struct Forecast {
    high: i32,
}

pub struct Config {
    tags: Vec<String>,
}

/// Nothing.
#[tool]
fn unit() {}

/// Text.
#[tool]
fn text() -> String {
    String::new()
}

/// Static text.
#[tool]
fn static_text() -> &'static str {
    ""
}

/// Text that may borrow.
#[tool]
fn cow() -> Cow<'static, str> {
    Cow::Borrowed("")
}

/// A typed value.
#[tool]
async fn typed() -> Forecast {
    Forecast { high: 1 }
}

/// A typed value or an error.
#[tool]
fn fallible() -> Result<Forecast, std::io::Error> {
    Ok(Forecast { high: 1 })
}

/// Through a `Result` alias.
#[tool]
fn aliased() -> std::io::Result<i64> {
    Ok(1)
}

/// Nothing, or an error.
#[tool]
fn unit_or_error() -> Result<(), std::io::Error> {
    Ok(())
}

/// A value that borrows from the state: named with `'static` lifetimes.
#[tool]
fn tags(#[state] config: &Config) -> Vec<&str> {
    config.tags.iter().map(String::as_str).collect()
}

/// A counter.
#[derive(Debug, Clone, Serialize)]
pub struct Counter {
    value: u32,
}

#[tools]
impl Counter {
    /// Returns a copy of the counter: `Self` is the counter's type.
    #[tool]
    pub fn current(&self) -> Self {
        self.clone()
    }
}

/// Containers of a typed value: checked through their items (each must serialize).
#[tool]
fn nested() -> Result<Vec<Vec<Forecast>>, String> {
    Ok(Vec::new())
}

/// A map of lists.
#[tool]
fn by_city() -> HashMap<String, Vec<Forecast>> {
    HashMap::new()
}

/// A tuple, an option of a box, a set, a sorted map, a boxed string.
#[tool]
#[allow(clippy::type_complexity)]
fn assorted() -> (Forecast, Option<Box<Forecast>>, HashSet<u8>, BTreeMap<u32, (i8, Box<str>)>) {
    (Forecast { high: 1 }, None, HashSet::new(), BTreeMap::new())
}

#[tools]
impl Counter {
    /// Copies of the counter, by name.
    #[tool]
    pub fn copies(&self) -> Vec<Option<Self>> {
        vec![Some(self.clone())]
    }
}

fn output_is<T: Tool<Output = O>, O>() {}

fn main() {
    output_is::<unit, ()>();
    output_is::<text, String>();
    output_is::<static_text, &'static str>();
    output_is::<cow, Cow<'static, str>>();
    output_is::<typed, Forecast>();
    output_is::<fallible, Forecast>();
    output_is::<aliased, i64>();
    output_is::<unit_or_error, ()>();
    output_is::<tags, Vec<&'static str>>();
    let counter = Arc::new(Counter { value: 1 });
    output_is::<nested, Vec<Vec<Forecast>>>();
    let _ = toolbox![unit, text, static_text, cow, typed, fallible, aliased, unit_or_error, tags, counter.current];
    let _ = toolbox![nested, by_city, assorted, counter.copies];
    assert_eq!(counter.value, 1);
}
