//! Parameters: what a parameter type must be, defaults, and injected state and context.

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

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
    message = "`{Self}` cannot travel in an MCP header: `#[arg(header)]` takes a string, an integer or a boolean",
    label = "not a string, an integer or a boolean",
    note = "MCP sends a header parameter as `Mcp-Param-*: value` and checks it against the argument; a number with a fraction, a list or an object has no single header form: remove `header`, or take one of `String`, `bool`, `i8`..`i64`, `u8`..`u64` (or an `Option` of one)"
)]
pub trait HeaderParam {}
impl HeaderParam for String {}
impl HeaderParam for bool {}
impl<T: HeaderParam> HeaderParam for Option<T> {}
macro_rules! header_integers {
    ($($t:ty),*) => { $(impl HeaderParam for $t {})* };
}
header_integers!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// Checks, where `#[arg(header)]` is written, that the parameter's type has a header form.
#[inline]
pub fn header_param<T: HeaderParam>() {}

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

/// A string literal given as a parameter's default (`#[arg(default = "celsius")]`),
/// turned into the parameter's type by autoref specialization, used as
/// `(&&&StrDefault::<T>::new(text, param)).value()`: with `T: From<&str>` (`String`,
/// `PathBuf`, `Arc<str>`, ...), else, for any `T: Deserialize`, read as the JSON string
/// the model would send (a unit variant of an enum, by its serialized name; no
/// allocation for one). A string that is not a value of `T` panics when the spec is
/// first built (which reads the default to publish it), naming the parameter and the fix.
pub struct StrDefault<T> {
    text: &'static str,
    param: &'static str,
    of: PhantomData<fn() -> T>,
}

impl<T> StrDefault<T> {
    #[inline]
    pub fn new(text: &'static str, param: &'static str) -> Self {
        StrDefault { text, param, of: PhantomData }
    }
}

pub trait StrDefaultViaFrom {
    type Value;
    fn value(&self) -> Self::Value;
}
impl<T: From<&'static str>> StrDefaultViaFrom for &&StrDefault<T> {
    type Value = T;
    #[inline]
    fn value(&self) -> T {
        T::from(self.text)
    }
}

pub trait StrDefaultViaDeserialize {
    type Value;
    fn value(&self) -> Self::Value;
}
impl<T: serde::de::DeserializeOwned> StrDefaultViaDeserialize for &StrDefault<T> {
    type Value = T;
    fn value(&self) -> T {
        let text = serde::de::value::BorrowedStrDeserializer::<serde::de::value::Error>::new(self.text);
        match T::deserialize(text) {
            Ok(value) => value,
            Err(e) => not_a_value::<T>(self.text, self.param, &e),
        }
    }
}

#[cold]
#[inline(never)]
fn not_a_value<T>(text: &str, param: &str, e: &serde::de::value::Error) -> ! {
    let ty = std::any::type_name::<T>();
    let short = ty.rsplit("::").next().unwrap_or(ty);
    panic!(
        "`#[arg(default = {text:?})]` on parameter `{param}`: {text:?} is not a value of `{ty}` ({e}); write the value as the model would send it, or the Rust value (`default = {short}::...`)"
    )
}

/// Only for a type that is not `Deserialize`, which is already an error at the
/// parameter's type: this keeps it the only one.
pub trait StrDefaultViaNothing {
    type Value;
    fn value(&self) -> Self::Value;
}
impl<T> StrDefaultViaNothing for StrDefault<T> {
    type Value = T;
    fn value(&self) -> T {
        panic!("`{}` has no value for the default {:?}", self.param, self.text)
    }
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

/// A key of a tool's arguments in the `Deserialize` impl `#[tool]` generates: its place
/// among `fields` (found by `find`, the tool's own `match`, where the key lies: nothing
/// is copied), or serde's `unknown field` error. One type for every tool, so serde's key
/// handling is compiled once per deserializer, not once per tool.
#[derive(Clone, Copy)]
pub struct FieldSeed {
    pub fields: &'static [&'static str],
    pub find: fn(&str) -> Option<usize>,
}

impl<'de> serde::de::DeserializeSeed<'de> for FieldSeed {
    type Value = usize;

    #[inline]
    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl<'de> serde::de::Visitor<'de> for FieldSeed {
    type Value = usize;

    fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("a field name")
    }

    #[inline]
    fn visit_str<E: serde::de::Error>(self, key: &str) -> Result<usize, E> {
        match (self.find)(key) {
            Some(i) => Ok(i),
            None => Err(E::unknown_field(key, self.fields)),
        }
    }
}
