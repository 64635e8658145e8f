//! Schemas: one canonical JSON Schema per tool, and everything derived from it.
//!
//! - [`ToolSpec::export`](crate::ToolSpec::export) gives a tool in a provider's shape
//!   ([`Target`]): OpenAI Chat Completions (plain or strict), OpenAI Responses,
//!   Anthropic, Gemini, MCP.
//! - [`check`](fn@check) says what a target cannot take of a tool, as [`Incompatibility`]s (tool,
//!   path, rule), before a provider answers 400.
//! - [`markdown`](fn@markdown) documents a list of tools for people; [`write_docs`] writes that page
//!   and the JSON of every target into a directory.
//! - [`render_expected`] renders a tool's arguments on one line for the messages a
//!   model reads after sending wrong arguments.
//!
//! ```
//! use serde_json::json;
//! use toolkit::ToolSpec;
//! use toolkit::schema::{Target, check};
//!
//! let spec = ToolSpec::new("echo", "Repeat the text back.", json!({
//!     "type": "object",
//!     "properties": {"text": {"type": "string"}},
//!     "required": ["text"],
//!     "additionalProperties": false
//! }));
//! assert_eq!(spec.expected, "{text: string}");
//! for target in Target::ALL {
//!     assert!(check(&spec, target).is_empty());
//!     assert!(spec.export(target).is_object());
//! }
//! ```

mod anthropic;
pub(crate) mod builder;
mod check;
mod docs;
pub(crate) mod example;
mod export;
pub(crate) mod gemini;
mod markdown;
pub(crate) mod openai;
mod target;
pub(crate) mod walk;

pub use crate::json_schema::render::render_expected;
pub use check::{Incompatibility, check, is_valid_name, notes};
pub use docs::{docs_file_name, write_docs};
#[cfg(feature = "anthropic")]
pub(crate) use export::ANTHROPIC_CODE_EXECUTION;
pub use markdown::markdown;
pub use target::Target;
