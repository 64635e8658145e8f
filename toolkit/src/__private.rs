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

use std::any::Any;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::Arc;

pub use futures_util::future::BoxFuture;
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

pub use crate::call::{Output, ToolCall, ToolResult};
pub use crate::context::CallContext;
pub use crate::error::{ErrorKind, ToolError, Violation};
pub use crate::exec::run_blocking;
pub use crate::hook::{
    AfterCall, AfterHook, BeforeCall, BeforeHook, Decision, ErrorCall, ErrorHook, Hook, HookError, HookStep, Hooks,
    IntoHookResult, OnFailure, Recovery,
};
pub use crate::schema::builder::{ArgsSchema, ParamSchema, Presence};
pub use crate::spec::{Annotations, ToolSpec};
pub use crate::tool::{Tool, Validate};
pub use crate::toolbox::{ToolEntry, Toolbox};
pub use toolkit_macros::{hooks_impl, toolbox_impl};

// ---- parameters ---------------------------------------------------------------

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool parameter: it does not implement `serde::Deserialize`",
    label = "not deserializable",
    note = "add `#[derive(serde::Deserialize)]` to the type, or take a type that has it; borrowed types such as `&str` cannot be parameters (use `String`)"
)]
pub trait ParamDeserialize: serde::de::DeserializeOwned {}
impl<T: serde::de::DeserializeOwned> ParamDeserialize for T {}

/// Reads one argument's value in the `Deserialize` impl `#[tool]` generates: the one
/// place a parameter type must be `Deserialize` (spanned at the type, so a missing impl
/// is one error there), instantiated once per parameter type, not per tool.
#[inline]
pub fn param_value<'de, M, T>(map: &mut M) -> Result<T, M::Error>
where
    M: serde::de::MapAccess<'de>,
    T: ParamDeserialize,
{
    map.next_value()
}

#[diagnostic::on_unimplemented(
    message = "`#[arg(default)]` needs `{Self}: Default`",
    label = "has no `Default`",
    note = "implement or derive `Default` for the type, or give the value: `#[arg(default = expr)]`"
)]
pub trait ParamDefault: Default {}
impl<T: Default> ParamDefault for T {}

#[inline]
pub fn param_default<T: ParamDefault>() -> T {
    T::default()
}

/// Computes the schema's `default` for a parameter: the value serialized, when the type
/// is `Serialize` (autoref specialization; otherwise no `default` is published).
pub struct DefaultProbe<'a, T>(pub &'a T);

pub trait DefaultViaSerialize {
    fn default_json(&self) -> Option<serde_json::Value>;
}
impl<T: serde::Serialize> DefaultViaSerialize for &DefaultProbe<'_, T> {
    fn default_json(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.0).ok()
    }
}
pub trait DefaultViaNothing {
    fn default_json(&self) -> Option<serde_json::Value>;
}
impl<T> DefaultViaNothing for DefaultProbe<'_, T> {
    fn default_json(&self) -> Option<serde_json::Value> {
        None
    }
}

// ---- injected parameters ------------------------------------------------------

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a `#[state]` parameter",
    label = "not injectable",
    note = "take the shared value as `&T` or `Arc<T>`, and provide it with `Toolbox::with_state(value)`"
)]
pub trait FromState<'a>: Sized {
    fn from_state(cx: &CallContext<'a>) -> Result<Self, ToolError>;
}

fn missing_state<T>(cx: &CallContext<'_>) -> ToolError {
    ToolError::new(ErrorKind::Unavailable, format!("`{}` is not available right now", cx.tool().name)).with_detail(
        format!("no state of type `{}` was provided: call `Toolbox::with_state` with it", std::any::type_name::<T>()),
    )
}

impl<'a, T: Send + Sync + 'static> FromState<'a> for &'a T {
    fn from_state(cx: &CallContext<'a>) -> Result<Self, ToolError> {
        cx.state().get::<T>().ok_or_else(|| missing_state::<T>(cx))
    }
}

