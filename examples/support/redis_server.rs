//! A `redis-server` of one's own: on a free loopback port, in a temporary directory, with
//! no persistence, stopped (and its directory removed) when dropped. Shared by the
//! `fleet` example, the Redis store's tests and its benchmark (`#[path]`-included).

#![allow(dead_code)] // each includer uses its own part

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisServer {
    port: u16,
    dir: PathBuf,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts a server; an error says how to get one when `redis-server` is missing.
    pub fn start() -> Result<RedisServer, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let dir = std::env::temp_dir().join(format!("toolkit-redis-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut server = RedisServer { port, dir, child: None };
        server.run()?;
        Ok(server)
    }

    /// Starts a server for a test, or skips the test when `redis-server` is not
    /// installed: `None`, after saying so once on stderr with the package to install.
    /// With `TOOLKIT_REQUIRE_REDIS=1` (set by `.ci/run`) a missing server fails the test
    /// instead.
    pub fn start_or_skip(what: &str) -> Option<RedisServer> {
        available(what).then(|| RedisServer::start().unwrap_or_else(|e| panic!("{what}: {e}")))
    }

    /// Starts (again) on the same port, and waits until it accepts connections.
    pub fn run(&mut self) -> Result<(), String> {
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            // `DEBUG SLEEP` plays a slow server in the tests.
            .args(["--enable-debug-command", "local"])
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start redis-server ({e}): install the redis-server package"))?;
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if Instant::now() > deadline {
                return Err("redis-server did not start within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Ok(())
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// Stops the server (a crash, as far as clients can tell).
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().ok();
            child.wait().ok();
        }
    }

    pub fn restart(&mut self) -> Result<(), String> {
        self.kill();
        self.run()
    }
}

/// Whether a test that needs `redis-server` can run: `false` (after saying once on
/// stderr what to install) when it is missing; with `TOOLKIT_REQUIRE_REDIS=1` (set by
/// `.ci/run`) a missing server panics instead.
pub fn available(what: &str) -> bool {
    if installed() {
        return true;
    }
    let why =
        "`redis-server` is not installed (Debian/Ubuntu: `apt-get install redis-server`; macOS: `brew install redis`)";
    if std::env::var("TOOLKIT_REQUIRE_REDIS").as_deref() == Ok("1") {
        panic!("{what}: {why}, and TOOLKIT_REQUIRE_REDIS=1 requires it");
    }
    static SAID: std::sync::Once = std::sync::Once::new();
    // Straight to stderr: the test harness captures `eprintln!`, and this must be seen.
    SAID.call_once(|| {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "skipped: the tests that need Redis ({what}, and any others): {why}");
    });
    false
}

/// Whether `redis-server` can be run here.
pub fn installed() -> bool {
    Command::new("redis-server").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok()
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
        std::fs::remove_dir_all(&self.dir).ok();
    }
}
