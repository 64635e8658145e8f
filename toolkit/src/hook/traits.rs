//! The hook traits, one per event, and their implementations for closures.

use super::context::{AfterCall, BeforeCall, ErrorCall};
use super::decision::{Decision, HookStep, IntoHookResult, Recovery};

/// Code that runs before a tool. `#[hook(before)]` implements it; so do
/// [`Hook::before`](crate::hook::Hook::before)'s closures.
pub trait BeforeHook: Send + Sync + 'static {
    /// Inspects (and may rewrite) the call; decides whether it goes on.
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision>;

    /// `true` if [`before`](BeforeHook::before) always returns [`HookStep::Ready`]: a call
    /// of a sync tool whose hooks are all sync then runs with no future at all. A hook
    /// that says so and returns `Pending` anyway has failed. Default `false`.
    fn is_sync(&self) -> bool {
        false
    }
}

/// Code that runs on every output. `#[hook(after)]` implements it.
pub trait AfterHook: Send + Sync + 'static {
    /// Inspects (and may rewrite) the model-visible text.
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()>;

    /// As [`BeforeHook::is_sync`].
    fn is_sync(&self) -> bool {
        false
    }
}

/// Code that runs on every failure. `#[hook(error)]` implements it.
pub trait ErrorHook: Send + Sync + 'static {
    /// Decides what the model is told, or asks for a retry.
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery>;

    /// As [`BeforeHook::is_sync`].
    fn is_sync(&self) -> bool {
        false
    }
}

pub(super) struct FnBefore<F>(pub(super) F);
impl<F, R> BeforeHook for FnBefore<F>
where
    F: Fn(&mut BeforeCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<Decision>,
{
    fn before<'a>(&'a self, call: &'a mut BeforeCall<'_>) -> HookStep<'a, Decision> {
        HookStep::ready((self.0)(call))
    }
    fn is_sync(&self) -> bool {
        true
    }
}

pub(super) struct FnAfter<F>(pub(super) F);
impl<F, R> AfterHook for FnAfter<F>
where
    F: Fn(&mut AfterCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<()>,
{
    fn after<'a>(&'a self, out: &'a mut AfterCall<'_>) -> HookStep<'a, ()> {
        HookStep::ready((self.0)(out))
    }
    fn is_sync(&self) -> bool {
        true
    }
}

pub(super) struct FnError<F>(pub(super) F);
impl<F, R> ErrorHook for FnError<F>
where
    F: Fn(&mut ErrorCall<'_>) -> R + Send + Sync + 'static,
    R: IntoHookResult<Recovery>,
{
    fn error<'a>(&'a self, err: &'a mut ErrorCall<'_>) -> HookStep<'a, Recovery> {
        HookStep::ready((self.0)(err))
    }
    fn is_sync(&self) -> bool {
        true
    }
}
