//! A BM25 index over tool descriptions: each tool a document of weighted fields (its
//! name counts most, then its parameters' names, then the descriptions), each query
//! word scored by how rare it is among the tools and how often, for the document's
//! length, the tool mentions it.

use std::collections::HashMap;

use serde_json::Value;

use super::tokens::each_token;
use crate::spec::ToolSpec;

/// BM25's term-frequency saturation and length normalisation.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// How much a word counts in each field.
const NAME: f32 = 3.0;
const PARAM_NAME: f32 = 1.5;
const DESCRIPTION: f32 = 1.0;
/// A parameter's description: it often names places, units and examples that unrelated
/// tools share, so it counts half.
const PARAM_DESCRIPTION: f32 = 0.5;

/// A tool found by a search, best first.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Its place in the list the index was built from.
    pub index: usize,
    /// Its score (higher is better; only comparable within one search).
    pub score: f32,
}

/// The index: postings of each word (the documents that have it, with the word's
/// weighted count there), each document's weighted length, and their mean.
#[derive(Debug, Default, Clone)]
pub struct ToolIndex {
    /// Each word's number, and by number the documents that have it.
    words: HashMap<String, u32>,
    postings: Vec<Vec<(u32, f32)>>,
    lengths: Vec<f32>,
    /// Each tool's place, by its lowercased name.
    names: HashMap<String, usize>,
    mean_length: f32,
    /// The tools' vectors, end to end, each of length 1 then quantized to `i8` (a
    /// quarter of the memory a search streams through, for a loss of recall too small to
    /// measure here): the `i`th tool's is at `i * dimension`, zeros until given
    /// ([`set_vector`](ToolIndex::set_vector)), scaled by `scales[i]` (0 for a tool
    /// without one: a vector of length 1 has a largest component above 0).
    vectors: Vec<i8>,
    scales: Vec<f32>,
    /// Their length (0: none given yet).
    dimension: usize,
}

/// Reciprocal rank fusion's constant: a tool ranked `r`th (from 1) by words and `s`th by
/// meaning scores `1/(K + r) + 1/(K + s)`. 60 is the value of the method's paper
/// (Cormack, Clarke and Büttcher, 2009), not tuned to any data set here.
const FUSION_K: f32 = 60.0;

/// How far down each ranking fusion looks: at least this many, or ten times the limit.
const FUSION_DEPTH: usize = 100;

/// Why a vector was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VectorError {
    /// No tool has this place in the index.
    #[error("no tool {0} in the index")]
    NoSuchTool(usize),
    /// Its length differs from the vectors given before.
    #[error("a vector of {got} numbers, where the index holds vectors of {expected}")]
    Length {
        /// The length of the vectors already in the index.
        expected: usize,
        /// The length of this one.
        got: usize,
    },
    /// All zero, or not finite: it points nowhere.
    #[error("the vector has no direction (all zero, or not finite)")]
    NoDirection,
}

/// The text of a spec the index reads: its name, its description, and each parameter's
/// name, description and listed values (nested ones too, up to a few levels).
pub(crate) fn fields(spec: &ToolSpec) -> Vec<(f32, String)> {
    let mut out = vec![(NAME, spec.name.clone()), (DESCRIPTION, spec.description.clone())];
    params(&spec.input_schema, 0, &mut out);
    out
}

fn params(schema: &Value, depth: usize, out: &mut Vec<(f32, String)>) {
    if depth > 3 {
        return;
    }
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return };
    for (name, property) in properties {
        out.push((PARAM_NAME, name.clone()));
        if let Some(description) = property.get("description").and_then(Value::as_str) {
            out.push((PARAM_DESCRIPTION, description.to_string()));
        }
        // The values a parameter takes say what the tool is for (`"Theater"`, `"IMAX"`).
        let values = property.get("enum").or_else(|| property.get("items").and_then(|i| i.get("enum")));
        if let Some(values) = values.and_then(Value::as_array) {
            let words: Vec<&str> = values.iter().filter_map(Value::as_str).collect();
            out.push((DESCRIPTION, words.join(" ")));
        }
        params(property, depth + 1, out);
        if let Some(items) = property.get("items") {
            params(items, depth + 1, out);
        }
    }
}

