//! `#[hook]` and `hooks!`: what a hook may return, and the checks of typed hooks.

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

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
impl<E: Display + 'static> BeforeReturn for Result<(), E> {}
impl<E: Display + 'static> BeforeReturn for Result<Decision, E> {}

#[diagnostic::on_unimplemented(
    message = "an after hook cannot return `{Self}`",
    label = "not an after hook's return type",
    note = "an after hook returns `()` or `Result<(), E>` where `E: Display` (an `Err` makes the hook fail); it changes what the model sees with `out.set_text(..)`"
)]
pub trait AfterReturn: IntoHookResult<()> {}
impl AfterReturn for () {}
impl<E: Display + 'static> AfterReturn for Result<(), E> {}

#[diagnostic::on_unimplemented(
    message = "an error hook cannot return `{Self}`",
    label = "not an error hook's return type",
    note = "an error hook returns `()` (pass the failure on), `Recovery` (`Message(text)`, `Retry`, `Propagate`), `Result<(), E>` or `Result<Recovery, E>` where `E: Display` (an `Err` makes the hook fail)"
)]
pub trait ErrorReturn: IntoHookResult<Recovery> {}
impl ErrorReturn for () {}
impl ErrorReturn for Recovery {}
impl<E: Display + 'static> ErrorReturn for Result<(), E> {}
impl<E: Display + 'static> ErrorReturn for Result<Recovery, E> {}

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
/// path); a `#[tool]` function's names [`IsATool`]. Implemented by each expansion, never
/// by a blanket impl (see [`Listable`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a hook",
    label = "not a hook",
    note = "`hooks!` lists `#[hook]` functions by path (`sandbox`, `policy::audit`): put `#[hook(before)]`, `#[hook(after)]` or `#[hook(error)]` on the function"
)]
pub trait Hookable {
    type Handle;
}

/// A `#[hook]` function's name and its [`Hook`].
pub trait HookDef {
    const NAME: &'static str;
    fn hook() -> Hook;
}

/// What a `#[tool]` function is to `hooks!`: not a hook (see [`HookedHook`]).
pub struct IsATool;

/// A hook handle listed as `T` in `hooks!`: every [`HookDef`]; not [`IsATool`], which is
/// what a tool listed there gives, with this message.
#[diagnostic::on_unimplemented(
    message = "`{T}` is a tool: put it in `toolbox![...]`",
    label = "a tool, not a hook",
    note = "`hooks!` lists hooks (`#[hook]` functions); tools go in `toolbox![...]`"
)]
pub trait HookedHook<T>: HookDef {}
impl<H: HookDef, T> HookedHook<T> for H {}

/// One entry of a `hooks!`: the hook's name (for the compile-time check of repeats) and
/// its [`Hook`], from one call of [`hooked`] (so a path that is not a hook is reported
/// once; see [`listed`]).
#[derive(Clone, Copy)]
pub struct Hooked {
    pub name: &'static str,
    pub hook: fn() -> Hook,
}

/// A `#[hook]` function named by its path in `hooks!`, as a [`Hooked`], called as
/// `hooked::<path, _>()` (the handle inferred, as in [`listed`]).
#[inline]
pub const fn hooked<T: Hookable<Handle = H>, H: HookedHook<T>>() -> Hooked {
    Hooked { name: H::NAME, hook: H::hook }
}