impl<'a, T: Send + Sync + 'static> FromState<'a> for Arc<T> {
    fn from_state(cx: &CallContext<'a>) -> Result<Self, ToolError> {
        cx.state().get_arc::<T>().ok_or_else(|| missing_state::<T>(cx))
    }
}

#[diagnostic::on_unimplemented(
    message = "a `#[context]` parameter must be `&CallContext<'_>` or `CallContext<'_>`, not `{Self}`",
    label = "not the call context"
)]
pub trait FromContext<'a>: Sized {
    fn from_context(cx: &'a CallContext<'a>) -> Self;
}
impl<'a> FromContext<'a> for &'a CallContext<'a> {
    fn from_context(cx: &'a CallContext<'a>) -> Self {
        cx
    }
}
impl<'a> FromContext<'a> for CallContext<'a> {
    fn from_context(cx: &'a CallContext<'a>) -> Self {
        *cx
    }
}

#[inline]
pub fn from_context<'a, T: FromContext<'a>>(cx: &'a CallContext<'a>) -> T {
    T::from_context(cx)
}

#[inline]
pub fn from_state<'a, T: FromState<'a>>(cx: &CallContext<'a>) -> Result<T, ToolError> {
    T::from_state(cx)
}

// ---- outputs --------------------------------------------------------------------

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it does not implement `serde::Serialize`",
    label = "not serializable",
    note = "derive `serde::Serialize` for it, or return `String` (sent as text), `()`, or `Result<T, E>` where `E: Display`"
)]
pub trait ToolOutput: serde::Serialize {}
impl<T: serde::Serialize + ?Sized> ToolOutput for T {}

#[inline]
pub fn output_json<T: ToolOutput>(value: &T) -> Result<Output, ToolError> {
    Output::json(value)
}

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's error type: it does not implement `Display`",
    label = "no `Display`",
    note = "the model reads the error's `Display` text; implement `Display` (for example with `thiserror`)"
)]
pub trait ToolErrorType: Display {}
impl<T: Display + ?Sized> ToolErrorType for T {}

/// Publishes an output schema when the output type implements `JsonSchema`.
pub struct OutputProbe<T: ?Sized>(pub PhantomData<T>);

pub trait OutputViaSchema {
    fn output_schema(&self) -> Option<serde_json::Value>;
}
impl<T: schemars::JsonSchema + ?Sized> OutputViaSchema for &OutputProbe<T> {
    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(crate::schema::builder::output_schema::<T>())
    }
}
pub trait OutputViaNothing {
    fn output_schema(&self) -> Option<serde_json::Value>;
}
impl<T: ?Sized> OutputViaNothing for OutputProbe<T> {
    fn output_schema(&self) -> Option<serde_json::Value> {
        None
    }
}

/// The one check that a tool's error type is `Display`, spanned at the error type (or at
/// the whole return type, for a `Result` alias that hides it).
#[inline]
pub fn check_error<E: ToolErrorType + ?Sized>(_: &E) {}

/// Turns a tool's `Err` into a [`ToolError`] by autoref specialization, used as
/// `(&&&ErrorProbe(e)).tool_error()`: the model reads the error's `Display`; when it is
/// a `std::error::Error`, its source chain becomes operator-only detail; an error type
/// that is not even `Display` (already reported once by [`check_error`]) still resolves,
/// so the mistake is not reported a second time.
pub struct ErrorProbe<E>(pub E);

pub trait ErrorViaError {
    fn tool_error(&self) -> ToolError;
}
impl<E: std::error::Error> ErrorViaError for &&ErrorProbe<E> {
    fn tool_error(&self) -> ToolError {
        let mut chain = Vec::new();
        let mut source = self.0.source();
        while let Some(s) = source {
            chain.push(s.to_string());
            source = s.source();
        }
        let e = ToolError::new(ErrorKind::ToolFailed, self.0.to_string());
        if chain.is_empty() { e } else { e.with_detail(chain.join(": ")) }
    }
}
pub trait ErrorViaDisplay {
    fn tool_error(&self) -> ToolError;
}
impl<E: ToolErrorType> ErrorViaDisplay for &ErrorProbe<E> {
    fn tool_error(&self) -> ToolError {
        ToolError::new(ErrorKind::ToolFailed, self.0.to_string())
    }
}
pub trait ErrorViaNothing {
    fn tool_error(&self) -> ToolError;
}
impl<E> ErrorViaNothing for ErrorProbe<E> {
    fn tool_error(&self) -> ToolError {
        ToolError::new(ErrorKind::ToolFailed, "the tool failed")
    }
}

