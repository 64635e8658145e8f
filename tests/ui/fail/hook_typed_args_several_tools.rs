use toolkit::prelude::*;

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

/// Delete a file.
#[tool]
fn delete_file(path: String) -> String {
    path
}

#[hook(before, tools = [read_file, delete_file])]
fn normalize(args: &mut ReadFileArgs) {
    args.path = args.path.trim().to_string();
}

fn main() {
    let _ = toolbox![read_file, delete_file].with_hooks(hooks![normalize]);
}
