use toolkit::prelude::*;

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

#[hook(after, tools = [read_file])]
fn audit(out: &mut AfterCall<'_>, raw: Option<&String>) {
    let _ = (out, raw);
}

fn main() {
    let _ = toolbox![read_file].with_hooks(hooks![audit]);
}