/// The `invoke` of a sync tool: its `invoke_now` always runs the tool.
#[inline]
pub fn finished<A>(outcome: Result<Result<Output, ToolError>, A>) -> Result<Output, ToolError> {
    match outcome {
        Ok(outcome) => outcome,
        Err(_) => Err(ToolError::new(ErrorKind::Unavailable, "this tool is not available")
            .with_detail("a sync tool's `invoke_now` gave its arguments back")),
    }
}

// ---- what hooks see of a tool -----------------------------------------------------

/// Encodes one argument for `Tool::encode_args` by autoref specialization, used as
/// `(&&EncodeProbe(&args.field)).encode_param("wire")`: parameter types need not be
/// `Serialize`; one that is not fails the encoding (at run time, naming the parameter).
pub struct EncodeProbe<'a, T>(pub &'a T);

pub trait EncodeViaSerialize {
    fn encode_param(&self, name: &str) -> Result<serde_json::Value, String>;
}
impl<T: serde::Serialize> EncodeViaSerialize for &EncodeProbe<'_, T> {
    fn encode_param(&self, name: &str) -> Result<serde_json::Value, String> {
        serde_json::to_value(self.0).map_err(|e| format!("parameter `{name}` could not be encoded as JSON: {e}"))
    }
}
pub trait EncodeViaNothing {
    fn encode_param(&self, name: &str) -> Result<serde_json::Value, String>;
}
impl<T> EncodeViaNothing for EncodeProbe<'_, T> {
    fn encode_param(&self, name: &str) -> Result<serde_json::Value, String> {
        Err(format!("parameter `{name}` has a type that is not `Serialize`"))
    }
}

/// Keeps a tool's typed output beside its text for after hooks, by autoref
/// specialization, used as `(&&RawProbe::of(&value)).keep_raw(output, value)`: a value
/// that is not `Any + Send + Sync` is simply not kept (no bound on the output type).
pub struct RawProbe<T>(PhantomData<T>);

impl<T> RawProbe<T> {
    #[inline]
    pub fn of(_: &T) -> Self {
        RawProbe(PhantomData)
    }
}

pub trait RawViaAny {
    type Value;
    fn keep_raw(&self, output: Output, value: Self::Value) -> Output;
}
impl<T: Any + Send + Sync> RawViaAny for &RawProbe<T> {
    type Value = T;
    #[inline]
    fn keep_raw(&self, output: Output, value: T) -> Output {
        output.with_raw(value)
    }
}
pub trait RawViaNothing {
    type Value;
    fn keep_raw(&self, output: Output, value: Self::Value) -> Output;
}
impl<T> RawViaNothing for RawProbe<T> {
    type Value = T;
    #[inline]
    fn keep_raw(&self, output: Output, _: T) -> Output {
        output
    }
}

// ---- #[hook] ------------------------------------------------------------------------

// What a hook function may return, one impl per accepted form, so that a wrong return
// type is reported with the list of the right ones.

#[diagnostic::on_unimplemented(
    message = "a before hook cannot return `{Self}`",
    label = "not a before hook's return type",
    note = "a before hook returns `()` (go on), `Decision` (`Continue`, `Block(reason)`, `Return(output)`), `Result<(), E>` or `Result<Decision, E>` where `E: Display` (an `Err` makes the hook fail)"
)]
pub trait BeforeReturn: IntoHookResult<Decision> {}
impl BeforeReturn for () {}
impl BeforeReturn for Decision {}
impl<E: Display> BeforeReturn for Result<(), E> {}
impl<E: Display> BeforeReturn for Result<Decision, E> {}

