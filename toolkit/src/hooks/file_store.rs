//! A [`Store`] in a directory: state that outlives the process and is shared by the
//! processes of one machine, with no server.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use futures_util::future::BoxFuture;

use super::store::{Hit, Store, StoreError, repeat_record, repeated};

/// State in a directory, one file per key: what a single machine needs for runs that
/// survive a crash (the [`EffectLedger`](super::EffectLedger), paused runs in a
/// [`RunStore`](crate::durable::RunStore)) without a Redis server. Several processes may
/// share the directory.
///
/// - **Atomic where it matters:** [`set_if_absent`](Store::set_if_absent) links a fully
///   written file into place (`link(2)` fails if the name exists), [`set`](Store::set)
///   renames one over it, and [`take`](Store::take) renames the file away before reading
///   it, so of two processes exactly one gets it. A crash leaves either the old file or
///   the new one, never half of one.
/// - **Counters and windows** ([`incr`](Store::incr), [`hit`](Store::hit),
///   [`repeat`](Store::repeat)) read, change and write a file under a lock file of its
///   own; a lock left by a crashed process is broken after 10 s.
/// - **Expiry** is written in the file and checked on reading; expired files are
///   removed when read or listed, not in the background.
/// - **Files are written and read on the calling thread**: small and local, they take
///   microseconds; put the directory on a local disk, not a network one (where `link`
///   and `rename` may not be atomic).
/// - **Keys** become file names (bytes other than ASCII letters, digits, `_`, `-` and
///   `.` are percent-encoded); a key whose name would be over 200 bytes is refused.
///
/// ```
/// use toolkit::hooks::FileStore;
/// use toolkit::hooks::store::Store;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = std::env::temp_dir().join(format!("toolkit-doc-{}", std::process::id()));
/// let store = FileStore::open(&dir)?;
/// assert!(store.set_if_absent("toolkit:a", b"1".to_vec(), None).await?);
/// assert!(!store.set_if_absent("toolkit:a", b"2".to_vec(), None).await?);
/// assert_eq!(store.take("toolkit:a").await?, Some(b"1".to_vec()));
/// assert_eq!(store.get("toolkit:a").await?, None);
/// # std::fs::remove_dir_all(dir)?; Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

/// Unique names for temporary files, within a process (the pid tells processes apart).
static NEXT: AtomicU64 = AtomicU64::new(0);

/// How long a lock file may live before it is taken for a crashed process's.
const STALE_LOCK: Duration = Duration::from_secs(10);

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn error(what: &str, key: &str, e: io::Error) -> StoreError {
    StoreError::new(format!("the file store could not {what} `{key}`: {e}"))
}

/// The expiry header: unix milliseconds, 0 for none.
fn expiry(ttl: Option<Duration>) -> u64 {
    match ttl {
        Some(ttl) => now_ms().saturating_add(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX)).max(1),
        None => 0,
    }
}

/// A file's value, `None` when it has expired (or is not one of ours).
fn live(bytes: Vec<u8>) -> Option<Vec<u8>> {
    let header: [u8; 8] = bytes.get(..8)?.try_into().ok()?;
    let expires = u64::from_le_bytes(header);
    (expires == 0 || expires > now_ms()).then(|| bytes[8..].to_vec())
}

impl FileStore {
    /// A store in `dir`, created if missing.
    pub fn open(dir: impl AsRef<Path>) -> io::Result<Self> {
        fs::create_dir_all(dir.as_ref())?;
        Ok(FileStore { dir: dir.as_ref().to_path_buf() })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> Result<PathBuf, StoreError> {
        let mut name = String::with_capacity(key.len() + 8);
        for b in key.bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.') {
                name.push(b as char);
            } else {
                name.push_str(&format!("%{b:02X}"));
            }
        }
        // A leading dot would hide it among the temporary and lock files.
        if name.starts_with('.') {
            name.replace_range(..1, "%2E");
        }
        if name.is_empty() || name.len() > 200 {
            return Err(StoreError::new(format!(
                "the file store cannot hold a key of {} bytes as a file name",
                key.len()
            )));
        }
        Ok(self.dir.join(name))
    }

    fn decode(name: &str) -> Option<String> {
        let bytes = name.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'%' {
                let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            } else {
                out.push(bytes[i]);
                i += 1;
            }
        }
        String::from_utf8(out).ok()
    }

    /// A fully written temporary file holding `value` until `expires`.
    fn temp(&self, key: &str, value: &[u8], expires: u64) -> Result<PathBuf, StoreError> {
        let tmp = self.dir.join(format!(".tmp-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
        let write = || -> io::Result<()> {
            let mut file = fs::File::create_new(&tmp)?;
            file.write_all(&expires.to_le_bytes())?;
            file.write_all(value)?;
            file.sync_data()
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            error("write", key, e)
        })?;
        Ok(tmp)
    }

    fn read(&self, key: &str, path: &Path) -> Result<Option<Vec<u8>>, StoreError> {
        match fs::read(path) {
            Ok(bytes) => Ok(live(bytes)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(error("read", key, e)),
        }
    }

    fn write(&self, key: &str, value: &[u8], ttl: Option<Duration>) -> Result<(), StoreError> {
        let path = self.path(key)?;
        let tmp = self.temp(key, value, expiry(ttl))?;
        fs::rename(&tmp, &path).map_err(|e| {
            let _ = fs::remove_file(&tmp);
            error("write", key, e)
        })
    }

    /// Runs `f` under the key's lock file.
    async fn locked<R>(&self, key: &str, f: impl FnOnce() -> Result<R, StoreError>) -> Result<R, StoreError> {
        let path = self.path(key)?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let lock = self.dir.join(format!(".lock-{name}"));
        let mut pause = Duration::from_micros(200);
        loop {
            match fs::File::create_new(&lock) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    let age = fs::metadata(&lock).and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
                    if age.is_some_and(|age| age > STALE_LOCK) {
                        let _ = fs::remove_file(&lock);
                        continue;
                    }
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(Duration::from_millis(10));
                }
                Err(e) => return Err(error("lock", key, e)),
            }
        }
        let result = f();
        let _ = fs::remove_file(&lock);
        result
    }
}

