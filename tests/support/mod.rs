//! What the integration tests share: the example binaries, scratch directories, and for
//! the MCP tests a Python with the official `mcp` client. `mod support;` in a test file.

#![allow(dead_code)] // each test file uses its own part

pub mod media;
pub mod provider;
pub mod vectors;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

/// The repository root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `cargo test` builds the examples next to the test binaries (`target/<profile>/examples`).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>");
    let path = profile_dir.join("examples").join(name);
    assert!(path.exists(), "{} was not built; run the tests with `cargo test`", path.display());
    path
}

/// A fresh directory for one test.
pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// The pinned version of the Python `mcp` package (`tests/mcp/requirements.txt`).
fn requirements() -> PathBuf {
    root().join("tests/mcp/requirements.txt")
}

/// A Python interpreter with the pinned `mcp` package: `$TOOLKIT_MCP_PYTHON` if set,
/// else the virtual environment `target/mcp-venv` (which `.ci/run` creates), created
/// here when it is missing (the first test says so, once, on stderr).
///
/// `None` when Python or the package registry is unavailable: the tests that need it
/// skip with a message saying why. With `TOOLKIT_REQUIRE_PYTHON=1` (set by `.ci/run`)
/// they fail instead.
pub fn python() -> Option<&'static Path> {
    static PYTHON: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let found = PYTHON.get_or_init(|| {
        if let Some(python) = std::env::var_os("TOOLKIT_MCP_PYTHON") {
            return Ok(PathBuf::from(python));
        }
        let venv = root().join("target/mcp-venv");
        let python = venv.join("bin/python");
        if has_pinned_mcp(&python) {
            return Ok(python);
        }
        // Test binaries may run at once: one creates the environment, the others wait.
        std::fs::create_dir_all(root().join("target")).map_err(|e| e.to_string())?;
        let lock = std::fs::File::create(root().join("target/mcp-venv.lock")).map_err(|e| e.to_string())?;
        lock.lock().map_err(|e| e.to_string())?;
        if !has_pinned_mcp(&python) {
            say(&format!("installing the Python `mcp` client into {} (once)", venv.display()));
            let made = Command::new("python3").arg("-m").arg("venv").arg(&venv).status();
            if !made.is_ok_and(|s| s.success()) {
                return Err(format!(
                    "`python3 -m venv {}` failed: these tests need Python 3.10+ with venv",
                    venv.display()
                ));
            }
            let pip = Command::new(&python)
                .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
                .arg(requirements())
                .status();
            if !pip.is_ok_and(|s| s.success()) {
                return Err(format!(
                    "installing the Python `mcp` client into {} failed (is the package registry reachable?)",
                    venv.display()
                ));
            }
        }
        Ok(python)
    });
    match found {
        Ok(python) => Some(python.as_path()),
        Err(why) if std::env::var_os("TOOLKIT_REQUIRE_PYTHON").is_some() => panic!("{why}"),
        Err(why) => {
            say(&format!("skipped: {why}"));
            None
        }
    }
}

