use toolkit::prelude::*;

/// Read a file.
#[tool]
async fn read_file(#[context(id)] cx: &CallContext<'_>, path: String) -> String {
    let _ = cx;
    path
}

fn main() {
    let _ = toolbox![read_file];
}
