//! `#[hook]` and `hooks!` add no warnings to a crate with strict lints.
#![deny(warnings, missing_docs, missing_debug_implementations, unreachable_pub, unused_qualifications)]
#![deny(unused_results, unused_lifetimes, single_use_lifetimes, elided_lifetimes_in_paths, trivial_casts)]
#![deny(unnameable_types, unit_bindings, let_underscore_drop, unsafe_code)]

use toolkit::prelude::*;

/// Read a file.
#[tool]
pub fn read_file(path: String) -> String {
    path
}

/// A public typed hook.
#[hook(before, tools = [read_file], priority = 1)]
pub fn normalize(args: &mut ReadFileArgs) {
    args.path = args.path.trim().to_string();
}

/// A private async hook.
#[hook(after, on_failure = block, timeout = "1s")]
async fn mark(out: &mut AfterCall<'_>) -> Result<(), std::io::Error> {
    out.text_mut().push('.');
    Ok(())
}

/// Hooks in a module.
pub mod policy {
    use toolkit::prelude::*;

    /// A public error hook.
    #[hook(error)]
    pub fn friendly(err: &ErrorCall<'_>) -> Recovery {
        Recovery::Message(format!("sorry: {}", err.error().message))
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let tools = toolbox![read_file].with_hooks(hooks![normalize, mark, policy::friendly]);
    assert_eq!(tools.call(ToolCall::new("1", "read_file", r#"{"path": " a "}"#)).await.content, "a.");
    assert_eq!(tools.call(ToolCall::new("2", "nope", "{}")).await.content, "sorry: unknown tool `nope`; available tools: `read_file`");
}
