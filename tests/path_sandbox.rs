//! The path sandbox under attack: a file swapped for a symbolic link while tools read it,
//! paths of a megabyte, and random paths through a tree with links in and out.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use proptest::prelude::*;
use toolkit::hooks::{PathSandbox, SafeDir};
use toolkit::prelude::*;

/// Read a file through the sandbox root's handle.
#[tool(blocking, read_only)]
fn read_safe(#[state] files: Arc<SafeDir>, path: String) -> Result<String, std::io::Error> {
    files.read_to_string(&path)
}

/// Read a file the naive way (checked by the hook, then opened by path).
#[tool(blocking, read_only)]
fn read_naive(path: String) -> Result<String, std::io::Error> {
    std::fs::read_to_string(path)
}

/// Echo the path the tool is given.
#[tool(read_only)]
fn echo_path(path: String) -> String {
    path
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("toolkit-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir.canonicalize().unwrap()
}

/// Swaps `root/target` between a file inside and a link to `secret` outside, until
/// `stop`; each swap is an atomic rename.
fn swapper(root: PathBuf, secret: PathBuf, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let (link, file, target) = (root.join(".link"), root.join(".file"), root.join("target"));
        let mut swaps = 0;
        while !stop.load(Ordering::Relaxed) {
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&secret, &link).unwrap();
            std::fs::rename(&link, &target).unwrap();
            std::fs::write(&file, "inside").unwrap();
            std::fs::rename(&file, &target).unwrap();
            swaps += 2;
        }
        swaps
    })
}

