use toolkit::prelude::*;

struct Config;

/// Read a file.
#[tool]
async fn read_file(#[state] #[arg(rename = "config")] config: &Config, path: String) -> String {
    let _ = config;
    path
}

fn main() {
    let _ = toolbox![read_file];
}
