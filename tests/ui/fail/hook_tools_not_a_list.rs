use toolkit::prelude::*;

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

#[hook(before, tools = read_file)]
fn sandbox(call: &mut BeforeCall<'_>) {
    let _ = call;
}

fn main() {
    let _ = toolbox![read_file].with_hooks(hooks![sandbox]);
}