async fn race(tool: &str, tools: &Toolbox, root: &Path, secret: &Path) -> (usize, u64) {
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = swapper(root.to_path_buf(), secret.to_path_buf(), stop.clone());
    let (mut leaks, mut inside) = (0, 0);
    for i in 0..1000 {
        let r = tools.call(ToolCall::new(i.to_string(), tool, r#"{"path": "target"}"#)).await;
        leaks += usize::from(r.content.contains("SECRET"));
        inside += usize::from(r.content == "inside");
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swaps.join().unwrap();
    println!("{tool}: 1000 reads during {swaps} swaps: {leaks} leaked the outside file, {inside} read the inside one");
    (leaks, swaps)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_link_swapped_in_after_the_check_never_leaks_through_safe_dir() {
    let base = scratch("race");
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, "SECRET").unwrap();
    std::fs::write(root.join("target"), "inside").unwrap();
    let tools = toolbox![read_safe, read_naive]
        .with_hook(PathSandbox::new().allow(&root))
        .with_state(Arc::new(SafeDir::open(&root).unwrap()));

    let (leaks, swaps) = race("read_safe", &tools, &root, &secret).await;
    assert_eq!(leaks, 0, "the outside file was read through SafeDir");
    assert!(swaps >= 10, "the file was swapped only {swaps} times during the reads: the race did not run");
    // The same hook in front of a tool that opens by path: the race is real (not
    // asserted: it depends on timing).
    race("read_naive", &tools, &root, &secret).await;
    std::fs::remove_dir_all(&base).ok();
}

#[tokio::test]
async fn a_megabyte_path_is_refused_before_the_filesystem_is_touched() {
    let root = scratch("long");
    let tools = toolbox![echo_path].with_hook(PathSandbox::new().allow(&root));
    let long = format!("{}x", "a/".repeat(500_000));
    let started = Instant::now();
    let r = tools.call(ToolCall::new("1", "echo_path", serde_json::json!({ "path": long }).to_string())).await;
    println!("1 MB path refused in {:?}", started.elapsed());
    assert!(r.content.starts_with("blocked: the path `a/a/a/"), "{}", r.content);
    assert!(r.content.contains("1000001 bytes long; paths are limited to 4096 bytes"), "{}", r.content);
    assert!(r.content.len() < 300, "the path is not echoed whole: {} bytes", r.content.len());

    let deep = format!("{}x", "a/".repeat(300));
    let r = tools.call(ToolCall::new("2", "echo_path", serde_json::json!({ "path": deep }).to_string())).await;
    assert!(r.content.contains("has more than 256 components"), "{}", r.content);
    std::fs::remove_dir_all(&root).ok();
}

#[test]
fn safe_dir_follows_links_that_stay_inside_and_refuses_the_rest() {
    let base = scratch("links");
    let (root, outside) = (base.join("root"), base.join("outside"));
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("sub/a.txt"), "a").unwrap();
    std::fs::write(outside.join("s.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink("sub/a.txt", root.join("in")).unwrap();
    std::os::unix::fs::symlink(root.join("sub/a.txt"), root.join("absolute")).unwrap();
    std::os::unix::fs::symlink(outside.join("s.txt"), root.join("out")).unwrap();
    std::os::unix::fs::symlink("../outside", root.join("up")).unwrap();
    let dir = SafeDir::open(&root).unwrap();

    assert_eq!(dir.read_to_string("sub/a.txt").unwrap(), "a");
    assert_eq!(dir.read_to_string(root.join("sub/a.txt")).unwrap(), "a", "absolute under the root");
    assert_eq!(dir.read_to_string("sub/../sub/a.txt").unwrap(), "a", "`..` that stays inside");
    assert_eq!(dir.read_to_string("in").unwrap(), "a", "a relative link inside");
    // A link with an absolute target is refused even when it points inside: beneath the
    // handle there is no `/`.
    assert!(dir.read_to_string("absolute").is_err());
    for escape in ["out", "up/s.txt", "../outside/s.txt", "sub/../../outside/s.txt"] {
        assert!(dir.read_to_string(escape).is_err(), "{escape} escaped");
    }
    let err = dir.read_to_string(outside.join("s.txt")).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::PermissionDenied);
    let names: Vec<String> = dir.read_dir(".").unwrap().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["absolute", "in", "out", "sub", "up"]);
    std::fs::remove_dir_all(&base).ok();
}

/// Path components to build random paths from: names that exist, links in and out,
/// `.`, `..`, empty components and absolute prefixes.
const PARTS: &[&str] = &["sub", "a.txt", "new", "in", "out", "up", ".", "..", "", "x y", "文件"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn whatever_passes_the_sandbox_lies_under_the_root(parts in prop::collection::vec(prop::sample::select(PARTS), 1..8), absolute in any::<bool>(), outside_root in any::<bool>()) {
        let base = tree();
        let root = base.join("root");
        let prefix = match (absolute, outside_root) {
            (true, false) => format!("{}/", root.display()),
            (true, true) => format!("{}/", base.display()),
            (false, _) => String::new(),
        };
        let path = format!("{prefix}{}", parts.join("/"));
        let tools = toolbox![echo_path].with_hook(PathSandbox::new().allow(&root));
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let r = runtime.block_on(tools.call(ToolCall::new("1", "echo_path", serde_json::json!({ "path": path }).to_string())));
        if !r.content.starts_with("blocked:") {
            let resolved = nearest_canonical(Path::new(&r.content));
            prop_assert!(resolved.starts_with(root.canonicalize().unwrap()), "{path:?} passed as {:?}, which is {resolved:?}", r.content);
        }
    }
}

/// A tree shared by the property cases: `root/sub/a.txt`, links `in` (inside), `out`
/// and `up` (outside), and `outside/s.txt`.
fn tree() -> PathBuf {
    static TREE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TREE.get_or_init(|| {
        let base = scratch("prop");
        let (root, outside) = (base.join("root"), base.join("outside"));
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(root.join("sub/a.txt"), "a").unwrap();
        std::fs::write(outside.join("s.txt"), "SECRET").unwrap();
        std::os::unix::fs::symlink(root.join("sub"), root.join("in")).unwrap();
        std::os::unix::fs::symlink(outside.join("s.txt"), root.join("out")).unwrap();
        std::os::unix::fs::symlink("../outside", root.join("up")).unwrap();
        base
    })
    .clone()
}

/// The canonical form of the longest existing prefix of `path`, with the rest appended.
fn nearest_canonical(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            return rest.iter().rev().fold(canonical, |p, c: &std::ffi::OsString| p.join(c));
        }
        match (existing.file_name().map(|n| n.to_owned()), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}
