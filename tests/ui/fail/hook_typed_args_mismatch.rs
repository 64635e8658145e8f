use toolkit::prelude::*;

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

/// Write a file.
#[tool]
fn write_file(path: String, content: String) -> String {
    format!("{path}: {content}")
}

#[hook(before, tools = [read_file])]
fn normalize(args: &mut WriteFileArgs) {
    args.path = args.path.trim().to_string();
}

fn main() {
    let _ = toolbox![read_file, write_file].with_hooks(hooks![normalize]);
}
