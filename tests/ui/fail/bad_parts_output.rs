use toolkit::prelude::*;

/// A type named like a part, from another crate: not a part.
#[tool]
fn open(path: String) -> std::fs::File {
    std::fs::File::open(path).unwrap()
}

/// A program reads JSON: an image will not do.
#[tool(programmatic)]
fn chart() -> toolkit::parts::Image {
    toolkit::parts::Image::png(vec![0x89, b'P', b'N', b'G'])
}

fn main() {}
