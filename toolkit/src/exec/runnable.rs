//! The type-erased boundary between a tool and the runtime.
//!
//! [`Runnable`] is all the runtime knows of a tool. For a `#[tool]` it is implemented by
//! [`Typed`], whose methods are the only code compiled per tool: parse the arguments
//! into the tool's struct (one `Deserialize`), call the function, encode its output and
//! arguments. Everything else (drivers, hooks, guard, records, error messages) takes
//! `&dyn Runnable` and is compiled once. Run-time tools ([`DynTool`]) are [`Dynamic`].
//!
//! `Typed`'s methods (and `parse::parse_typed`) `match` on results where `map`/`map_err`
//! would read shorter: every closure is compiled once per tool, and these added up to
//! about 200 lines of LLVM IR per tool (`benches/build_cost.sh`).

use std::any::Any;
use std::future::Future;

use futures_util::future::BoxFuture;
use serde_json::{Map, Value};

use super::Started;
use super::parse::{parse_object, parse_typed};
use super::unknown::LazyKeyCheck;
use crate::call::{Output, ToolCallRef};
use crate::context::{CallContext, State};
use crate::error::{ErrorKind, ToolError};
use crate::limits::Limits;
use crate::spec::ToolSpec;
use crate::tool::{DynTool, Tool};

/// What a call carries from its scope to its tool: the run (for the idempotency key) and
/// where progress goes.
pub(crate) type Along<'a> = (Option<&'a str>, Option<&'a crate::progress::ProgressTo>);

/// A call's arguments once parsed: the tool's own struct, or a run-time tool's object.
pub(crate) enum Parsed {
    Typed(Box<dyn Any + Send>),
    Json(Map<String, Value>),
}

/// A tool, as the runtime runs it.
pub(crate) trait Runnable: Send + Sync + 'static {
    /// The spec (built on first use; building it runs `JsonSchema`, which may panic).
    fn spec(&self) -> &ToolSpec;
    /// Parses the model's arguments (or JSON a hook rewrote).
    fn parse(&self, raw: &str, limits: &Limits) -> Result<Parsed, ToolError>;
    /// The JSON view of typed arguments (wire names, `None` omitted).
    fn encode(&self, args: &(dyn Any + Send)) -> Result<Map<String, Value>, String>;
    /// Whether [`run_now`](Runnable::run_now) runs the tool (a sync tool that does not
    /// block): such a call needs no future.
    fn runs_now(&self) -> bool;
    /// Runs a tool that never waits.
    fn run_now(&self, args: Parsed, cx: &CallContext<'_>) -> Result<Output, ToolError>;
    /// The future of a tool that may wait (not yet polled).
    fn run<'a>(&'a self, args: Parsed, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>>;
    /// A call no hook acts on: parse and run in one step, the arguments never boxed.
    /// [`Started::Done`] (a sync tool ran, or the arguments were refused; the output is
    /// checked: [`call::checked`](crate::call::checked)) or [`Started::Running`].
    fn start<'a>(&'a self, call: ToolCallRef<'a>, state: &'a State, along: Along<'a>, limits: &Limits) -> Started<'a>;
}

/// A `#[tool]` (any [`Tool`]), erased, with the check for unknown nested keys its
/// arguments need, compiled from its schema at the first parse that needs it.
pub(crate) struct Typed<T> {
    tool: T,
    keys: LazyKeyCheck,
}

impl<T> Typed<T> {
    pub(crate) fn new(tool: T) -> Self {
        Typed { tool, keys: LazyKeyCheck::default() }
    }
}

/// A run-time tool, erased.
pub(crate) struct Dynamic<D>(pub(crate) D);

/// Boxes a future in place: `Box::pin(f)` would build it on the stack and copy it.
#[inline(always)]
fn boxed<'a, F>(f: F) -> BoxFuture<'a, Result<Output, ToolError>>
where
    F: Future<Output = Result<Output, ToolError>> + Send + 'a,
{
    let boxed: Box<F> = Box::write(Box::new_uninit(), f);
    Box::into_pin(boxed)
}

#[cold]
#[inline(never)]
pub(crate) fn not_ready() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
        .with_detail("the arguments were not of the tool's type when it was to run")
}

