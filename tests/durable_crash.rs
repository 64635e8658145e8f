//! Durable runs across real processes: a child process pauses a run and exits; another
//! resumes it with an approval and is killed with `SIGKILL` at each point of the
//! destructive call (before the ledger's "started", between "started" and the effect,
//! between the effect and "finished", after "finished"); a third resumes the same state.
//! The effect (a line appended to a file) happens at most once in every case, and the
//! case the ledger cannot vouch for is reported as in doubt. With a `FileStore`, and
//! with Redis (skipped, saying so, when `redis-server` is not installed).

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

use toolkit::agent::{Agent, AgentEvent};
use toolkit::durable::RunState;
use toolkit::hooks::store::Store;
use toolkit::hooks::{ApprovalGate, FileStore, RedisStore};
use toolkit::model::{ScriptedModel, Turn};
use toolkit::prelude::*;
use toolkit::{Decision, Hook, Outcome};

#[path = "../examples/support/redis_server.rs"]
mod redis_server;

mod support;

/// Where the child writes its effects.
fn effects_file() -> PathBuf {
    PathBuf::from(std::env::var("TOOLKIT_DURABLE_DIR").unwrap()).join("effects.txt")
}

/// Stops here when this is the kill point: says so (a file the parent waits for) and
/// waits to be killed with SIGKILL, as a crash or `kill -9` would end it: no destructor,
/// no flush, nothing after this line.
fn die_here(point: &str) {
    if std::env::var("TOOLKIT_DURABLE_KILL_AT").as_deref() == Ok(point) {
        let dir = PathBuf::from(std::env::var("TOOLKIT_DURABLE_DIR").unwrap());
        std::fs::write(dir.join("at-kill-point"), point).unwrap();
        std::thread::sleep(std::time::Duration::from_secs(120));
        unreachable!("the parent did not kill this process");
    }
}

/// Send money to a payee.
#[tool(destructive)]
fn transfer(
    /// Cents.
    cents: u64,
    /// The payee.
    to: String,
) -> String {
    die_here("before_effect");
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(effects_file()).unwrap();
    writeln!(file, "{cents} to {to}").unwrap();
    file.sync_all().unwrap();
    die_here("after_effect");
    format!("sent {cents} to {to}")
}

/// The child: pauses a run and writes its state (`pause`), or resumes the state with an
/// approval and prints the call's outcome (`resume`), dying where it is told to.
#[test]
fn durable_child() {
    let (Ok(dir), Ok(role)) = (std::env::var("TOOLKIT_DURABLE_DIR"), std::env::var("TOOLKIT_DURABLE_ROLE")) else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async move {
        let dir = PathBuf::from(dir);
        let store: Arc<dyn Store> = match std::env::var("TOOLKIT_DURABLE_REDIS") {
            Ok(url) => Arc::new(RedisStore::open(&url).unwrap().with_timeout(std::time::Duration::from_secs(5))),
            Err(_) => Arc::new(FileStore::open(dir.join("store")).unwrap()),
        };
        // Just before the ledger (the lowest priority): after every other hook.
        let before_started = Hook::before("crash_point", |_call| {
            die_here("before_started");
            Decision::Continue
        })
        .priority(i32::MIN + 1);
        let tools = toolbox![transfer].with_hook(ApprovalGate::deferring().destructive()).with_hook(before_started);
        let turns = match role.as_str() {
            "pause" => vec![Turn::call("transfer", r#"{"cents": 500, "to": "ACME"}"#)],
            _ => vec![Turn::text("Done.")],
        };
        let agent = Agent::builder(ScriptedModel::new(turns), tools)
            .name("treasurer")
            .durable(Arc::clone(&store))
            .on_event(|event| {
                // After the ledger's "finished": the record is made last of all.
                if let AgentEvent::ToolCallFinished { record } = event
                    && record.tool == "transfer"
                    && record.outcome != Outcome::Deferred
                {
                    die_here("after_finished");
                }
            })
            .build()
            .unwrap();
        let state_file = dir.join("state.json");
        if role == "pause" {
            let state = agent.run("Send ACME 5 dollars").await.unwrap_err().into_paused().unwrap();
            std::fs::write(&state_file, state.to_json()).unwrap();
            return;
        }
        let state = RunState::from_json(&std::fs::read_to_string(&state_file).unwrap()).unwrap();
        let approve = state.pending()[0].approve();
        let run = agent.resume(state, [approve]).await.unwrap();
        let record = run.records.iter().rev().find(|r| r.tool == "transfer").unwrap();
        println!("OUTCOME {} | {}", record.outcome, record.content);
    });
}

struct Child {
    dir: PathBuf,
    redis: Option<String>,
}

impl Child {
    fn command(&self, role: &str, kill_at: Option<&str>) -> Command {
        let mut command = Command::new(std::env::current_exe().unwrap());
        command
            .args(["--exact", "durable_child", "--nocapture", "--test-threads=1"])
            .env("TOOLKIT_DURABLE_DIR", &self.dir)
            .env("TOOLKIT_DURABLE_ROLE", role)
            .env_remove("TOOLKIT_DURABLE_KILL_AT")
            .env_remove("TOOLKIT_DURABLE_REDIS")
            .stdin(Stdio::null());
        if let Some(point) = kill_at {
            command.env("TOOLKIT_DURABLE_KILL_AT", point);
        }
        if let Some(url) = &self.redis {
            command.env("TOOLKIT_DURABLE_REDIS", url);
        }
        command
    }

    fn run(&self, role: &str) -> std::process::Output {
        self.command(role, None).output().unwrap()
    }

    /// Resumes, and kills the process with SIGKILL once it has reached `point`.
    fn killed_at(&self, point: &str) -> std::process::ExitStatus {
        let marker = self.dir.join("at-kill-point");
        let _ = std::fs::remove_file(&marker);
        let mut child =
            self.command("resume", Some(point)).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !marker.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("{point}: the child ended before its kill point: {status}");
            }
            assert!(std::time::Instant::now() < deadline, "{point}: the child never reached its kill point");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap()
    }

    fn outcome(&self) -> (String, String) {
        let out = self.run("resume");
        assert!(out.status.success(), "resume failed: {}", String::from_utf8_lossy(&out.stderr));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let line = stdout.lines().find_map(|l| l.split_once("OUTCOME ").map(|(_, r)| r.to_owned())).unwrap();
        let (outcome, content) = line.split_once(" | ").unwrap();
        (outcome.to_owned(), content.to_owned())
    }

    fn effects(&self) -> usize {
        std::fs::read_to_string(self.dir.join("effects.txt")).map_or(0, |t| t.lines().count())
    }
}

