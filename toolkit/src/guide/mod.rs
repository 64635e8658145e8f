//! Guides: how to do a whole task with toolkit, from the first line to the last. Every
//! example in them is compiled and run by `cargo test` as a doctest, so a guide cannot
//! drift from the code.
//!
//! | guide | for |
//! |---|---|
//! | [`testing_an_agent`] | tests that run the tools and hooks for real with a scripted model: trajectory assertions, policy tests, production audit logs replayed as regression tests |

#[doc = include_str!("testing_an_agent.md")]
pub mod testing_an_agent {}
