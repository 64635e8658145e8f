//! Outputs: what a tool may return, and how it becomes the model's text (and, for hooks,
//! the arguments' JSON and the typed output).

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it does not implement `serde::Serialize`",
    label = "not serializable",
    note = "derive `serde::Serialize` for it, or return `String` (sent as text), `()`, or `Result<T, E>` where `E: Display`"
)]
pub trait ToolOutput: serde::Serialize {}
impl<T: serde::Serialize + ?Sized> ToolOutput for T {}

/// The one check that a tool's output serializes, spanned at the type to blame: for a
/// list, a map or an `Option` of `T` (whose serializing is `T`'s), the check of `T`
/// itself, so `-> Vec<Item>` reads like `-> Item` and `-> Result<Item, E>` ("`Item`
/// cannot be a tool's output"), not "the trait bound `Item: Serialize` is not satisfied".
/// See [`check_items`].
pub const fn check_output<T: ToolOutput + ?Sized>() {}

/// A standard container that serializes exactly when its items do (what lets
/// `#[tool]` check the items instead of the container; see [`check_output`]).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it is not the standard container its name says",
    label = "not `std`'s",
    note = "return a type that implements `serde::Serialize`"
)]
pub trait SerializesItems {
    type Item: ?Sized;
}

macro_rules! serializes_items {
    ($($t:ty => [$($g:tt)*]),*) => {$(
        impl<$($g)*> SerializesItems for $t {
            type Item = T;
        }
    )*};
}
serializes_items!(
    Vec<T> => [T], std::collections::VecDeque<T> => [T], std::collections::LinkedList<T> => [T],
    std::collections::BinaryHeap<T> => [T], std::collections::BTreeSet<T> => [T],
    std::collections::HashSet<T, S> => [T, S], Option<T> => [T], Box<T> => [T: ?Sized]
);

/// A standard map, which serializes exactly when its keys and values do.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's output: it is not the standard map its name says",
    label = "not `std`'s",
    note = "return a type that implements `serde::Serialize`"
)]
pub trait SerializesEntries {
    type Key;
    type Value;
}
impl<K, V> SerializesEntries for std::collections::BTreeMap<K, V> {
    type Key = K;
    type Value = V;
}
impl<K, V, S> SerializesEntries for std::collections::HashMap<K, V, S> {
    type Key = K;
    type Value = V;
}

/// `C` holds `I`s (see [`check_output`]).
pub const fn check_items<C: SerializesItems<Item = I> + ?Sized, I: ?Sized>() {}

/// `M` maps `K`s to `V`s (see [`check_output`]).
pub const fn check_entries<M: SerializesEntries<Key = K, Value = V>, K, V>() {}

/// A tool's output as JSON, used as `(&&JsonProbe(&value)).output_json()`: the check that
/// the type serializes is [`check_output`], once, at the type; this has a silent fallback
/// so that the same mistake is not reported a second time here.
pub struct JsonProbe<'a, T: ?Sized>(pub &'a T);

pub trait JsonViaSerialize {
    fn output_json(&self) -> Result<Output, ToolError>;
}
impl<T: serde::Serialize + ?Sized> JsonViaSerialize for &JsonProbe<'_, T> {
    #[inline]
    fn output_json(&self) -> Result<Output, ToolError> {
        Output::json(self.0)
    }
}
pub trait JsonViaNothing {
    fn output_json(&self) -> Result<Output, ToolError>;
}
impl<T: ?Sized> JsonViaNothing for JsonProbe<'_, T> {
    fn output_json(&self) -> Result<Output, ToolError> {
        Err(ToolError::new(ErrorKind::Unavailable, "this tool is not available")
            .with_detail("the tool's output type does not implement `Serialize`"))
    }
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
/// `(&&&&ErrorProbe(e)).tool_error()`: a `ToolError` is kept as it is; otherwise the model reads the error's `Display`; when it is
/// a `std::error::Error`, its source chain becomes operator-only detail; an error type
/// that is not even `Display` (already reported once by [`check_error`]) still resolves,
/// so the mistake is not reported a second time.
pub struct ErrorProbe<E>(pub E);

