//! Each example runs offline and prints what its README promises.

use std::path::PathBuf;
use std::process::Command;

/// `cargo test` builds the examples next to the test binaries (`target/<profile>/examples`).
fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let profile_dir = exe.parent().and_then(|deps| deps.parent()).expect("target/<profile>");
    let path = profile_dir.join("examples").join(name);
    assert!(path.exists(), "{} was not built; run the tests with `cargo test`", path.display());
    path
}

fn run(name: &str) -> String {
    let out = Command::new(example(name)).output().expect("example runs");
    assert!(out.status.success(), "{name} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn weather_prints_schemas_and_one_result_per_call() {
    let out = run("weather");
    assert!(out.contains(r#""type": "function""#), "OpenAI shape:\n{out}");
    assert!(out.contains(r#""input_schema""#), "Anthropic shape:\n{out}");
    assert!(out.contains("OpenAI strict mode accepts every tool."), "{out}");
    for id in 1..=7 {
        assert_eq!(out.matches(&format!(r#""tool_call_id":"call_{id}""#)).count(), 1, "call_{id}:\n{out}");
    }
    assert!(out.contains(r#"\"temperature\":71.6"#), "fahrenheit conversion:\n{out}");
    assert!(out.contains("unknown field `city`; expected {location: string"), "{out}");
    assert!(out.contains("unknown variant `kelvin`"), "{out}");
    assert!(out.contains("no weather data for `Atlantis`"), "{out}");
    assert!(out.contains("unknown tool `get_forecast`"), "{out}");
}