#[diagnostic::on_unimplemented(
    message = "an after hook cannot return `{Self}`",
    label = "not an after hook's return type",
    note = "an after hook returns `()` or `Result<(), E>` where `E: Display` (an `Err` makes the hook fail); it changes what the model sees with `out.set_text(..)`"
)]
pub trait AfterReturn: IntoHookResult<()> {}
impl AfterReturn for () {}
impl<E: Display> AfterReturn for Result<(), E> {}

#[diagnostic::on_unimplemented(
    message = "an error hook cannot return `{Self}`",
    label = "not an error hook's return type",
    note = "an error hook returns `()` (pass the failure on), `Recovery` (`Message(text)`, `Retry`, `Propagate`), `Result<(), E>` or `Result<Recovery, E>` where `E: Display` (an `Err` makes the hook fail)"
)]
pub trait ErrorReturn: IntoHookResult<Recovery> {}
impl ErrorReturn for () {}
impl ErrorReturn for Recovery {}
impl<E: Display> ErrorReturn for Result<(), E> {}
impl<E: Display> ErrorReturn for Result<Recovery, E> {}

/// What a before hook function returned, as the pipeline takes it; the one check of the
/// return type, spanned at it.
#[inline]
pub fn before_result<R: BeforeReturn>(returned: R) -> Result<Decision, HookError> {
    returned.into_hook_result()
}

/// See [`before_result`].
#[inline]
pub fn after_result<R: AfterReturn>(returned: R) -> Result<(), HookError> {
    returned.into_hook_result()
}

/// See [`before_result`].
#[inline]
pub fn error_result<R: ErrorReturn>(returned: R) -> Result<Recovery, HookError> {
    returned.into_hook_result()
}

/// An async hook's step. The one place its future must be `Send`.
#[inline]
pub fn pending<'a, T, F>(future: F) -> HookStep<'a, T>
where
    F: Future<Output = Result<T, HookError>> + Send + 'a,
{
    HookStep::Pending(Box::pin(future))
}

#[diagnostic::on_unimplemented(
    message = "the `{T}` tool takes `{A}`, not `{Self}`",
    label = "expected `{A}`",
    note = "a typed before hook takes `&mut` the argument struct `#[tool]` generated for its one tool: `Args<the_tool>`, named after the tool in CamelCase with `Args` (`read_file` -> `ReadFileArgs`)"
)]
pub trait ArgsAre<A: ?Sized, T> {}
impl<A: ?Sized, T> ArgsAre<A, T> for A {}

/// Checks a typed before hook's parameter against the tool's argument struct. The
/// projection is normalized in the bound (the tool is concrete), so a mismatch is an
/// unmet [`ArgsAre`] with its message rather than a projection mismatch.
#[inline]
pub fn args_of<T: Tool, A: ArgsAre<T::Args, T>>() {}

#[diagnostic::on_unimplemented(
    message = "the `{T}` tool returns `{O}`, not `{Self}`",
    label = "expected `{O}`",
    note = "a typed after hook reads the tool's output as `raw: Option<&T>`, where `T` is what the tool returns on success (`T` of `-> T` or `-> Result<T, E>`)"
)]
pub trait OutputIs<O: ?Sized, T> {}
impl<O: ?Sized, T> OutputIs<O, T> for O {}

/// Checks a typed after hook's `raw` parameter against the tool's output type (see
/// [`args_of`]).
#[inline]
pub fn output_of<T: Tool, O: OutputIs<T::Output, T>>() {}

/// Whether the tool keeps its typed output for after hooks (see `Tool::KEEPS_RAW`).
#[inline]
pub const fn keeps_raw<T: Tool>() -> bool {
    T::KEEPS_RAW
}

/// The companion struct of a `#[hook]` function, as `hooks!` names it (by the function's
/// path). Implemented by each expansion, never by a blanket impl (see [`Listable`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hook",
    label = "not a hook",
    note = "`hooks!` lists `#[hook]` functions by path (`sandbox`, `policy::audit`): put `#[hook(before)]`, `#[hook(after)]` or `#[hook(error)]` on the function"
)]
pub trait Hookable {
    type Handle: HookDef;
    const HANDLE: Self::Handle;
}