impl ToolIndex {
    /// An index of `specs`, in their order.
    pub fn new<'a>(specs: impl IntoIterator<Item = &'a ToolSpec>) -> Self {
        let mut index = ToolIndex::default();
        for spec in specs {
            index.add(&spec.name, fields(spec));
        }
        index
    }

    /// Adds one document: its name and its weighted texts.
    pub(crate) fn add(&mut self, name: &str, fields: Vec<(f32, String)>) {
        let doc = self.lengths.len() as u32;
        let mut counts: Vec<(u32, f32)> = Vec::new();
        let mut length = 0.0;
        for (weight, text) in &fields {
            each_token(text, &mut |word| {
                let next = self.words.len() as u32;
                let id = match self.words.get(word) {
                    Some(&id) => id,
                    None => {
                        self.words.insert(word.to_string(), next);
                        self.postings.push(Vec::new());
                        next
                    }
                };
                counts.push((id, *weight));
                length += weight;
            });
        }
        counts.sort_unstable_by_key(|&(id, _)| id);
        let mut i = 0;
        while i < counts.len() {
            let id = counts[i].0;
            let mut tf = 0.0;
            while i < counts.len() && counts[i].0 == id {
                tf += counts[i].1;
                i += 1;
            }
            self.postings[id as usize].push((doc, tf));
        }
        self.names.insert(name.to_ascii_lowercase(), doc as usize);
        self.lengths.push(length);
        self.scales.push(0.0);
        self.vectors.resize(self.vectors.len() + self.dimension, 0);
        let n = self.lengths.len() as f32;
        self.mean_length += (length - self.mean_length) / n;
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Gives the `index`th tool its vector (of its
    /// [`embedding_text`](super::embedding_text), by an [`Embedder`](super::Embedder)):
    /// [`search_with`](ToolIndex::search_with) then ranks it by meaning too. Every vector
    /// of an index has one length; it is normalized here.
    pub fn set_vector(&mut self, index: usize, vector: Vec<f32>) -> Result<(), VectorError> {
        if index >= self.scales.len() {
            return Err(VectorError::NoSuchTool(index));
        }
        if self.dimension != 0 && self.dimension != vector.len() {
            return Err(VectorError::Length { expected: self.dimension, got: vector.len() });
        }
        let vector = super::embed::normalized(vector).ok_or(VectorError::NoDirection)?;
        if self.dimension == 0 {
            self.dimension = vector.len();
            self.vectors = vec![0; self.scales.len() * self.dimension];
        }
        let at = index * self.dimension;
        self.scales[index] = super::embed::quantize(&vector, &mut self.vectors[at..at + self.dimension]);
        Ok(())
    }

    /// Whether the `index`th tool has its vector.
    pub fn has_vector(&self, index: usize) -> bool {
        self.scales.get(index).is_some_and(|&s| s > 0.0)
    }

    /// Drops every vector (another model's are coming).
    pub(crate) fn clear_vectors(&mut self) {
        self.vectors = Vec::new();
        self.scales.iter_mut().for_each(|s| *s = 0.0);
        self.dimension = 0;
    }

    /// Takes the vectors of `old`, an index of the same tools in the same order (and
    /// perhaps fewer: the tools added since have none), rebuilt for other words.
    pub(crate) fn adopt_vectors(&mut self, old: ToolIndex) {
        let n = self.scales.len();
        let (mut vectors, mut scales, dimension) = (old.vectors, old.scales, old.dimension);
        vectors.resize(n * dimension, 0);
        scales.resize(n, 0.0);
        (self.vectors, self.scales, self.dimension) = (vectors, scales, dimension);
    }

    /// The length of the index's vectors, once it has one.
    pub fn dimension(&self) -> Option<usize> {
        (self.dimension != 0).then_some(self.dimension)
    }

    /// The `limit` tools that best match `query`, best first; none when no word of the
    /// query is in any tool. A query that names a tool exactly puts it first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        self.search_with(query, None, limit)
    }

    /// [`search`](ToolIndex::search), ranking by meaning too when `vector` (the query's,
    /// by the model that made the tools' vectors) is given: the ranking by words and the
    /// ranking of the tools that have vectors by cosine are fused by reciprocal rank, so
    /// a tool found by either way can come first, and one found by both comes before
    /// either. A query that names a tool exactly still puts it first. A vector of
    /// another length than the tools' is ignored.
    pub fn search_with(&self, query: &str, vector: Option<&[f32]>, limit: usize) -> Vec<Hit> {
        if self.is_empty() || limit == 0 {
            return Vec::new();
        }
        let vector = vector.filter(|v| Some(v.len()) == self.dimension());
        let Some(vector) = vector.and_then(|v| super::embed::normalized(v.to_vec())) else {
            return self.lexical(query, limit);
        };
        let mut quantized = vec![0i8; self.dimension];
        let scale = super::embed::quantize(&vector, &mut quantized);
        let depth = FUSION_DEPTH.max(limit.saturating_mul(10));
        let mut fused: HashMap<usize, f32> = HashMap::new();
        let mut named = Vec::new();
        for (rank, hit) in self.lexical(query, depth).into_iter().enumerate() {
            if hit.score >= NAMED {
                named.push(hit.index);
            }
            *fused.entry(hit.index).or_default() += 1.0 / (FUSION_K + rank as f32 + 1.0);
        }
        let mut close: Vec<Hit> = self
            .vectors
            .chunks_exact(self.dimension)
            .zip(&self.scales)
            .enumerate()
            .filter(|(_, (_, tool_scale))| **tool_scale > 0.0)
            .map(|(index, (v, tool_scale))| Hit {
                index,
                score: super::embed::dot(v, &quantized) as f32 * scale * tool_scale,
            })
            .collect();
        top(&mut close, depth);
        for (rank, hit) in close.into_iter().enumerate() {
            *fused.entry(hit.index).or_default() += 1.0 / (FUSION_K + rank as f32 + 1.0);
        }
        for index in named {
            *fused.entry(index).or_default() += NAMED;
        }
        let mut hits: Vec<Hit> = fused.into_iter().map(|(index, score)| Hit { index, score }).collect();
        top(&mut hits, limit);
        hits
    }

    /// The ranking by words alone (BM25).
    fn lexical(&self, query: &str, limit: usize) -> Vec<Hit> {
        let mut words: Vec<u32> = Vec::new();
        each_token(query, &mut |word| words.extend(self.words.get(word)));
        words.sort_unstable();
        words.dedup();
        let n = self.lengths.len() as f32;
        let mut scores = vec![0f32; self.lengths.len()];
        let mut touched = Vec::new();
        for &word in &words {
            let postings = &self.postings[word as usize];
            let idf = (1.0 + (n - postings.len() as f32 + 0.5) / (postings.len() as f32 + 0.5)).ln();
            for &(doc, tf) in postings {
                let doc = doc as usize;
                let norm = K1 * (1.0 - B + B * self.lengths[doc] / self.mean_length.max(1.0));
                if scores[doc] == 0.0 {
                    touched.push(doc);
                }
                scores[doc] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        // A tool named in the query, as written (`get_weather`), comes first.
        let query = query.to_ascii_lowercase();
        let named: Vec<usize> = query
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .filter(|w| !w.is_empty())
            .filter_map(|w| self.names.get(w).copied())
            .collect();
        for doc in named {
            if scores[doc] == 0.0 {
                touched.push(doc);
            }
            scores[doc] += NAMED;
        }
        let mut hits: Vec<Hit> = touched.into_iter().map(|index| Hit { index, score: scores[index] }).collect();
        top(&mut hits, limit);
        hits
    }
}

/// What a tool named in the query adds to its score: more than any ranking gives.
const NAMED: f32 = 1000.0;

/// Keeps the `limit` best hits, best first (ties: the earlier tool first).
fn top(hits: &mut Vec<Hit>, limit: usize) {
    let by_score = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index));
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, by_score);
        hits.truncate(limit);
    }
    hits.sort_by(by_score);
}