/// Every kill point, then a resume: (point, effects, outcome of the resume).
fn kill_table(base: &Path, redis: Option<&str>) -> Vec<(String, usize, String)> {
    let mut table = Vec::new();
    for point in ["before_started", "before_effect", "after_effect", "after_finished"] {
        let dir = base.join(point);
        std::fs::create_dir_all(&dir).unwrap();
        let child = Child { dir, redis: redis.map(str::to_owned) };
        let paused = child.run("pause");
        assert!(paused.status.success(), "pause failed: {}", String::from_utf8_lossy(&paused.stderr));
        let killed = child.killed_at(point);
        assert_eq!(killed.signal(), Some(9), "{point}: the child was to die by SIGKILL: {killed:?}");
        let (outcome, content) = child.outcome();
        // And once more: a settled call stays settled (a call that ran is replayed).
        let (again, _) = child.outcome();
        assert_eq!(again, if outcome == "ok" { "replayed" } else { outcome.as_str() }, "{point}: a further resume");
        table.push((point.to_owned(), child.effects(), format!("{outcome}: {content}")));
    }
    table
}

fn check(table: &[(String, usize, String)], store: &str) {
    eprintln!("kill point (store: {store}) | effects | the next resume");
    for (point, effects, outcome) in table {
        eprintln!("{point} | {effects} | {outcome}");
    }
    let row = |point: &str| table.iter().find(|(p, ..)| p == point).unwrap();
    // Killed before "started": nothing happened, and the next resume runs it once.
    assert_eq!(row("before_started").1, 1);
    assert!(row("before_started").2.starts_with("ok: sent 500 to ACME"), "{:?}", row("before_started"));
    // Killed between "started" and the effect: nothing happened, and nobody can know.
    assert_eq!(row("before_effect").1, 0);
    assert!(row("before_effect").2.starts_with("failed(in_doubt): not run"), "{:?}", row("before_effect"));
    // Killed between the effect and "finished": it happened once, and is in doubt.
    assert_eq!(row("after_effect").1, 1);
    assert!(row("after_effect").2.starts_with("failed(in_doubt)"), "{:?}", row("after_effect"));
    // Killed after "finished": the recorded result, not a second effect.
    assert_eq!(row("after_finished").1, 1);
    assert_eq!(row("after_finished").2, "replayed: sent 500 to ACME");
}

#[test]
fn a_kill_at_any_point_never_repeats_the_effect() {
    let base = support::scratch("durable-kill");
    check(&kill_table(&base, None), "file");
}

#[test]
fn a_kill_at_any_point_never_repeats_the_effect_with_redis() {
    let Some(redis) = redis_server::RedisServer::start_or_skip("durable runs over Redis") else { return };
    let base = support::scratch("durable-kill-redis");
    check(&kill_table(&base, Some(&redis.url())), "redis");
}

#[test]
fn two_processes_resuming_at_once_run_the_call_exactly_once() {
    let base = support::scratch("durable-concurrent");
    for round in 0..3 {
        let child = Arc::new(Child { dir: base.join(round.to_string()), redis: None });
        std::fs::create_dir_all(&child.dir).unwrap();
        assert!(child.run("pause").status.success());
        let resumers: Vec<_> = (0..2)
            .map(|_| {
                let child = Arc::clone(&child);
                std::thread::spawn(move || child.outcome())
            })
            .collect();
        let outcomes: Vec<(String, String)> = resumers.into_iter().map(|t| t.join().unwrap()).collect();
        assert_eq!(child.effects(), 1, "round {round}: {outcomes:?}");
        assert_eq!(outcomes.iter().filter(|(o, _)| o == "ok").count(), 1, "round {round}: {outcomes:?}");
        assert!(
            outcomes.iter().all(|(o, _)| ["ok", "replayed", "failed(in_doubt)"].contains(&o.as_str())),
            "{outcomes:?}"
        );
    }
}
