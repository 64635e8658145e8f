//! The user's own names must not break a `#[hook]` or `hooks!` expansion; hooks listed
//! by path, `crate = path`, `#[cfg]` and doc comments on the function, and the prelude's
//! `hook` (a macro) beside the `toolkit::hook` module.
#![allow(dead_code)]

use ::toolkit::prelude::*;

mod policy {
    use ::toolkit::prelude::{AfterCall, BeforeCall, ErrorCall, hook};

    // Shadows of names the expansion could have used unqualified.
    #[derive(Debug)]
    pub struct Denied;
    impl std::fmt::Display for Denied {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("denied")
        }
    }
    type Result<T> = std::result::Result<T, Denied>;
    struct Box;
    struct Option;
    struct Some;
    struct None;
    struct Ok;
    struct Err;
    struct Hook;
    struct Hooks;
    struct Decision;
    struct Recovery;
    struct HookStep;
    struct Duration;
    struct From;
    trait Send {}
    trait Future {}
    mod toolkit {}
    mod core {}
    fn pending() {}
    fn before_result() {}

    /// Blocks the system directory.
    ///
    /// A doc comment on a hook stays on the function.
    #[hook(before, priority = 5)]
    pub fn sandbox(call: &mut BeforeCall<'_>) -> Result<()> {
        match call.arguments().get("path").and_then(|p| p.as_str()) {
            ::std::option::Option::Some(p) if p.starts_with("/etc") => Result::Err(Denied),
            _ => Result::Ok(()),
        }
    }

    /// Marks the output.
    #[hook(after, timeout = "1s")]
    pub async fn mark(out: &mut AfterCall<'_>) {
        out.text_mut().push_str(" [checked]");
    }

    /// Only in builds that never happen.
    #[cfg(any())]
    #[hook(error)]
    pub fn never(err: &ErrorCall<'_>) {}

    /// Always compiled.
    #[hook(error)]
    #[cfg(all())]
    pub fn always(err: &ErrorCall<'_>) {
        let _ = err;
    }
}

mod renamed {
    use ::toolkit as tk;

    /// Through another path to the runtime.
    #[tk::hook(after, crate = tk, name = "renamed")]
    pub fn audit(out: &mut tk::AfterCall<'_>) {
        let _ = out;
    }
}

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    format!("contents of {path}")
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let hooks = hooks![policy::sandbox, policy::mark, policy::always, renamed::audit];
    assert_eq!(hooks.names(), ["sandbox", "mark", "always", "renamed"]);
    assert_eq!(policy::sandbox::NAME, "sandbox");
    assert_eq!(policy::sandbox::hook().get_priority(), 5);
    let _: toolkit::hook::Hook = policy::mark {}.into();
    let tools = toolbox![read_file].with_hooks(hooks);
    let r = tools.call(ToolCall::new("1", "read_file", r#"{"path": "/etc/passwd"}"#)).await;
    assert_eq!(r.content, "blocked: policy check `sandbox` failed");
    let r = tools.call(ToolCall::new("2", "read_file", r#"{"path": "notes.txt"}"#)).await;
    assert_eq!(r.content, "contents of notes.txt [checked]");
    let empty = hooks![];
    assert!(empty.is_empty());
}
