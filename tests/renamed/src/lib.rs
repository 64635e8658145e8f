//! Tools and hooks written against `toolkit` renamed to `tk`.

use tk::{BeforeCall, Decision, Toolbox};

/// Add two integers.
///
/// Use for exact integer arithmetic.
#[tk::tool(crate = tk, read_only)]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// A store of notes.
pub struct Notes;

#[tk::tools]
impl Notes {
    /// Read one note by its title.
    #[tool(crate = tk)]
    pub fn read_note(&self, title: String) -> String {
        format!("the note `{title}`")
    }
}

/// Refuses to add a negative first addend.
#[tk::hook(before, crate = tk, tools = [add])]
pub fn no_negative(args: &mut AddArgs) -> Decision {
    if args.a < 0 { Decision::Block("negative numbers are not allowed".into()) } else { Decision::Continue }
}

/// Counts nothing; shows that a context hook expands too.
#[tk::hook(before, crate = tk)]
pub fn observe(_call: &mut BeforeCall<'_>) {}

/// The toolbox and hooks, built with the renamed crate's macros.
pub fn toolbox() -> Toolbox {
    let notes = std::sync::Arc::new(Notes);
    tk::toolbox![add, notes.read_note].with_hooks(tk::hooks![no_negative, observe])
}
