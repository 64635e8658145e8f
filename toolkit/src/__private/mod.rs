//! Support for the code `#[tool]`, `#[tools]`, `toolbox!`, `#[hook]` and `hooks!`
//! generate. Not a public API: everything here may change in any release.
//!
//! One mistake, one error: the traits with `#[diagnostic::on_unimplemented]` exist so
//! that a parameter or a return type the runtime cannot use fails with one error at the
//! user's type that names the fix, instead of a cascade from deep inside serde or
//! schemars; the `*Probe` types resolve optional capabilities (a default's JSON, an
//! output schema, an error's source chain) by autoref specialization, so a missing one
//! never reports the same mistake a second time.
#![allow(missing_docs)]

mod constraints;
mod examples;
mod formats;
mod hooks;
mod lists;
mod outputs;
mod params;
mod placeholders;

pub use constraints::*;
pub use examples::*;
pub use formats::*;
pub use hooks::*;
pub use lists::*;
pub use outputs::*;
pub use params::*;
pub use placeholders::*;

use std::any::Any;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

pub use futures_util::future::{BoxFuture, Either};
pub use regex::Regex;
pub use schemars;
pub use serde;
pub use serde_json;
pub use std::boxed::Box;
pub use std::option::Option::{self, None, Some};
pub use std::result::Result::{self, Err, Ok};
pub use std::string::String;
pub use std::sync::LazyLock;
pub use std::time::Duration;
pub use std::vec;
pub use std::vec::Vec;

pub use crate::call::IntoOutput;
pub use crate::call::{Output, ToolCall, ToolResult};
pub use crate::context::CallContext;
pub use crate::error::{ErrorKind, ToolError, Violation};
pub use crate::exec::run_blocking;
pub use crate::hook::{
    AfterCall, AfterHook, BeforeCall, BeforeHook, Decision, ErrorCall, ErrorHook, Hook, HookError, HookStep, Hooks,
    IntoHookResult, OnFailure, Recovery,
};
pub use crate::schema::builder::{ArgsSchema, ParamSchema, Presence, SchemaWith};
pub use crate::spec::{Annotations, Callers, Freeform, Grammar, Icon, ParamHeader, RetryPolicy, ToolSpec};
pub use crate::tool::{Tool, Validate};
pub use crate::toolbox::{ToolEntry, Toolbox};
pub use toolkit_macros::{hooks_impl, toolbox_impl};
