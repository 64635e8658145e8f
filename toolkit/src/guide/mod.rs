//! Guides: how to do a whole task with toolkit, from the first line to the last. Every
//! example in them is compiled and run by `cargo test` as a doctest, so a guide cannot
//! drift from the code.
//!
//! | guide | for |
//! |---|---|
//! | [`tools`] | what `#[tool]` generates, what a tool may take and return (text, JSON, images, audio, files), the errors a model gets, tool search, schemas for every provider |
//! | [`hooks`] | `#[hook]`, scopes and order, the built-in hooks (audit, redaction, sandbox, rate limit, breaker, cache, loop guard, approval) and what the guards guarantee, shared state on Redis |
//! | [`agents`] | the agent loop, the model clients, streaming, runs that pause and resume, runs on Temporal |
//! | [`mcp`] | serving a toolbox over MCP (stdio, streamable HTTP), protocol eras, bad input, importing an MCP server's tools |
//! | [`choices`] | the choices worth knowing, tool documentation, and performance in figures |
//! | [`testing_an_agent`] | tests that run the tools and hooks for real with a scripted model: trajectory assertions, policy tests, production audit logs replayed as regression tests |

#[doc = include_str!("tools.md")]
pub mod tools {}

#[doc = include_str!("hooks.md")]
pub mod hooks {}

#[doc = include_str!("agents.md")]
pub mod agents {}

#[doc = include_str!("mcp.md")]
pub mod mcp {}

#[doc = include_str!("choices.md")]
pub mod choices {}

#[doc = include_str!("testing_an_agent.md")]
pub mod testing_an_agent {}