/// A line on the test's stderr that output capture does not hide.
fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn has_pinned_mcp(python: &Path) -> bool {
    let pinned = std::fs::read_to_string(requirements()).expect("tests/mcp/requirements.txt");
    let version = pinned.trim().trim_start_matches("mcp==").to_string();
    Command::new(python)
        .args(["-c", &format!("import importlib.metadata as m, sys; sys.exit(m.version('mcp') != '{version}')")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `tests/mcp/client.py` (the official Python client) and returns its report;
/// `None` when Python is unavailable (see [`python`]).
pub fn python_client(mode: &str, calls: &Value, target: &[String]) -> Option<Value> {
    python_client_with(mode, calls, &[], target)
}

/// [`python_client`] with more options of `client.py` (`--answer approve`, say).
pub fn python_client_with(mode: &str, calls: &Value, options: &[&str], target: &[String]) -> Option<Value> {
    let out = Command::new(python()?)
        .arg(root().join("tests/mcp/client.py"))
        .args(["--mode", mode, "--calls", &calls.to_string()])
        .args(options)
        .args(target)
        .output()
        .expect("python runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the Python client failed ({mode}):\n{stderr}");
    Some(serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("report is not JSON ({e}):\n{stderr}")))
}

/// The arguments that make the Python client start the example server over stdio.
pub fn stdio_target(data: &Path, audit: &Path) -> Vec<String> {
    let server = example("mcp_server");
    ["--stdio", &server.to_string_lossy(), "--data", &data.to_string_lossy(), "--audit", &audit.to_string_lossy()]
        .map(String::from)
        .to_vec()
}

/// The example server on streamable HTTP, on a free loopback port; killed on drop.
pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`
    pub url: String,
}

impl HttpServer {
    pub fn start(data: &Path, audit: &Path) -> HttpServer {
        let mut child = Command::new(example("mcp_server"))
            .args(["--http", "127.0.0.1:0", "--data"])
            .arg(data)
            .arg("--audit")
            .arg(audit)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mcp_server starts");
        let stderr = child.stderr.take().expect("stderr");
        let mut lines = BufReader::new(stderr).lines();
        let mut seen = String::new();
        let url = loop {
            match lines.next() {
                Some(Ok(line)) => {
                    if let Some(url) = line.strip_prefix("listening on ") {
                        break url.trim().to_string();
                    }
                    seen.push_str(&line);
                    seen.push('\n');
                }
                _ => panic!("mcp_server exited before listening:\n{seen}"),
            }
        };
        // Keep draining stderr so the server never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        HttpServer { child, url }
    }

    /// Stops the server the way Ctrl-C does and waits for it to exit.
    pub fn stop(mut self) -> std::process::ExitStatus {
        let _ = Command::new("kill").args(["-INT", &self.child.id().to_string()]).status();
        self.child.wait().expect("wait for mcp_server")
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The lines of a JSON Lines audit log.
pub fn audit_lines(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().map(|l| serde_json::from_str(l).expect("audit line is JSON")).collect()
}

/// The `mcp_server` example on stdio (data under `data`, audit log at `audit`), already
/// past the `initialize` handshake: the process and the client's ends of its pipes.
pub fn stdio_server(
    data: &Path,
    audit: &Path,
) -> (std::process::Child, std::process::ChildStdin, std::io::BufReader<std::process::ChildStdout>) {
    use std::io::{BufRead, Write};
    let mut server = Command::new(example("mcp_server"))
        .arg("--data")
        .arg(data)
        .arg("--audit")
        .arg(audit)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcp_server starts");
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(server.stdout.take().expect("stdout"));
    let initialize = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;
    writeln!(stdin, "{initialize}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}").expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("read");
    assert!(line.contains("\"protocolVersion\""), "{line}");
    (server, stdin, stdout)
}

/// One stateless (2026-07-28) JSON-RPC request `id` by hand over HTTP: `method` with
/// `params` (their `_meta` gets the revision and `capabilities`), the headers the revision
/// asks for (`Mcp-Name` from `params.name` or `params.taskId`) and `extra` ones; the status
/// and the response, read from a JSON body or the server-sent event carrying it.
pub async fn modern_request(
    url: &str,
    id: u64,
    method: &str,
    params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> (u16, Value) {
    let (status, text) = modern_request_text(url, id, method, params, capabilities, extra).await;
    let json = text.lines().find_map(|l| l.strip_prefix("data:")).unwrap_or(&text).trim();
    (status, serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {text}")))
}

/// [`modern_request`], the body as it came (for answers that are not JSON-RPC).
pub async fn modern_request_text(
    url: &str,
    id: u64,
    method: &str,
    mut params: Value,
    capabilities: Value,
    extra: &[(&str, &str)],
) -> (u16, String) {
    let meta = params.as_object_mut().expect("params are an object").entry("_meta").or_insert(serde_json::json!({}));
    meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28".into();
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method);
    if let Some(name) = params.get("name").or(params.get("taskId")).and_then(Value::as_str) {
        request = request.header("Mcp-Name", name);
    }
    for (name, value) in extra {
        request = request.header(*name, *value);
    }
    let body = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
    let reply = request.body(body.to_string()).send().await.expect("the server answers");
    (reply.status().as_u16(), reply.text().await.expect("a body"))
}
