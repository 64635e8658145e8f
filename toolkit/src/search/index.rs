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

    /// The `limit` tools that best match `query`, best first; none when no word of the
    /// query is in any tool. A query that names a tool exactly puts it first.
    pub fn search(&self, query: &str, limit: usize) -> Vec<Hit> {
        if self.is_empty() || limit == 0 {
            return Vec::new();
        }
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
            scores[doc] += 1000.0;
        }
        let mut hits: Vec<Hit> = touched.into_iter().map(|index| Hit { index, score: scores[index] }).collect();
        let by_score = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.index.cmp(&b.index));
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, by_score);
            hits.truncate(limit);
        }
        hits.sort_by(by_score);
        hits
    }
}
