//! Redaction throughput on 50 MB: the project's own corpora (secrets and look-alikes,
//! repeated) and plain prose with no secret. `cargo bench --bench redact`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use toolkit::hooks::Redactor;

const SIZE: usize = 50_000_000;

fn corpus() -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/redact");
    let secrets = std::fs::read_to_string(format!("{dir}/secrets.txt")).expect("secrets corpus");
    let clean = std::fs::read_to_string(format!("{dir}/clean.txt")).expect("clean corpus");
    let text = format!("{secrets}\n{clean}\n").replace(['⟦', '⟧'], "");
    repeat(&text)
}

fn repeat(unit: &str) -> String {
    let mut out = String::with_capacity(SIZE + unit.len());
    while out.len() < SIZE {
        out.push_str(unit);
    }
    out
}

fn redact(c: &mut Criterion) {
    let r = Redactor::new();
    let mut group = c.benchmark_group("redact_50MB");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Bytes(SIZE as u64));
    let mixed = corpus();
    group.bench_function("corpus", |b| b.iter(|| black_box(r.redact(black_box(&mixed))).len()));
    let prose = repeat("The quarterly report was sent to the team on Monday; revenue grew 12% to 4.2 million. ");
    group.bench_function("prose", |b| b.iter(|| black_box(r.redact(black_box(&prose))).len()));
    group.finish();
}

criterion_group!(benches, redact);
criterion_main!(benches);
