use toolkit::prelude::*;

/// Echo a value back.
#[tool]
fn echo<T: serde::de::DeserializeOwned + schemars::JsonSchema + serde::Serialize>(value: T) -> T {
    value
}

fn main() {
    let _ = toolbox![echo];
}
