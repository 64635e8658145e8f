//! Publishes the example tools' documentation from the specs the dispatcher uses:
//! `TOOLS.md` (one section per tool: description, parameter table, output type,
//! effects, example call) and `tools.<target>.json` for every provider format.
//!
//! ```text
//! cargo run --example docs -- docs/tools
//! ```
//!
//! It also checks every target: what a provider cannot take is printed (and the exit
//! status is 1), so a CI step running this catches a 400 before any provider does.

#[path = "support/files.rs"]
mod files;
#[path = "support/weather.rs"]
mod weather;

use std::process::ExitCode;

use toolkit::Target;
use toolkit::prelude::*;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1) else {
        eprintln!("usage: docs OUTPUT_DIR");
        return ExitCode::from(2);
    };
    let tools = toolbox![files::read_file, files::list_files, files::current_time, weather::get_weather];
    let written = match tools.write_docs(&dir, "Example tools") {
        Ok(written) => written,
        Err(error) => {
            eprintln!("error: cannot write to {}: {error}", dir.to_string_lossy());
            return ExitCode::FAILURE;
        }
    };
    for path in &written {
        println!("wrote {}", path.display());
    }
    let mut clean = true;
    for target in Target::ALL {
        if let Err(problems) = tools.validate(target) {
            clean = false;
            for problem in problems {
                println!("{target}: {problem}");
            }
        }
    }
    if clean {
        println!("every target accepts all {} tools", tools.len());
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
