//! Each way of returning text and parts, by any path to the type.

use toolkit::parts::{Audio, Part};
use toolkit::prelude::*;

/// An image, by its full path.
#[tool]
fn chart() -> toolkit::parts::Image {
    toolkit::parts::Image::png(vec![0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a])
}

/// Audio, or the reason there is none.
#[tool]
async fn tone(hz: u32) -> Result<Audio, std::io::Error> {
    let _ = hz;
    Ok(Audio::wav(b"RIFF\0\0\0\0WAVEfmt ".to_vec()))
}

/// Parts in a list.
#[tool]
fn parts() -> Vec<Part> {
    Vec::new()
}

/// Text and parts.
#[tool]
fn both() -> Result<toolkit::Output, String> {
    Ok(toolkit::Output::text("two charts").with_part(Image::png(Vec::new())))
}

use toolkit::parts::Image;

fn main() {
    let _ = toolbox![chart, tone, parts, both];
}