#[cold]
#[inline(never)]
fn gave_back() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
        .with_detail("a sync tool's `invoke_now` gave its arguments back")
}

impl<T: Tool> Typed<T> {
    #[inline]
    fn args(args: Parsed) -> Result<T::Args, ToolError> {
        match args {
            Parsed::Typed(b) => match b.downcast::<T::Args>() {
                Ok(args) => Ok(*args),
                Err(_) => Err(not_ready()),
            },
            Parsed::Json(_) => Err(not_ready()),
        }
    }
}

impl<T: Tool> Runnable for Typed<T> {
    fn spec(&self) -> &ToolSpec {
        T::spec()
    }

    fn parse(&self, raw: &str, limits: &Limits) -> Result<Parsed, ToolError> {
        match parse_typed::<T::Args>(raw, T::spec(), &self.keys, limits) {
            Ok(args) => Ok(Parsed::Typed(Box::new(args))),
            Err(e) => Err(e),
        }
    }

    fn encode(&self, args: &(dyn Any + Send)) -> Result<Map<String, Value>, String> {
        match args.downcast_ref::<T::Args>() {
            Some(args) => T::encode_args(args),
            None => Err(format!("the arguments are not those of `{}`", T::NAME)),
        }
    }

    fn runs_now(&self) -> bool {
        T::RUNS_NOW
    }

    fn run_now(&self, args: Parsed, cx: &CallContext<'_>) -> Result<Output, ToolError> {
        match self.tool.invoke_now(Self::args(args)?, cx) {
            Ok(outcome) => outcome,
            Err(_) => Err(gave_back()),
        }
    }

    fn run<'a>(&'a self, args: Parsed, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        match Self::args(args) {
            Ok(args) => boxed(self.tool.invoke(args, cx)),
            Err(e) => Box::pin(std::future::ready(Err(e))),
        }
    }

    #[inline]
    fn start<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        state: &'a State,
        (run, progress): Along<'a>,
        limits: &Limits,
    ) -> Started<'a> {
        let spec = T::spec();
        let args = match parse_typed::<T::Args>(call.arguments, spec, &self.keys, limits) {
            Ok(args) => args,
            Err(e) => return Started::Done(Err(e)),
        };
        let cx = CallContext::new(call.id, spec, state).in_run(run, call.arguments).reporting(progress);
        if T::RUNS_NOW {
            return Started::Done(match self.tool.invoke_now(args, &cx) {
                Ok(ran) => crate::call::checked(ran, limits.max_result_bytes),
                Err(_) => Err(gave_back()),
            });
        }
        Started::Running(boxed(self.tool.invoke(args, cx)), spec)
    }
}

impl<D: DynTool> Runnable for Dynamic<D> {
    fn spec(&self) -> &ToolSpec {
        self.0.spec()
    }

    fn parse(&self, raw: &str, limits: &Limits) -> Result<Parsed, ToolError> {
        parse_object(raw, self.0.spec(), limits).map(Parsed::Json)
    }

    fn encode(&self, _args: &(dyn Any + Send)) -> Result<Map<String, Value>, String> {
        Err("a run-time tool's arguments are JSON already".into())
    }

    fn runs_now(&self) -> bool {
        false
    }

    fn run_now(&self, _args: Parsed, _cx: &CallContext<'_>) -> Result<Output, ToolError> {
        Err(not_ready())
    }

    fn run<'a>(&'a self, args: Parsed, cx: CallContext<'a>) -> BoxFuture<'a, Result<Output, ToolError>> {
        match args {
            Parsed::Json(map) => self.0.call(map, cx),
            Parsed::Typed(_) => Box::pin(std::future::ready(Err(not_ready()))),
        }
    }

    fn start<'a>(
        &'a self,
        call: ToolCallRef<'a>,
        state: &'a State,
        (run, progress): Along<'a>,
        limits: &Limits,
    ) -> Started<'a> {
        let spec = self.0.spec();
        match parse_object(call.arguments, spec, limits) {
            Ok(map) => Started::Running(
                self.0
                    .call(map, CallContext::new(call.id, spec, state).in_run(run, call.arguments).reporting(progress)),
                spec,
            ),
            Err(e) => Started::Done(Err(e)),
        }
    }
}
