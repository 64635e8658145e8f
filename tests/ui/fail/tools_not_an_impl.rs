use toolkit::prelude::*;

#[tools]
struct Store;

fn main() {}
