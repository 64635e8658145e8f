use toolkit::prelude::*;

/// The forecast for a region.
#[tool]
fn forecast(
    #[arg(header = "Latitude")] latitude: f64,
    #[arg(header = "Regions")] regions: Vec<String>,
) -> String {
    format!("{latitude} {regions:?}")
}

fn main() {
    let _ = toolbox![forecast];
}