/// A `#[hook]` function's name and its [`Hook`].
pub trait HookDef {
    const NAME: &'static str;
    fn hook() -> Hook;
}

#[inline]
pub const fn hook_handle<T: Hookable>() -> T::Handle {
    T::HANDLE
}

#[inline]
pub const fn hook_name<H: HookDef>(_: &H) -> &'static str {
    H::NAME
}

#[inline]
pub fn hook_of<H: HookDef>(_: H) -> Hook {
    H::hook()
}

/// The [`Hook`] of a `#[hook]` function named by its path in `hooks!` (one bound, as
/// [`listed_entry`]).
#[inline]
pub fn hookable_hook<T: Hookable>() -> Hook {
    <T::Handle as HookDef>::hook()
}

/// The name of a `#[hook]` function named by its path in `hooks!`.
#[inline]
pub const fn hookable_name<T: Hookable>() -> &'static str {
    <T::Handle as HookDef>::NAME
}

// ---- constraints ----------------------------------------------------------------

#[diagnostic::on_unimplemented(
    message = "`minimum` and `maximum` apply to numbers, not to `{Self}`",
    label = "not a number",
    note = "use `min_length`/`max_length` for strings and lists, `pattern` for strings"
)]
pub trait Numeric {
    type Bound: PartialOrd + Display + Copy;
    fn number(&self) -> Option<Self::Bound>;
}

macro_rules! numeric {
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            type Bound = $t;
            #[inline]
            fn number(&self) -> Option<$t> { Some(*self) }
        }
    )*};
}
numeric!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

impl<T: Numeric> Numeric for Option<T> {
    type Bound = T::Bound;
    #[inline]
    fn number(&self) -> Option<T::Bound> {
        self.as_ref().and_then(Numeric::number)
    }
}

#[diagnostic::on_unimplemented(
    message = "`min_length` and `max_length` apply to strings and lists, not to `{Self}`",
    label = "has no length",
    note = "use `minimum`/`maximum` for numbers"
)]
pub trait HasLength {
    /// The schema keywords: `minLength`/`maxLength` or `minItems`/`maxItems`.
    const KEYWORDS: (&'static str, &'static str);
    /// What is counted, for messages: "characters" or "items".
    const UNIT: &'static str;
    fn length(&self) -> Option<usize>;
}
impl HasLength for String {
    const KEYWORDS: (&'static str, &'static str) = ("minLength", "maxLength");
    const UNIT: &'static str = "characters";
    #[inline]
    fn length(&self) -> Option<usize> {
        Some(self.chars().count())
    }
}
impl<T> HasLength for Vec<T> {
    const KEYWORDS: (&'static str, &'static str) = ("minItems", "maxItems");
    const UNIT: &'static str = "items";
    #[inline]
    fn length(&self) -> Option<usize> {
        Some(self.len())
    }
}
impl<T: HasLength> HasLength for Option<T> {
    const KEYWORDS: (&'static str, &'static str) = T::KEYWORDS;
    const UNIT: &'static str = T::UNIT;
    #[inline]
    fn length(&self) -> Option<usize> {
        self.as_ref().and_then(HasLength::length)
    }
}

#[diagnostic::on_unimplemented(
    message = "`pattern` applies to strings, not to `{Self}`",
    label = "not a string",
    note = "`pattern` is a regular expression the string must match"
)]
pub trait Text {
    fn text(&self) -> Option<&str>;
}
impl Text for String {
    #[inline]
    fn text(&self) -> Option<&str> {
        Some(self)
    }
}
impl<T: Text> Text for Option<T> {
    #[inline]
    fn text(&self) -> Option<&str> {
        self.as_ref().and_then(Text::text)
    }
}

