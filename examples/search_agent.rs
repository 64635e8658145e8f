//! A research assistant with two tools: a web search on the Bocha search API, and a
//! calculator. The model picks the right tool per question.
//!
//! ```sh
//! cargo run --example search_agent                        # offline: mock search, scripted model
//! BOCHA_API_KEY=... cargo run --example search_agent      # real search results
//! OPENAI_API_KEY=... cargo run --example search_agent -- "What is 2^10 / 4?"
//! ```
//!
//! Without `BOCHA_API_KEY` the search is a clearly labelled mock, so the example runs
//! anywhere. `BOCHA_BASE_URL` points it at another server (the tests use one on
//! 127.0.0.1).

#[path = "support/show.rs"]
mod show;

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use toolkit::agent::Agent;
use toolkit::model::{Message, ModelRequest, ScriptedModel, Turn};
use toolkit::prelude::*;

/// The web search: Bocha when a key is set, a labelled mock otherwise.
struct Search {
    bocha: Option<Bocha>,
}

struct Bocha {
    http: reqwest::Client,
    url: String,
    key: String,
}

/// Why a search failed; the model reads it.
#[derive(Debug, thiserror::Error)]
enum SearchError {
    #[error("the search service could not be reached ({0}); answer from what you know and say so")]
    Unreachable(String),
    #[error("the search service refused the request ({status}): {message}")]
    Refused { status: u16, message: String },
    #[error("the search service sent a reply that is not a search result: {0}")]
    Malformed(String),
}

#[derive(Deserialize)]
struct BochaReply {
    data: Option<BochaData>,
}

#[derive(Deserialize)]
struct BochaData {
    #[serde(rename = "webPages")]
    web_pages: Option<BochaPages>,
}

#[derive(Deserialize)]
struct BochaPages {
    #[serde(default)]
    value: Vec<BochaPage>,
}

#[derive(Deserialize)]
struct BochaPage {
    #[serde(default)]
    name: String,
    #[serde(default)]
    url: String,
    #[serde(default)]
    snippet: String,
}

impl Search {
    /// Bocha if `BOCHA_API_KEY` is set, the mock otherwise.
    fn from_env() -> Search {
        let key = std::env::var("BOCHA_API_KEY").ok().filter(|k| !k.trim().is_empty());
        let bocha = key.map(|key| {
            let base = std::env::var("BOCHA_BASE_URL").unwrap_or_else(|_| "https://api.bochaai.com".into());
            Bocha { http: reqwest::Client::new(), url: format!("{}/v1/web-search", base.trim_end_matches('/')), key }
        });
        match &bocha {
            Some(b) => println!("search: Bocha at {}", b.url),
            None => println!("search: MOCK (set BOCHA_API_KEY for real results)"),
        }
        Search { bocha }
    }
}

/// Numbered title / snippet / link lines, as the model reads them.
fn format_results(query: &str, pages: &[BochaPage]) -> String {
    if pages.is_empty() {
        return format!("No results for \"{query}\".");
    }
    let mut out = format!("Search results for \"{query}\":\n");
    for (i, p) in pages.iter().enumerate() {
        out.push_str(&format!("\n{}. {}\n   {}\n   Source: {}\n", i + 1, p.name, p.snippet, p.url));
    }
    out
}

#[tools]
impl Search {
    /// Search the web for current information: news, recent events, facts that change.
    ///
    /// Returns numbered results with a title, a snippet and a link. Not for arithmetic:
    /// use `calculate`.
    #[tool(read_only, open_world, timeout = "15s")]
    async fn web_search(
        &self,
        /// What to search for, in the user's own words.
        #[arg(min_length = 1, max_length = 200)]
        query: String,
        /// How many results to return.
        #[arg(default = 5, minimum = 1, maximum = 10)]
        count: u32,
    ) -> Result<String, SearchError> {
        let Some(bocha) = &self.bocha else {
            let pages = [
                BochaPage {
                    name: "AI agent trends: multi-agent systems in finance and healthcare".into(),
                    url: "https://example.com/ai-agent-trends".into(),
                    snippet: "Multi-agent systems are spreading quickly in finance and healthcare...".into(),
                },
                BochaPage {
                    name: "Tool calling explained".into(),
                    url: "https://example.com/tool-calling".into(),
                    snippet: "Function calling is becoming the standard interface between agents and the world..."
                        .into(),
                },
            ];
            let shown = &pages[..pages.len().min(count as usize)];
            return Ok(format!(
                "[MOCK SEARCH: sample data, not real results; set BOCHA_API_KEY for real results]\n{}",
                format_results(&query, shown)
            ));
        };
        let response = bocha
            .http
            .post(&bocha.url)
            .bearer_auth(&bocha.key)
            .timeout(Duration::from_secs(10))
            .json(&json!({"query": query, "count": count}))
            .send()
            .await
            .map_err(|e| SearchError::Unreachable(e.to_string()))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| SearchError::Unreachable(e.to_string()))?;
        if !status.is_success() {
            return Err(SearchError::Refused { status: status.as_u16(), message: body.chars().take(200).collect() });
        }
        let reply: BochaReply = serde_json::from_str(&body).map_err(|e| SearchError::Malformed(e.to_string()))?;
        let pages = reply.data.and_then(|d| d.web_pages).map(|p| p.value).unwrap_or_default();
        Ok(format_results(&query, &pages))
    }
}

