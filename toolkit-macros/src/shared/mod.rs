//! What the macros share, so that no macro's module imports another's: the function an
//! attribute is on ([`item`]), names ([`names`]), attribute options ([`options`]),
//! durations ([`duration`]) and small pieces of syntax ([`syntax`]). A leaf: it uses
//! nothing of `tool`, `hook` or the function-like macros.

pub mod duration;
pub mod item;
pub mod names;
pub mod options;
pub mod syntax;

pub use duration::{TIMEOUT_UNITS, parse_timeout};
pub use item::{RawFn, first_tokens, parse_fn};
pub use names::{NameProblem, check_name, checked_name};
pub use options::{RawExpr, explain};
pub use syntax::{cfgs, last_segment, located_at, type_args, unraw};
