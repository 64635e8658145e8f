//! Vectors kept across restarts and processes: an [`Embedder`] in front of another, with
//! each text's vector in a [`Store`] (in memory, a file, Redis).

use std::time::Duration;

use futures_util::future::BoxFuture;
use sha2::{Digest, Sha256};

use super::embed::{EmbedError, Embedder};
use crate::hooks::store::Store;

/// An [`Embedder`] that asks its inner one only for texts whose vectors `store` does not
/// hold yet, and keeps what it gets there: a toolbox restarted (or a second process on
/// the same Redis) embeds none of its tools again.
///
/// A vector is kept under `{prefix}{model}:{SHA-256 of the text}` (the model's name is
/// part of the key: another model's vectors are never read), as its numbers (`f32`,
/// little-endian), with the time to live given (none by default). A store that fails is
/// logged and passed by: the texts are embedded as if it held nothing, and a vector it
/// cannot keep is still returned.
///
/// ```
/// use toolkit::hooks::MemoryStore;
/// use toolkit::search::CachedEmbedder;
/// # use toolkit::search::{EmbedError, Embedder};
/// # use futures_util::future::BoxFuture;
/// # struct Model;
/// # impl Embedder for Model {
/// #     fn model(&self) -> &str { "m" }
/// #     fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
/// #         Box::pin(async move { Ok(texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect()) })
/// #     }
/// # }
/// let embedder = CachedEmbedder::new(Model, MemoryStore::new());
/// ```
pub struct CachedEmbedder<E, S> {
    inner: E,
    store: S,
    prefix: String,
    ttl: Option<Duration>,
}

impl<E: Embedder, S: Store> CachedEmbedder<E, S> {
    /// `inner`'s vectors, kept in `store` under the prefix `toolkit:vector:`.
    pub fn new(inner: E, store: S) -> Self {
        CachedEmbedder { inner, store, prefix: "toolkit:vector:".to_owned(), ttl: None }
    }

    /// Keys start with `prefix` instead (a store shared by several applications).
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Each vector expires this long after it was kept (default: never).
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        self.ttl = Some(ttl);
        self
    }

    fn key(&self, text: &str) -> String {
        let digest = Sha256::digest(text.as_bytes());
        let mut key = format!("{}{}:", self.prefix, self.inner.model());
        for byte in digest {
            key.push_str(&format!("{byte:02x}"));
        }
        key
    }

    async fn vectors(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let keys: Vec<String> = texts.iter().map(|t| self.key(t)).collect();
        let mut found: Vec<Option<Vec<f32>>> = Vec::with_capacity(texts.len());
        for key in &keys {
            found.push(match self.store.get(key).await {
                Ok(Some(bytes)) => decode(&bytes),
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!(model = self.inner.model(), error = %e, "the vector store could not be read");
                    None
                }
            });
        }
        let missing: Vec<usize> = (0..texts.len()).filter(|&i| found[i].is_none()).collect();
        if !missing.is_empty() {
            let asked: Vec<String> = missing.iter().map(|&i| texts[i].clone()).collect();
            let vectors = super::embed::each(&self.inner, &asked).await?;
            for (i, vector) in missing.into_iter().zip(vectors) {
                if let Err(e) = self.store.set(&keys[i], encode(&vector), self.ttl).await {
                    tracing::warn!(model = self.inner.model(), error = %e, "the vector store could not keep a vector");
                }
                found[i] = Some(vector);
            }
        }
        Ok(found.into_iter().map(Option::unwrap_or_default).collect())
    }
}

impl<E: Embedder, S: Store> Embedder for CachedEmbedder<E, S> {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
        Box::pin(self.vectors(texts))
    }
}

fn encode(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The vector of stored bytes; `None` for bytes that are not one (then it is embedded
/// again, and kept anew).
fn decode(bytes: &[u8]) -> Option<Vec<f32>> {
    (!bytes.is_empty() && bytes.len().is_multiple_of(4))
        .then(|| bytes.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::hooks::MemoryStore;

    /// Counts the texts it is asked for.
    #[derive(Clone, Default)]
    struct Counting(Arc<AtomicUsize>);

    impl Embedder for Counting {
        fn model(&self) -> &str {
            "counting-v1"
        }

        fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
            self.0.fetch_add(texts.len(), Ordering::SeqCst);
            Box::pin(async move { Ok(texts.iter().map(|t| vec![t.len() as f32, 0.5]).collect()) })
        }
    }

    fn texts(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[tokio::test]
    async fn a_second_embedder_on_the_same_store_embeds_nothing_again() {
        let store = Arc::new(MemoryStore::new());
        let first = Counting::default();
        let cached = CachedEmbedder::new(first.clone(), Arc::clone(&store));
        let got = cached.embed(&texts(&["abc", "de"])).await.unwrap();
        assert_eq!(got, [vec![3.0, 0.5], vec![2.0, 0.5]]);
        assert_eq!(first.0.load(Ordering::SeqCst), 2);

        // "Restarted": a new embedder, the same store; only the new text is embedded.
        let second = Counting::default();
        let cached = CachedEmbedder::new(second.clone(), Arc::clone(&store));
        let got = cached.embed(&texts(&["de", "fghi", "abc"])).await.unwrap();
        assert_eq!(got, [vec![2.0, 0.5], vec![4.0, 0.5], vec![3.0, 0.5]]);
        assert_eq!(second.0.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn keys_name_the_model_and_bad_bytes_are_embedded_again() {
        let store = Arc::new(MemoryStore::new());
        let embedder = Counting::default();
        let cached = CachedEmbedder::new(embedder.clone(), Arc::clone(&store)).with_prefix("app:");
        let key = cached.key("abc");
        assert!(key.starts_with("app:counting-v1:") && key.len() == "app:counting-v1:".len() + 64, "{key}");
        store.set(&key, vec![1, 2, 3], None).await.unwrap();
        assert_eq!(cached.embed(&texts(&["abc"])).await.unwrap(), [vec![3.0, 0.5]]);
        assert_eq!(embedder.0.load(Ordering::SeqCst), 1);
        assert_eq!(decode(&store.get(&key).await.unwrap().unwrap()), Some(vec![3.0, 0.5]));
    }
}
