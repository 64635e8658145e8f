//! `#[arg(minimum, maximum, one_of, min_length, max_length, pattern, items_one_of)]`: the
//! checks and their schema keywords (`format` is in `formats.rs`).

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

#[diagnostic::on_unimplemented(
    message = "`minimum`, `maximum` and `one_of` apply to numbers, not to `{Self}`",
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
    message = "`pattern` and `format` apply to strings, not to `{Self}`",
    label = "not a string",
    note = "`pattern` is a regular expression the string must match; `format` names what the string holds (`date-time`, `email`, ...)"
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

/// `character` or `characters`, `item` or `items`, for `n` of them.
fn unit<T: HasLength>(n: usize) -> &'static str {
    if n == 1 { T::UNIT.trim_end_matches('s') } else { T::UNIT }
}

pub fn check_min_length<T: HasLength>(field: &'static str, value: &T, min: usize) -> Result<(), Violation> {
    match value.length() {
        Some(n) if n < min => {
            Err(Violation { field, rule: format!("must have at least {min} {} (got {n})", unit::<T>(min)) })
        }
        _ => Ok(()),
    }
}

pub fn check_max_length<T: HasLength>(field: &'static str, value: &T, max: usize) -> Result<(), Violation> {
    match value.length() {
        Some(n) if n > max => {
            Err(Violation { field, rule: format!("must have at most {max} {} (got {n})", unit::<T>(max)) })
        }
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

/// `one_of`: the number is one of `allowed`; see [`check_min`].
#[inline]
pub fn check_one_of<T: Numeric<Bound = B>, B>(field: &'static str, value: &T, allowed: &[B]) -> Result<(), Violation>
where
    B: PartialEq + Display,
{
    match value.number() {
        Some(v) if !allowed.contains(&v) => {
            let listed: Vec<String> = allowed.iter().map(ToString::to_string).collect();
            Err(Violation { field, rule: format!("must be one of {} (got {v})", listed.join(", ")) })
        }
        _ => Ok(()),
    }
}

/// A list whose items `items_one_of` checks.
#[diagnostic::on_unimplemented(
    message = "`items_one_of` applies to lists, not to `{Self}`",
    label = "not a list",
    note = "`items_one_of` lists the values each item of a `Vec`, an array or a set may take; for a number, use `one_of`"
)]
pub trait Items {
    type Item;
    /// Whether the items keep the order they were sent in (a set's do not, so a message
    /// names no index).
    const ORDERED: bool;
    fn items(&self) -> impl Iterator<Item = &Self::Item>;
}

macro_rules! items {
    ($ordered:literal, $($t:ty => [$($g:tt)*]),*) => {$(
        impl<$($g)*> Items for $t {
            type Item = T;
            const ORDERED: bool = $ordered;
            #[inline]
            fn items(&self) -> impl Iterator<Item = &T> {
                self.iter()
            }
        }
    )*};
}
items!(true, Vec<T> => [T], std::collections::VecDeque<T> => [T], Box<[T]> => [T], [T; N] => [T, const N: usize]);
items!(false, std::collections::BTreeSet<T> => [T], std::collections::HashSet<T, S> => [T, S]);

impl<L: Items> Items for Option<L> {
    type Item = L::Item;
    const ORDERED: bool = L::ORDERED;
    #[inline]
    fn items(&self) -> impl Iterator<Item = &L::Item> {
        self.iter().flat_map(Items::items)
    }
}

/// An item `items_one_of` can compare with its listed values: a string or a number.
#[diagnostic::on_unimplemented(
    message = "`items_one_of` applies to lists of strings or numbers, not of `{Self}`",
    label = "items are not strings or numbers",
    note = "the values of an enum are already listed in its schema: derive `JsonSchema` and `Deserialize` on it and take a list of it"
)]
pub trait Choice {
    /// The type of a listed value (`&'static str` for a string).
    type Allowed;
    fn is(&self, allowed: &Self::Allowed) -> bool;
    /// A listed value as the model reads it (a string in JSON quotes).
    fn show(allowed: &Self::Allowed) -> String;
    /// The item, likewise.
    fn shown(&self) -> String;
}

impl Choice for String {
    type Allowed = &'static str;
    #[inline]
    fn is(&self, allowed: &&'static str) -> bool {
        self == allowed
    }
    fn show(allowed: &&'static str) -> String {
        serde_json::Value::from(*allowed).to_string()
    }
    fn shown(&self) -> String {
        serde_json::Value::from(self.as_str()).to_string()
    }
}

macro_rules! choice {
    ($($t:ty),*) => {$(
        impl Choice for $t {
            type Allowed = $t;
            #[inline]
            fn is(&self, allowed: &$t) -> bool {
                self == allowed
            }
            fn show(allowed: &$t) -> String {
                allowed.to_string()
            }
            fn shown(&self) -> String {
                self.to_string()
            }
        }
    )*};
}
choice!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64);

/// `items_one_of`: every item of the list is one of `allowed`. The first that is not is
/// named by its place (`tags[2]`), with the values allowed. The item type is inferred
/// through `Items<Item = I>` (not the projection), so a parameter that is not a list is
/// reported once.
pub fn check_items_one_of<L, I, B>(field: &'static str, value: &L, allowed: &[B]) -> Result<(), Violation>
where
    L: Items<Item = I>,
    I: Choice<Allowed = B>,
{
    match value.items().enumerate().find(|(_, item)| !allowed.iter().any(|a| item.is(a))) {
        Some((i, item)) => {
            let listed: Vec<String> = allowed.iter().map(I::show).collect();
            let at = if L::ORDERED { format!(" at `{field}[{i}]`") } else { String::new() };
            let rule = format!("must hold only {} (got {}{at})", listed.join(", "), item.shown());
            Err(Violation { field, rule })
        }
        None => Ok(()),
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
