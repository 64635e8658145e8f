//! Searching by meaning as well as by words: an [`Embedder`] turns texts into vectors
//! whose cosine says how alike their meanings are ("book a table" and
//! `make_restaurant_reservation` share no word, but their vectors are close).
//!
//! A toolbox given one ([`Toolbox::with_embedder`](crate::Toolbox::with_embedder))
//! embeds each deferred tool's [`embedding_text`] once, at its first search, and each
//! query as it comes; `search_tools` then ranks by both the words (BM25) and the vectors,
//! fused by reciprocal rank ([`ToolIndex::search_with`](super::ToolIndex::search_with)).
//! Which model, where it runs and what it costs are the embedder's: a provider's API
//! ([`OpenAiEmbeddings`](crate::model::OpenAiEmbeddings), with the `openai` feature, for
//! OpenAI and the servers that speak its API: vLLM, Ollama, LM Studio, text-embeddings-
//! inference) or a model of your own behind the trait.

use futures_util::future::BoxFuture;

use crate::spec::ToolSpec;

/// Turns texts into vectors of one model, whose cosine says how alike their meanings
/// are: what [`search_tools`](crate::search) ranks by besides words.
///
/// ```
/// use futures_util::future::BoxFuture;
/// use toolkit::search::{EmbedError, Embedder};
///
/// /// A stand-in: counts of three letters (a real embedder calls a model).
/// struct Letters;
///
/// impl Embedder for Letters {
///     fn model(&self) -> &str {
///         "letters-v1"
///     }
///
///     fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>> {
///         let vectors = texts.iter().map(|t| ['a', 'e', 'o'].map(|c| t.matches(c).count() as f32).to_vec()).collect();
///         Box::pin(async move { Ok(vectors) })
///     }
/// }
/// ```
pub trait Embedder: Send + Sync + 'static {
    /// The model and its version: vectors of different models are never compared.
    fn model(&self) -> &str;

    /// One vector per text, in order, all of one length. They need not be normalized.
    fn embed<'a>(&'a self, texts: &'a [String]) -> BoxFuture<'a, Result<Vec<Vec<f32>>, EmbedError>>;
}

/// `embedder`'s vectors of `texts`, if it gave one per text (a vector missing would put
/// every later one on the wrong text).
pub(crate) async fn each(embedder: &dyn Embedder, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
    let vectors = embedder.embed(texts).await?;
    if vectors.len() != texts.len() {
        return Err(EmbedError(format!(
            "`{}` gave {} vectors for {} texts",
            embedder.model(),
            vectors.len(),
            texts.len()
        )));
    }
    Ok(vectors)
}

/// Why texts could not be embedded (the search then ranks by words alone).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("embedding failed: {0}")]
pub struct EmbedError(pub String);

/// The text a tool is embedded by: its name as words, its description, and its
/// parameters' names, each with its description when it has one (`get weather: Current
/// weather for a city. Parameters: city (The city, such as Paris), unit.`).
///
/// Public so that vectors can be computed ahead of time, elsewhere, for exactly the text
/// the index will ask for.
pub fn embedding_text(spec: &ToolSpec) -> String {
    let mut text = words(&spec.name);
    text.push_str(": ");
    text.push_str(spec.description.trim());
    let params: Vec<String> = spec
        .input_schema
        .get("properties")
        .and_then(serde_json::Value::as_object)
        .map(|properties| {
            properties
                .iter()
                .map(|(name, property)| {
                    match property.get("description").and_then(serde_json::Value::as_str).map(str::trim) {
                        Some(about) if !about.is_empty() => {
                            format!("{} ({})", words(name), about.trim_end_matches('.'))
                        }
                        _ => words(name),
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    if !params.is_empty() {
        text.push_str(" Parameters: ");
        text.push_str(&params.join(", "));
        text.push('.');
    }
    text
}

/// An identifier as words: `get_current_weather`, `getCurrentWeather` → `get current
/// weather`.
fn words(identifier: &str) -> String {
    let mut out = String::with_capacity(identifier.len() + 4);
    let mut prev_lower = false;
    for c in identifier.chars() {
        if c == '_' || c == '-' || c == '.' {
            if !out.ends_with(' ') && !out.is_empty() {
                out.push(' ');
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_lowercase());
    }
    out.trim_end().to_owned()
}

/// `v` scaled to length 1; `None` if it has no direction (all zero) or is not finite.
pub(crate) fn normalized(mut v: Vec<f32>) -> Option<Vec<f32>> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return None;
    }
    v.iter_mut().for_each(|x| *x /= norm);
    Some(v)
}

/// `v` as `i8`s (written to `out`), and the scale that turns them back: `v[i] ≈ out[i] *
/// scale`, the largest component at ±127.
pub(crate) fn quantize(v: &[f32], out: &mut [i8]) -> f32 {
    let largest = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if largest == 0.0 {
        out.fill(0);
        return 0.0;
    }
    let scale = largest / 127.0;
    for (q, x) in out.iter_mut().zip(v) {
        *q = (x / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

/// The dot product of two quantized vectors (times their scales: the cosine).
#[inline]
pub(crate) fn dot(a: &[i8], b: &[i8]) -> i32 {
    // Sixteen running sums: the compiler keeps them in vector registers (products of
    // `i8`s widened to `i32`); one running sum would not be vectorized as well.
    const LANES: usize = 16;
    let mut acc = [0i32; LANES];
    let (ca, cb) = (a.chunks_exact(LANES), b.chunks_exact(LANES));
    let tail: i32 = ca.remainder().iter().zip(cb.remainder()).map(|(&x, &y)| i32::from(x) * i32::from(y)).sum();
    for (x, y) in ca.zip(cb) {
        for i in 0..LANES {
            acc[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    acc.iter().sum::<i32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_read_as_words() {
        assert_eq!(words("get_current_weather"), "get current weather");
        assert_eq!(words("getCurrentWeather"), "get current weather");
        assert_eq!(words("HTTPGet"), "httpget");
        assert_eq!(words("math.factorial"), "math factorial");
        assert_eq!(words("a__b_"), "a b");
    }

    #[test]
    fn the_text_has_name_description_and_parameters() {
        let spec = ToolSpec::new(
            "get_weather",
            " Current weather for a city. ",
            serde_json::json!({"type": "object", "properties": {"city": {}, "unit_name": {}}}),
        );
        assert_eq!(embedding_text(&spec), "get weather: Current weather for a city. Parameters: city, unit name.");
        let bare = ToolSpec::new("ping", "Ping.", serde_json::json!({"type": "object"}));
        assert_eq!(embedding_text(&bare), "ping: Ping.");
    }

    #[test]
    fn vectors_are_normalized_or_refused() {
        assert_eq!(normalized(vec![3.0, 4.0]), Some(vec![0.6, 0.8]));
        assert_eq!(normalized(vec![0.0, 0.0]), None);
        assert_eq!(normalized(vec![f32::NAN, 1.0]), None);
        let a: Vec<i8> = (0..37).map(|i| i - 18).collect();
        assert_eq!(dot(&a, &a), (0..37).map(|i| (i - 18) * (i - 18)).sum::<i32>());
        let mut q = [0i8; 3];
        let scale = quantize(&[0.5, -1.0, 0.25], &mut q);
        assert_eq!(q, [64, -127, 32]);
        assert!((scale - 1.0 / 127.0).abs() < 1e-9);
    }
}
