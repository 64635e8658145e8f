use toolkit::prelude::*;

/// The forecast for a region.
#[tool]
fn forecast(
    #[arg(header = "")] region: String,
    #[arg(header = "Day Count")] days: u8,
    #[arg(header = "Zone")] zone: String,
    #[arg(header = "zone")] area: String,
) -> String {
    format!("{region} {days} {zone} {area}")
}

fn main() {
    let _ = toolbox![forecast];
}