pub fn check_min_length<T: HasLength>(field: &'static str, value: &T, min: usize) -> Result<(), Violation> {
    match value.length() {
        Some(n) if n < min => Err(Violation { field, rule: format!("must have at least {min} {} (got {n})", T::UNIT) }),
        _ => Ok(()),
    }
}

pub fn check_max_length<T: HasLength>(field: &'static str, value: &T, max: usize) -> Result<(), Violation> {
    match value.length() {
        Some(n) if n > max => Err(Violation { field, rule: format!("must have at most {max} {} (got {n})", T::UNIT) }),
        _ => Ok(()),
    }
}

pub fn check_pattern<T: Text>(field: &'static str, value: &T, re: &Option<Regex>) -> Result<(), Violation> {
    match (value.text(), re) {
        (Some(s), Some(re)) if !re.is_match(s) => {
            Err(Violation { field, rule: format!("must match the pattern `{}` (got {s:?})", re.as_str()) })
        }
        (Some(_), None) => Err(Violation { field, rule: "cannot be checked: its pattern does not compile".into() }),
        _ => Ok(()),
    }
}

/// Compiles a pattern the macro already compiled at compile time (so `None` is not
/// expected; it fails the check rather than panicking).
pub fn regex(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

/// `minimum` with the bound's type inferred from the parameter through `Numeric<Bound = B>`
/// rather than the projection `T::Bound`, which fails a second time when `T` is not a
/// number.
#[inline]
pub fn check_min<T: Numeric<Bound = B>, B>(field: &'static str, value: &T, min: B) -> Result<(), Violation>
where
    B: PartialOrd + Display,
{
    match value.number() {
        Some(v) if v < min => Err(Violation { field, rule: format!("must be at least {min} (got {v})") }),
        _ => Ok(()),
    }
}

/// `maximum`; see [`check_min`].
#[inline]
pub fn check_max<T: Numeric<Bound = B>, B>(field: &'static str, value: &T, max: B) -> Result<(), Violation>
where
    B: PartialOrd + Display,
{
    match value.number() {
        Some(v) if v > max => Err(Violation { field, rule: format!("must be at most {max} (got {v})") }),
        _ => Ok(()),
    }
}

/// The schema keywords of a length constraint: `minItems`/`maxItems` for lists,
/// `minLength`/`maxLength` otherwise (autoref: no second error when the type has no
/// length; the `Validate` impl reports that once).
pub struct LengthProbe<T: ?Sized>(pub PhantomData<T>);
pub trait LengthViaTrait {
    fn keywords(&self) -> (&'static str, &'static str);
}
impl<T: HasLength> LengthViaTrait for &LengthProbe<T> {
    fn keywords(&self) -> (&'static str, &'static str) {
        T::KEYWORDS
    }
}
pub trait LengthViaNothing {
    fn keywords(&self) -> (&'static str, &'static str);
}
impl<T: ?Sized> LengthViaNothing for LengthProbe<T> {
    fn keywords(&self) -> (&'static str, &'static str) {
        ("minLength", "maxLength")
    }
}

// ---- toolbox! and hooks! -------------------------------------------------------

/// Compile-time string equality.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn fnv1a(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u64;
        hash = hash.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    hash
}

/// The first name that repeats an earlier one, as `(earlier, later)` indices, in
/// expected linear time: an open-addressing hash set in `table` (a power of two, more
/// than twice as long as `names`, filled with `usize::MAX`). Runs at compile time for
/// `toolbox!` and `hooks!`.
pub const fn first_duplicate(names: &[&str], table: &mut [usize]) -> Option<(usize, usize)> {
    let mask = table.len() - 1;
    let mut i = 0;
    while i < names.len() {
        let mut slot = (fnv1a(names[i]) as usize) & mask;
        loop {
            let seen = table[slot];
            if seen == usize::MAX {
                table[slot] = i;
                break;
            }
            if str_eq(names[seen], names[i]) {
                return Some((seen, i));
            }
            slot = (slot + 1) & mask;
        }
        i += 1;
    }
    None
}

/// A message built at compile time (a `const` panic takes one `&str`).
pub struct ConstMessage {
    buf: [u8; 512],
    len: usize,
}

impl ConstMessage {
    /// `` `first` and `second` have the same {what} name; give one another name with `#[{attr}(name = "...")]` ``.
    pub const fn duplicate(first: &str, second: &str, what: &str, attr: &str) -> Self {
        ConstMessage { buf: [0; 512], len: 0 }
            .push("`")
            .push(first)
            .push("` and `")
            .push(second)
            .push("` have the same ")
            .push(what)
            .push(" name; give one another name with `#[")
            .push(attr)
            .push("(name = \"...\")]`")
    }

    const fn push(mut self, s: &str) -> Self {
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < bytes.len() && self.len < self.buf.len() {
            self.buf[self.len] = bytes[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// The text (cut at a character boundary if it was too long).
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            let (head, _) = self.buf.split_at(len);
            match core::str::from_utf8(head) {
                Ok(s) => return s,
                Err(_) => len -= 1,
            }
        }
    }
}

/// A `#[tool]`'s entry in a toolbox.
#[inline]
pub fn entry<T: Tool>(tool: T) -> ToolEntry {
    ToolEntry::of(tool)
}

/// The entry of a `#[tool]` function named by its path in `toolbox!`. Its one bound,
/// `T: Listable`, is the one error for a path that is not a tool ([`listed_name`] has
/// the same bound at the same tokens, so rustc shows it once).
#[inline]
pub fn listed_entry<T: Listable>() -> ToolEntry {
    ToolEntry::of(T::HANDLE)
}

/// The name of a `#[tool]` function named by its path in `toolbox!`.
#[inline]
pub const fn listed_name<T: Listable>() -> &'static str {
    <T::Handle as Tool>::NAME
}

/// The handle of a `#[tool]` function, as `toolbox!` names it (by the function's path).
///
/// Implemented by each expansion, never by a blanket impl: for a path that is not a tool,
/// `listed::<T>()` fails once and its type is left unknown, so nothing else in the
/// `toolbox!` expansion reports the same mistake again.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a tool",
    note = "`toolbox!` lists `#[tool]` functions by name (`get_weather`) and `#[tool]` methods of an `Arc` value (`store.read_file`): put `#[tool]` on the function"
)]
pub trait Listable {
    type Handle: Tool;
    const HANDLE: Self::Handle;
}

