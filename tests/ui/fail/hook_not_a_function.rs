use toolkit::prelude::*;

#[hook(before)]
struct Sandbox;

fn main() {
    let _ = Sandbox;
}
