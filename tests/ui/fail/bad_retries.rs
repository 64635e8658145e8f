use toolkit::prelude::*;

/// Send an email.
#[tool(retries = 3)]
fn send_email(to: String) -> String {
    to
}

/// Delete a file.
#[tool(idempotent, destructive, retries = 2)]
fn delete_file(path: String) -> String {
    path
}

/// Read a file.
#[tool(read_only, retries = 0)]
fn read_file(path: String) -> String {
    path
}

/// Fetch a page.
#[tool(read_only, retries = 50)]
fn fetch(url: String) -> String {
    url
}

/// Look up a word.
#[tool(read_only, backoff = "200ms")]
fn define(word: String) -> String {
    word
}

/// Look up a city.
#[tool(read_only, retries = 2, backoff = "soon")]
fn geocode(city: String) -> String {
    city
}

fn main() {
    let _ = toolbox![send_email, delete_file, read_file, fetch, define, geocode];
}
