//! `#[arg(minimum, maximum, min_length, max_length, pattern)]`: the checks and their
//! schema keywords.

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
