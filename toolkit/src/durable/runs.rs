//! Where paused runs wait: [`RunStore`].

use std::sync::Arc;
use std::time::Duration;

use super::state::{RunState, StateError};
use crate::hooks::store::{Store, StoreError};

/// Paused runs, kept in a [`Store`] until someone decides on them: in memory
/// ([`MemoryStore`](crate::hooks::MemoryStore)), in a directory
/// ([`FileStore`](crate::hooks::FileStore)), or on Redis
/// ([`RedisStore`](crate::hooks::RedisStore)), under `toolkit:run:{run_id}`.
///
/// - [`put`](RunStore::put) keeps a state (again after each pause of the same run: one
///   entry per run);
/// - [`list`](RunStore::list) and [`get`](RunStore::get) show them (an approval page);
/// - [`take`](RunStore::take) hands a run to exactly one resumer, atomically, however
///   many ask at once;
/// - entries expire after [`ttl`](RunStore::ttl) (30 days by default). Keep the
///   [`EffectLedger`](crate::hooks::EffectLedger)'s TTL at least as long: a run resumed
///   after its ledger entries expired could run an approved call again.
///
/// A state holds the tools' arguments: the store is as sensitive as the conversations.
/// Nothing here logs a state's content.
///
/// ```
/// use toolkit::durable::RunStore;
/// use toolkit::hooks::MemoryStore;
///
/// # #[tokio::main(flavor = "current_thread")] async fn main() -> Result<(), toolkit::durable::RunStoreError> {
/// let runs = RunStore::new(MemoryStore::new());
/// assert!(runs.list().await?.is_empty());
/// assert!(runs.take("run-1").await?.is_none());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RunStore {
    store: Arc<dyn Store>,
    ttl: Duration,
}

impl std::fmt::Debug for RunStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunStore").field("ttl", &self.ttl).finish_non_exhaustive()
    }
}

/// A [`RunStore`] operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunStoreError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// What it held under the run's key is not a state this build reads.
    #[error("run `{run_id}`: {error}")]
    State {
        /// The run.
        run_id: String,
        /// Why.
        error: StateError,
    },
}

const PREFIX: &str = "toolkit:run:";

impl RunStore {
    /// Paused runs in `store`.
    pub fn new(store: impl Store) -> Self {
        RunStore::shared(Arc::new(store))
    }

    /// Paused runs in a store shared with hooks (the agent's ledger, say).
    pub fn shared(store: Arc<dyn Store>) -> Self {
        RunStore { store, ttl: Duration::from_secs(30 * 24 * 3600) }
    }

    /// How long a paused run is kept (default 30 days).
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// Keeps `state` (replacing what the run had here).
    pub async fn put(&self, state: &RunState) -> Result<(), RunStoreError> {
        let key = format!("{PREFIX}{}", state.run_id());
        Ok(self.store.set(&key, state.to_json().into_bytes(), Some(self.ttl)).await?)
    }

    /// The state of a run, left in place.
    pub async fn get(&self, run_id: &str) -> Result<Option<RunState>, RunStoreError> {
        let bytes = self.store.get(&format!("{PREFIX}{run_id}")).await?;
        bytes.map(|b| read(run_id, &b)).transpose()
    }

    /// Takes a run out: of several callers taking one run at once, exactly one gets it.
    pub async fn take(&self, run_id: &str) -> Result<Option<RunState>, RunStoreError> {
        let bytes = self.store.take(&format!("{PREFIX}{run_id}")).await?;
        bytes.map(|b| read(run_id, &b)).transpose()
    }

    /// Every paused run, oldest pause first. An entry this build cannot read is left out
    /// (and logged by its run id only); [`get`](RunStore::get) says why.
    pub async fn list(&self) -> Result<Vec<RunState>, RunStoreError> {
        let mut runs = Vec::new();
        for key in self.store.keys(PREFIX).await? {
            let run_id = &key[PREFIX.len()..];
            match self.get(run_id).await {
                Ok(Some(state)) => runs.push(state),
                Ok(None) => {} // taken or expired meanwhile
                Err(e) => tracing::warn!(run_id, "a paused run cannot be read: {e}"),
            }
        }
        runs.sort_by(|a, b| a.paused_at.cmp(&b.paused_at).then_with(|| a.run_id.cmp(&b.run_id)));
        Ok(runs)
    }
}

fn read(run_id: &str, bytes: &[u8]) -> Result<RunState, RunStoreError> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| RunStoreError::State { run_id: run_id.to_owned(), error: StateError::Malformed(e.to_string()) })?;
    RunState::from_json(text).map_err(|error| RunStoreError::State { run_id: run_id.to_owned(), error })
}
