//! `toolbox!` and `hooks!`: the entries, and the compile-time check of their names.

#![allow(missing_docs)]

#[allow(unused_imports)]
use super::*;

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

/// One free entry of a `toolbox!`: the tool's name (for the compile-time check of
/// repeats) and how to make its entry. Both come from one call of [`listed`], so a path
/// that is not a tool is reported once.
#[derive(Clone, Copy)]
pub struct Listed {
    pub name: &'static str,
    pub entry: fn() -> ToolEntry,
}

/// A `#[tool]` function named by its path in `toolbox!`, as a [`Listed`], called as
/// `listed::<path, _>()`. Its bounds are the errors for a path that is not a tool:
/// `T: Listable` ("`Calculator` is not a tool"), and for a hook, whose handle is
/// [`IsAHook`], `ListedTool` ("`trim` is a hook: put it in `hooks![...]`"). The handle
/// type is inferred through `Listable<Handle = H>` rather than the projection
/// `T::Handle`, which would fail a second time (at the whole `toolbox!`) when `T` is not
/// `Listable`.
#[inline]
pub const fn listed<T: Listable<Handle = H>, H: ListedTool<T>>() -> Listed {
    Listed { name: H::NAME, entry: listed_entry::<T, H> }
}

fn listed_entry<T: Listable<Handle = H>, H: ListedTool<T>>() -> ToolEntry {
    ToolEntry::of(T::HANDLE)
}

/// The handle of a `#[tool]` function, as `toolbox!` names it (by the function's path);
/// a `#[hook]` function's names [`IsAHook`].
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
    type Handle;
    const HANDLE: Self::Handle;
}

/// What a `#[hook]` function is to `toolbox!`: not a tool (see [`ListedTool`]).
pub struct IsAHook;

/// A tool handle listed as `T` in `toolbox!`: every [`Tool`]; not [`IsAHook`], which is
/// what a hook listed there gives, with this message.
#[diagnostic::on_unimplemented(
    message = "`{T}` is a hook: put it in `hooks![...]`",
    label = "a hook, not a tool",
    note = "`toolbox!` lists tools; hooks go in `hooks![...]`, or on the toolbox with `.with_hook({T}::hook())`"
)]
pub trait ListedTool<T>: Tool {}
impl<H: Tool, T> ListedTool<T> for H {}

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

/// The value a method tool is listed on (`value.method`): it must be an `Arc`, which each
/// tool keeps a clone of. Anything else is reported at the value, with the fix.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an `Arc`: a method tool keeps a shared handle to the value it is called on",
    label = "wrap this value in `Arc`",
    note = "write `let value = std::sync::Arc::new(value);` and list `value.method` in `toolbox!`"
)]
pub trait SharedValue {
    type Target: ?Sized;
    fn share(&self) -> std::sync::Arc<Self::Target>;
}

impl<T: ?Sized> SharedValue for std::sync::Arc<T> {
    type Target = T;
    #[inline]
    fn share(&self) -> std::sync::Arc<T> {
        std::sync::Arc::clone(self)
    }
}

/// The value's `Arc`, with its target inferred through `SharedValue<Target = T>` rather
/// than the projection `S::Target`, which fails a second time (at the whole `toolbox!`)
/// when `S` is not an `Arc`.
#[inline]
pub fn shared<S: SharedValue<Target = T> + ?Sized, T: ?Sized>(value: &S) -> std::sync::Arc<T> {
    value.share()
}