/// Why an expression could not be evaluated; the model reads it.
#[derive(Debug, thiserror::Error)]
enum CalcError {
    #[error("cannot read `{0}` at position {1}; use numbers, + - * / ^ and parentheses")]
    Syntax(String, usize),
    #[error("division by zero")]
    DivisionByZero,
}

/// Evaluate an arithmetic expression exactly as written.
///
/// Supports + - * / ^ (power), parentheses and decimals, for example
/// "(17.5 * 4 + 3) / 2". Use it for any arithmetic instead of computing in your head.
#[tool(read_only, idempotent)]
fn calculate(
    /// The expression, for example "2^10 / 4".
    #[arg(min_length = 1, max_length = 500)]
    expression: String,
) -> Result<f64, CalcError> {
    let mut p = Parser { s: expression.as_bytes(), i: 0, text: &expression };
    let value = p.sum()?;
    p.skip_spaces();
    if p.i < p.s.len() {
        return Err(p.error());
    }
    Ok(value)
}

/// A recursive-descent parser: sum := product (('+'|'-') product)*, product := power
/// (('*'|'/') power)*, power := unary ('^' power)?, unary := '-' unary | atom.
struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
}

impl Parser<'_> {
    fn skip_spaces(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_spaces();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn error(&self) -> CalcError {
        CalcError::Syntax(self.text.to_string(), self.i + 1)
    }

    fn sum(&mut self) -> Result<f64, CalcError> {
        let mut v = self.product()?;
        loop {
            if self.eat(b'+') {
                v += self.product()?;
            } else if self.eat(b'-') {
                v -= self.product()?;
            } else {
                return Ok(v);
            }
        }
    }

    fn product(&mut self) -> Result<f64, CalcError> {
        let mut v = self.power()?;
        loop {
            if self.eat(b'*') {
                v *= self.power()?;
            } else if self.eat(b'/') {
                let d = self.power()?;
                if d == 0.0 {
                    return Err(CalcError::DivisionByZero);
                }
                v /= d;
            } else {
                return Ok(v);
            }
        }
    }

    fn power(&mut self) -> Result<f64, CalcError> {
        let base = self.unary()?;
        if self.eat(b'^') { Ok(base.powf(self.power()?)) } else { Ok(base) }
    }

    fn unary(&mut self) -> Result<f64, CalcError> {
        if self.eat(b'-') {
            return Ok(-self.unary()?);
        }
        if self.eat(b'(') {
            let v = self.sum()?;
            return if self.eat(b')') { Ok(v) } else { Err(self.error()) };
        }
        self.skip_spaces();
        let start = self.i;
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_digit() || *c == b'.') {
            self.i += 1;
        }
        self.text[start..self.i].parse().map_err(|_| self.error())
    }
}

/// The scripted model's choice: arithmetic goes to the calculator, anything else to
/// the search.
fn pick_tool(request: &ModelRequest<'_>) -> Turn {
    let question = request
        .messages
        .iter()
        .rev()
        .find_map(|m| match m {
            Message::User { content } => Some(content.as_str()),
            _ => None,
        })
        .unwrap_or_default();
    let math: String = question.chars().filter(|c| c.is_ascii_digit() || "+-*/^(). ".contains(*c)).collect();
    let math = math.trim().trim_end_matches('.').trim();
    if math.chars().any(|c| c.is_ascii_digit()) && math.chars().any(|c| "+-*/^".contains(c)) {
        Turn::call("calculate", json!({ "expression": math }).to_string())
    } else {
        Turn::call("web_search", json!({ "query": question }).to_string())
    }
}

/// The scripted answer: the last tool result, introduced.
fn answer(request: &ModelRequest<'_>) -> Turn {
    let result = request.messages.last().and_then(Message::text).unwrap_or_default();
    Turn::text(format!("Based on the tool's answer:\n{result}"))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    show::exit_code(run().await)
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    let search = Arc::new(Search::from_env());
    let tools = Arc::new(toolbox![search.web_search, calculate]);
    let real = show::real_model()?;
    let questions = match show::asked() {
        Some(question) => vec![question],
        None => vec!["What are the latest trends in AI agents?".to_string(), "What is (17.5 * 4 + 3) / 2?".to_string()],
    };
    for question in questions {
        println!("\nuser: {question}");
        let model: Arc<dyn toolkit::model::Model> = match &real {
            Some(m) => Arc::clone(m),
            None => Arc::new(ScriptedModel::new([Turn::with(pick_tool), Turn::with(answer)])),
        };
        let agent = Agent::builder(model, Arc::clone(&tools))
            .name("researcher")
            .system_prompt("Use web_search for current information and calculate for arithmetic.")
            .on_event(show::print_event)
            .build()?;
        show::run_and_show(&agent, question).await?;
    }
    Ok(())
}