#[inline]
pub const fn listed<T: Listable>() -> T::Handle {
    T::HANDLE
}

#[inline]
pub const fn tool_name<T: Tool>(_: &T) -> &'static str {
    T::NAME
}

/// What `#[tools]` gives a method of its block that is not marked `#[tool]`, so that
/// listing it in `toolbox!` says so (see [`MethodTool`]).
pub struct UnmarkedMethod;

/// The handle of a `#[tool]` method, as `toolbox!` reaches it (`value.method`).
/// Implemented by each expansion, never by a blanket impl (see [`Listable`]).
#[diagnostic::on_unimplemented(
    message = "this method is not a tool",
    label = "not marked `#[tool]`",
    note = "mark the method `#[tool]` in its `#[tools]` impl block to list it in `toolbox!`"
)]
pub trait MethodTool {
    type Handle: Tool;
    fn handle(self) -> Self::Handle;
}

#[inline]
pub fn method_tool<T: MethodTool>(accessor: T) -> T::Handle {
    accessor.handle()
}

// ---- placeholders: what a tool whose definition has errors expands to -----------

/// The arguments of a tool whose definition did not compile (see the compile errors).
#[derive(serde::Deserialize)]
pub struct NoArgs {}

impl Validate for NoArgs {
    fn validate(&self) -> Result<(), Violation> {
        Ok(())
    }
}

pub fn placeholder_spec() -> &'static ToolSpec {
    static SPEC: LazyLock<ToolSpec> = LazyLock::new(|| {
        ToolSpec::new(
            "placeholder",
            "A tool whose definition has compile errors.",
            serde_json::json!({"type": "object"}),
        )
    });
    &SPEC
}

pub fn placeholder_error() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
}
