//! A toolbox's deferred tools and namespaces: what `search_tools` finds and how.

use std::sync::Arc;

use super::table::ToolEntry;
use super::{Toolbox, ToolboxError};
use crate::search::{Catalog, Namespace, SEARCH_TOOLS, SearchTools};

impl Toolbox {
    /// Indexes the deferred tool `name` for `search_tools`, adding that tool with the
    /// first deferred one (unless the toolbox has a tool of that name already: then
    /// that one answers).
    pub(super) fn defer(&mut self, name: Option<String>) {
        let Some(name) = name else { return };
        let catalog = match &self.catalog {
            Some(catalog) => Arc::clone(catalog),
            None => {
                let catalog = Arc::new(Catalog::default());
                if self.embedder.is_some() {
                    catalog.set_embedder(self.embedder.clone());
                }
                self.catalog = Some(Arc::clone(&catalog));
                let search = ToolEntry::dynamic(SearchTools::new(Arc::clone(&catalog), &[]));
                self.own_search = self.table.push(search).is_ok();
                if !self.own_search {
                    tracing::warn!(
                        "this toolbox has its own `{SEARCH_TOOLS}` tool: it, not toolkit's, answers searches for deferred tools"
                    );
                }
                catalog
            }
        };
        // A namespace names tools already in the toolbox: a tool added now is in none.
        if let Some(spec) = self.table.spec(&name) {
            catalog.add(spec);
        }
    }

    /// Ranks `search_tools`' results by meaning as well as by words: each deferred tool's
    /// [`embedding_text`](crate::search::embedding_text) is embedded once, at the first
    /// search after it was added, and each query as it comes; the two rankings are fused
    /// by reciprocal rank ([`ToolIndex::search_with`](crate::search::ToolIndex::search_with)).
    /// When the embedder fails (or gives vectors of the wrong count or length), a search
    /// ranks by words alone and says so in the log, and the embedder is not asked again
    /// for 30 seconds: a search never fails because of it. Setting another embedder
    /// drops the vectors of the one before. The vectors live with this toolbox: wrap the
    /// embedder in a [`CachedEmbedder`](crate::search::CachedEmbedder) to keep them in a
    /// store across restarts.
    ///
    /// On the BFCL retrieval set (1,090 tools, 1,911 requests), all-MiniLM-L6-v2's
    /// vectors take recall@5 from 0.878 (words alone) to the figure in
    /// `benches/README.md` (`cargo test --test tool_search recall -- --nocapture`).
    pub fn with_embedder(mut self, embedder: impl crate::search::Embedder) -> Self {
        self.set_embedder(embedder);
        self
    }

    /// [`with_embedder`](Toolbox::with_embedder), in place.
    pub fn set_embedder(&mut self, embedder: impl crate::search::Embedder) -> &mut Self {
        let embedder: Arc<dyn crate::search::Embedder> = Arc::new(embedder);
        self.embedder = Some(Arc::clone(&embedder));
        if let Some(catalog) = &self.catalog {
            catalog.set_embedder(Some(embedder));
        }
        self
    }

    /// Whether the tool `name` is deferred: sent to a model only once `search_tools`
    /// found it (see [`search`](crate::search)).
    pub fn is_deferred(&self, name: &str) -> bool {
        self.catalog.is_some() && self.table.spec(name).is_some_and(|spec| spec.deferred)
    }

    /// Whether the toolbox has deferred tools (and so `search_tools`).
    pub fn has_deferred(&self) -> bool {
        self.catalog.is_some()
    }

    /// Groups tools of this toolbox under a name and a description ([`Namespace`]); an
    /// error if the namespace's name is not a valid name or is taken by another
    /// namespace, if a tool it names is not in the toolbox, or if one is in another
    /// namespace already. Nothing changes on an error.
    pub fn add_namespace(&mut self, namespace: Namespace) -> Result<&mut Self, ToolboxError> {
        if !crate::schema::is_valid_name(namespace.name()) {
            return Err(ToolboxError::InvalidName(namespace.name().to_owned()));
        }
        if self.namespaces.iter().any(|ns| ns.name() == namespace.name()) {
            return Err(ToolboxError::DuplicateNamespace(namespace.name().to_owned()));
        }
        for tool in namespace.tools() {
            if self.table.spec(tool).is_none() {
                return Err(ToolboxError::NotInToolbox { tool: tool.clone(), namespace: namespace.name().to_owned() });
            }
            if let Some(other) = self.namespace_of(tool) {
                return Err(ToolboxError::InNamespace { tool: tool.clone(), namespace: other.name().to_owned() });
            }
        }
        if let Some(catalog) = &self.catalog {
            catalog.annotate(&namespace);
        }
        self.namespaces.push(namespace);
        self.describe_search();
        Ok(self)
    }

    /// [`add_namespace`](Toolbox::add_namespace), for building a toolbox in one
    /// expression.
    ///
    /// # Panics
    ///
    /// On the errors `add_namespace` returns: a setup mistake, reported at once.
    pub fn with_namespace(mut self, namespace: Namespace) -> Self {
        if let Err(e) = self.add_namespace(namespace) {
            panic!("{e}");
        }
        self
    }

    /// The namespaces, in the order they were added.
    pub fn namespaces(&self) -> &[Namespace] {
        &self.namespaces
    }

    /// The namespace the tool `name` is in, if any.
    pub fn namespace_of(&self, name: &str) -> Option<&Namespace> {
        self.namespaces.iter().find(|ns| ns.contains(name))
    }

    /// Rebuilds toolkit's `search_tools` so its description names the namespaces that
    /// have deferred tools.
    fn describe_search(&mut self) {
        let Some(catalog) = self.catalog.as_ref().filter(|_| self.own_search) else { return };
        let shown: Vec<&Namespace> = self
            .namespaces
            .iter()
            .filter(|ns| ns.tools().iter().any(|tool| self.table.spec(tool).is_some_and(|s| s.deferred)))
            .collect();
        let search = ToolEntry::dynamic(SearchTools::new(Arc::clone(catalog), &shown));
        self.table.replace(search);
        self.plans = std::sync::OnceLock::new();
    }
}
