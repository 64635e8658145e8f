use toolkit::prelude::*;

/// Read a file.
#[tool]
fn read_file(path: String) -> String {
    path
}

#[hook(before)]
fn normalize(args: &mut ReadFileArgs) {
    args.path = args.path.trim().to_string();
}

fn main() {
    let _ = toolbox![read_file].with_hooks(hooks![normalize]);
}
