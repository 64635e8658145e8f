use toolkit::prelude::*;

/// Read a file.
#[tool]
extern "C" fn read_file(code: i32) -> i32 {
    code
}

fn main() {
    let _ = toolbox![read_file];
}