impl Store for FileStore {
    fn hit<'a>(
        &'a self,
        key: &'a str,
        window: Duration,
        limit: u32,
        now: SystemTime,
    ) -> BoxFuture<'a, Result<Hit, StoreError>> {
        Box::pin(self.locked(key, move || {
            let path = self.path(key)?;
            let at = |t: SystemTime| t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64);
            let (now, window_ms) = (at(now), u64::try_from(window.as_millis()).unwrap_or(u64::MAX));
            let stored = self.read(key, &path)?.unwrap_or_default();
            let mut hits: Vec<u64> = String::from_utf8_lossy(&stored)
                .split('\n')
                .filter_map(|t| t.parse().ok())
                .filter(|&t: &u64| t.saturating_add(window_ms) > now)
                .collect();
            let hit = if hits.len() < limit as usize {
                hits.push(now);
                Hit::Allowed { count: hits.len() as u32 }
            } else {
                let oldest = hits.iter().copied().min().unwrap_or(now);
                Hit::Limited {
                    retry_after: Duration::from_millis(oldest.saturating_add(window_ms).saturating_sub(now)),
                }
            };
            let text: Vec<String> = hits.iter().map(u64::to_string).collect();
            self.write(key, text.join("\n").as_bytes(), Some(window))?;
            Ok(hit)
        }))
    }

    fn incr<'a>(&'a self, key: &'a str, ttl: Option<Duration>) -> BoxFuture<'a, Result<u64, StoreError>> {
        Box::pin(self.locked(key, move || {
            let path = self.path(key)?;
            let n = match self.read(key, &path)? {
                Some(bytes) => std::str::from_utf8(&bytes)
                    .ok()
                    .and_then(|s| s.parse::<u64>().ok())
                    .ok_or_else(|| StoreError::new(format!("`{key}` does not hold a counter")))?,
                None => 0,
            };
            let n = n.saturating_add(1);
            self.write(key, n.to_string().as_bytes(), ttl)?;
            Ok(n)
        }))
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        let got = self.path(key).and_then(|path| self.read(key, &path));
        Box::pin(std::future::ready(got))
    }

    fn set<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Option<Duration>) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(std::future::ready(self.write(key, &value, ttl)))
    }

    fn set_if_absent<'a>(
        &'a self,
        key: &'a str,
        value: Vec<u8>,
        ttl: Option<Duration>,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async move {
            let path = self.path(key)?;
            let tmp = self.temp(key, &value, expiry(ttl))?;
            let linked = loop {
                match fs::hard_link(&tmp, &path) {
                    Ok(()) => break Ok(true),
                    Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                        if self.read(key, &path)?.is_some() {
                            break Ok(false);
                        }
                        // Expired: take it away under the key's lock (a live file that
                        // another process linked meanwhile is left alone), then try again.
                        let removed = self
                            .locked(key, || {
                                if self.read(key, &path)?.is_none() {
                                    let _ = fs::remove_file(&path);
                                }
                                Ok(())
                            })
                            .await;
                        if let Err(e) = removed {
                            break Err(e);
                        }
                    }
                    Err(e) => break Err(error("write", key, e)),
                }
            };
            let _ = fs::remove_file(&tmp);
            linked
        })
    }

    fn delete<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        let deleted = self.path(key).and_then(|path| match fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(error("delete", key, e)),
        });
        Box::pin(std::future::ready(deleted))
    }

    fn take<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<Vec<u8>>, StoreError>> {
        let taken = self.path(key).and_then(|path| {
            let tmp = self.dir.join(format!(".taken-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed)));
            match fs::rename(&path, &tmp) {
                Ok(()) => {
                    let value = self.read(key, &tmp);
                    let _ = fs::remove_file(&tmp);
                    value
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
                Err(e) => Err(error("take", key, e)),
            }
        });
        Box::pin(std::future::ready(taken))
    }

    fn keys<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<Vec<String>, StoreError>> {
        let listed = (|| {
            let mut keys = Vec::new();
            for entry in fs::read_dir(&self.dir).map_err(|e| error("list", prefix, e))? {
                let entry = entry.map_err(|e| error("list", prefix, e))?;
                let name = entry.file_name();
                let Some(name) = name.to_str().filter(|n| !n.starts_with('.')) else { continue };
                let Some(key) = Self::decode(name).filter(|k| k.starts_with(prefix)) else { continue };
                if self.read(&key, &entry.path())?.is_some() {
                    keys.push(key);
                }
            }
            Ok(keys)
        })();
        Box::pin(std::future::ready(listed))
    }

    fn repeat<'a>(&'a self, key: &'a str, value: &'a [u8], ttl: Duration) -> BoxFuture<'a, Result<u32, StoreError>> {
        Box::pin(self.locked(key, move || {
            let path = self.path(key)?;
            let times = repeated(self.read(key, &path)?.as_deref(), value);
            self.write(key, &repeat_record(times, value), Some(ttl))?;
            Ok(times)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str) -> FileStore {
        let dir = std::env::temp_dir().join(format!("toolkit-file-store-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        FileStore::open(dir).unwrap()
    }

    #[tokio::test]
    async fn values_counters_windows_and_expiry() {
        let s = store("ops");
        assert_eq!(s.incr("n", None).await.unwrap(), 1);
        assert_eq!(s.incr("n", None).await.unwrap(), 2);
        assert_eq!(s.get("n").await.unwrap().as_deref(), Some(&b"2"[..]));
        assert!(s.set_if_absent("p", vec![1], Some(Duration::ZERO)).await.unwrap());
        // Expired at once: absent again, and taken anew.
        assert_eq!(s.get("p").await.unwrap(), None);
        assert!(s.set_if_absent("p", vec![2], None).await.unwrap());
        assert!(!s.set_if_absent("p", vec![3], None).await.unwrap());
        assert_eq!(s.get("p").await.unwrap(), Some(vec![2]));
        let w = Duration::from_secs(60);
        let t0 = SystemTime::now();
        assert_eq!(s.hit("w", w, 2, t0).await.unwrap(), Hit::Allowed { count: 1 });
        assert_eq!(s.hit("w", w, 2, t0).await.unwrap(), Hit::Allowed { count: 2 });
        assert!(matches!(s.hit("w", w, 2, t0).await.unwrap(), Hit::Limited { .. }));
        assert_eq!(s.repeat("r", b"x", w).await.unwrap(), 1);
        assert_eq!(s.repeat("r", b"x", w).await.unwrap(), 2);
        assert_eq!(s.repeat("r", b"y", w).await.unwrap(), 1);
        let mut keys = s.keys("").await.unwrap();
        keys.sort();
        assert_eq!(keys, ["n", "p", "r", "w"]);
        s.delete("p").await.unwrap();
        assert_eq!(s.get("p").await.unwrap(), None);
        assert!(s.path(&"k".repeat(300)).is_err(), "a key too long for a file name is refused");
    }

    #[tokio::test]
    async fn keys_with_any_characters_round_trip() {
        let s = store("names");
        for key in ["toolkit:run:a/b", "..", "ünï:cödé", "%41"] {
            s.set(key, key.as_bytes().to_vec(), None).await.unwrap();
            assert_eq!(s.get(key).await.unwrap().as_deref(), Some(key.as_bytes()), "{key}");
        }
        let mut keys = s.keys("").await.unwrap();
        keys.sort();
        assert_eq!(keys, ["%41", "..", "toolkit:run:a/b", "ünï:cödé"]);
        assert_eq!(s.keys("toolkit:").await.unwrap(), ["toolkit:run:a/b"]);
    }

    #[test]
    fn of_many_takers_of_one_key_exactly_one_gets_it() {
        let s = store("take");
        for round in 0..20 {
            let key = format!("k{round}");
            futures_util::FutureExt::now_or_never(s.set(&key, vec![7], None)).unwrap().unwrap();
            let got: usize = std::thread::scope(|scope| {
                let takers: Vec<_> = (0..8)
                    .map(|_| {
                        let (s, key) = (&s, &key);
                        scope.spawn(move || futures_util::FutureExt::now_or_never(s.take(key)).unwrap().unwrap())
                    })
                    .collect();
                takers.into_iter().filter_map(|t| t.join().unwrap()).count()
            });
            assert_eq!(got, 1, "round {round}");
        }
    }
}
