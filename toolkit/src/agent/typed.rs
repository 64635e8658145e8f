//! Typed final answers: a run whose answer is a value of a Rust type, asked for in each
//! provider's native way and checked, with the model asked again when it does not fit.

use std::future::{Future, IntoFuture};
use std::marker::PhantomData;
use std::pin::Pin;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::{Agent, AgentError, AgentRun, RunRequest};
use crate::model::ResponseFormat;
use crate::spec::ToolSpec;

/// What a typed run asks for and how it checks the answer.
pub(crate) struct Answer {
    pub(crate) format: ResponseFormat,
    /// The answer's schema as a spec, for describing a misfit in the model's terms.
    spec: ToolSpec,
    parse: fn(&str) -> Result<(), serde_json::Error>,
}

impl Answer {
    /// Whether `text` is an answer of the type; if not, why, as the model reads it (the
    /// place, what was sent and what is wanted there, never a Rust type).
    pub(crate) fn check(&self, text: &str) -> Result<(), String> {
        let json = answer_json(text);
        (self.parse)(json).map_err(|e| crate::exec::parse::describe(json, e, &self.spec).message)
    }
}

/// A typed run's result: the answer as a `T`, and the run.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TypedRun<T> {
    /// The answer.
    pub value: T,
    /// The run: transcript, records, usage (its `text` is the answer's JSON).
    pub run: AgentRun,
}

/// A typed run, ready to be awaited (see [`Agent::run_typed`]).
#[must_use = "a run does nothing until awaited"]
pub struct TypedRunRequest<'a, T> {
    request: RunRequest<'a>,
    answer: PhantomData<fn() -> T>,
}

impl Agent {
    /// Runs the loop on `input` for an answer of type `T`: each client asks its provider
    /// for JSON of `T`'s schema natively (see [`ResponseFormat`]); the answer is parsed
    /// into a `T`, and when it does not fit, the model is told why and asked again, at
    /// most [`answer_retries`](super::AgentBuilder::answer_retries) times (then
    /// [`AgentError::BadAnswer`]). A fenced answer (```` ```json ... ``` ````) is read
    /// inside its fence.
    ///
    /// ```
    /// use toolkit::agent::Agent;
    /// use toolkit::model::{ScriptedModel, Turn};
    /// use toolkit::prelude::*;
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Sum { total: i64 }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let model = ScriptedModel::new([Turn::text("{\"total\": \"five\"}"), Turn::text("{\"total\": 5}")]);
    /// let agent = Agent::builder(model, Toolbox::new()).build()?;
    /// let answer = agent.run_typed::<Sum>("2 + 3?").await?;
    /// assert_eq!(answer.value.total, 5); // the first answer was sent back with the reason
    /// # Ok(()) }
    /// ```
    pub fn run_typed<T: DeserializeOwned + JsonSchema>(&self, input: impl Into<String>) -> TypedRunRequest<'_, T> {
        self.run(input).typed()
    }
}

impl<'a> RunRequest<'a> {
    /// This run, for an answer of type `T` (see [`Agent::run_typed`]).
    pub fn typed<T: DeserializeOwned + JsonSchema>(self) -> TypedRunRequest<'a, T> {
        TypedRunRequest { request: self, answer: PhantomData }
    }
}

impl<'a, T: DeserializeOwned + JsonSchema + Send + 'a> IntoFuture for TypedRunRequest<'a, T> {
    type Output = Result<TypedRun<T>, AgentError>;
    type IntoFuture = Pin<Box<dyn Future<Output = Self::Output> + Send + 'a>>;

    fn into_future(self) -> Self::IntoFuture {
        let format = ResponseFormat::of::<T>();
        let spec = ToolSpec::new(format.name.clone(), "The final answer.", format.schema.clone());
        let answer = Answer { format, spec, parse: parse::<T> };
        let run = self.request.drive(Some(answer), None);
        Box::pin(async move {
            let run = run.await?;
            match serde_json::from_str::<T>(answer_json(&run.text)) {
                Ok(value) => Ok(TypedRun { value, run }),
                // The loop checked it already; kept total all the same.
                Err(e) => Err(AgentError::BadAnswer { attempts: 1, problem: e.to_string(), run: Box::new(run) }),
            }
        })
    }
}

fn parse<T: DeserializeOwned>(json: &str) -> Result<(), serde_json::Error> {
    serde_json::from_str::<T>(json).map(|_| ())
}

/// The JSON in an answer: trimmed, and inside a Markdown code fence if it is in one.
fn answer_json(text: &str) -> &str {
    let text = text.trim();
    match text.strip_prefix("```") {
        Some(fenced) => {
            let body = fenced.split_once('\n').map_or("", |(_, rest)| rest);
            body.trim_end().strip_suffix("```").unwrap_or(body).trim()
        }
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::answer_json;

    #[test]
    fn reads_json_inside_a_fence() {
        assert_eq!(answer_json(" {\"a\": 1} "), "{\"a\": 1}");
        assert_eq!(answer_json("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(answer_json("```\n[1]\n```\n"), "[1]");
    }
}