/// A [`ToolError`] the tool built itself is kept as it is: its kind (`unavailable`,
/// `timed_out`, ...) is what retries, breakers and engines decide by.
pub trait ErrorViaToolError {
    fn tool_error(&self) -> ToolError;
}
impl ErrorViaToolError for &&&ErrorProbe<ToolError> {
    fn tool_error(&self) -> ToolError {
        self.0.clone()
    }
}

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

/// The `invoke` of an async tool that does not borrow its context: the function's
/// future, then `finish` (the conversion to the tool's result). One small generic
/// future rather than an `async` block per tool, whose coroutine costs rustc far more
/// to build.
#[inline]
pub fn invoked<F, C>(fut: F, finish: C) -> Invoked<F, C>
where
    F: std::future::Future,
    C: FnOnce(F::Output) -> Result<Output, ToolError>,
{
    Invoked { fut, finish: Some(finish) }
}

pin_project_lite::pin_project! {
    /// See [`invoked`].
    pub struct Invoked<F, C> {
        #[pin]
        fut: F,
        finish: Option<C>,
    }
}

impl<F, C> std::future::Future for Invoked<F, C>
where
    F: std::future::Future,
    C: FnOnce(F::Output) -> Result<Output, ToolError>,
{
    type Output = Result<Output, ToolError>;

    #[inline]
    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Self::Output> {
        let this = self.project();
        let out = std::task::ready!(this.fut.poll(cx));
        std::task::Poll::Ready(match this.finish.take() {
            Some(finish) => finish(out),
            None => Err(polled_again()),
        })
    }
}

#[cold]
fn polled_again() -> ToolError {
    ToolError::new(ErrorKind::Unavailable, "this tool is not available")
        .with_detail("a tool's future was polled after it finished")
}

/// The `invoke` of an async tool whose `#[state]` is missing: the call ends with the
/// error, the function never called.
#[inline]
pub fn refused(error: ToolError) -> std::future::Ready<Result<Output, ToolError>> {
    std::future::ready(Err(error))
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

/// Finds how one argument encodes for `Tool::encode_args`, by autoref specialization,
/// used as `(&&EncodeProbe(&args.field)).encoder()`: parameter types need not be
/// `Serialize`; one that is not fails the encoding (at run time, naming the parameter).
pub struct EncodeProbe<'a, T>(pub &'a T);

/// A value that encodes as JSON: every `Serialize` type, reached through `dyn` so that
/// [`encode_fields`] is compiled once rather than once per tool.
pub trait ToJson {
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error>;
}
impl<T: serde::Serialize + ?Sized> ToJson for T {
    fn to_json(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }
}

pub trait EncodeViaSerialize<'a> {
    fn encoder(&self) -> Option<&'a dyn ToJson>;
}
impl<'a, T: serde::Serialize> EncodeViaSerialize<'a> for &EncodeProbe<'a, T> {
    fn encoder(&self) -> Option<&'a dyn ToJson> {
        Some(self.0)
    }
}
pub trait EncodeViaNothing<'a> {
    fn encoder(&self) -> Option<&'a dyn ToJson>;
}
impl<'a, T> EncodeViaNothing<'a> for EncodeProbe<'a, T> {
    fn encoder(&self) -> Option<&'a dyn ToJson> {
        None
    }
}

/// `Tool::encode_args` for every tool: each argument by its wire name (`true`: an
/// `Option`, left out when `None`), as its probe found it encodable or not.
pub fn encode_fields(
    fields: &[(&'static str, bool, Option<&dyn ToJson>)],
) -> Result<serde_json::Map<String, serde_json::Value>, String> {
    let mut map = serde_json::Map::new();
    for &(wire, optional, value) in fields {
        let Some(value) = value else {
            return Err(format!("parameter `{wire}` has a type that is not `Serialize`"));
        };
        let value = value.to_json().map_err(|e| format!("parameter `{wire}` could not be encoded as JSON: {e}"))?;
        if !(optional && value.is_null()) {
            map.insert(wire.to_owned(), value);
        }
    }
    Ok(map)
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
