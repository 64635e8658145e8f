//! Tool search over a large toolbox: building the index of 10,000 tools, one search in
//! it, and what deferring saves on the first request of a 1,000-tool toolbox (the bytes
//! of the `tools` array each provider gets, and its tokens for OpenAI's tokenizer,
//! printed once). `cargo bench --bench
//! tool_search`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolkit::Target;
use toolkit::search::ToolIndex;

#[path = "support/catalog.rs"]
mod catalog;
use catalog::tools;

/// What deferring saves on the first request of a 1,000-tool toolbox: the `tools`
/// array's bytes for three providers, and its tokens in `o200k_base` (the tokenizer of
/// OpenAI's GPT-4o and GPT-5 models, by `tiktoken-rs`).
fn first_request_size() {
    let o200k = tiktoken_rs::o200k_base().unwrap();
    for target in [Target::OpenAiResponses, Target::Anthropic, Target::Gemini] {
        let (all, first) = catalog::first_request_tools(1000, target);
        let saved = 100.0 * (1.0 - first.len() as f64 / all.len() as f64);
        eprintln!(
            "1,000 tools, {target}: first request's tools {} bytes in full, {} deferred ({saved:.1}% fewer)",
            all.len(),
            first.len()
        );
        if target == Target::OpenAiResponses {
            let (all, first) = (o200k.encode_ordinary(&all).len(), o200k.encode_ordinary(&first).len());
            let saved = 100.0 * (1.0 - first as f64 / all as f64);
            eprintln!("1,000 tools, {target}: {all} tokens (o200k_base) in full, {first} deferred ({saved:.1}% fewer)");
        }
    }
}

fn bench(c: &mut Criterion) {
    first_request_size();
    let specs = tools(10_000);
    c.bench_function("index 10,000 tools", |b| b.iter(|| black_box(ToolIndex::new(specs.iter()))));
    let index = ToolIndex::new(specs.iter());
    let queries = [
        "refund the customer's last payment",
        "send a message to the support team",
        "which server alerts fired in monitoring",
        "archive old photos",
    ];
    c.bench_function("search 10,000 tools", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(index.search(queries[i], 5))
        })
    });
    // By words and meaning: every tool with a 384-number vector (all-MiniLM-L6-v2's
    // length; the numbers are pseudo-random, which costs the same as a model's), the
    // query's given (embedding it is the embedder's time, not the index's).
    let mut hybrid = index.clone();
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut vector = || -> Vec<f32> {
        (0..384)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                (seed >> 40) as f32 / (1u64 << 24) as f32 - 0.5
            })
            .collect()
    };
    for i in 0..specs.len() {
        hybrid.set_vector(i, vector()).unwrap();
    }
    let query_vectors: Vec<Vec<f32>> = queries.iter().map(|_| vector()).collect();
    c.bench_function("search 10,000 tools by words and meaning", |b| {
        let mut i = 0;
        b.iter(|| {
            i = (i + 1) % queries.len();
            black_box(hybrid.search_with(queries[i], Some(&query_vectors[i]), 5))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
