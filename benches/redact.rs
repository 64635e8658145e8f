//! Redaction throughput on 50 MB: the project's own corpora (secrets and look-alikes,
//! repeated: text dense with secrets), service logs (a secret or an address in one line
//! of 25) and plain prose with no secret. `cargo bench --bench redact`.

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

/// Service logs: requests, queries, jobs and JSON events with ids, paths, durations and
/// addresses; one line in 25 holds a secret or personal data. Deterministic.
fn logs() -> String {
    let mut out = String::with_capacity(SIZE + 512);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut line = 0u64;
    while out.len() < SIZE {
        let (r, id) = (next(), next());
        let time =
            format!("2024-05-{:02}T{:02}:{:02}:{:02}.{:03}Z", 1 + r % 28, r % 24, r % 60, (r >> 8) % 60, r % 1000);
        let ip = format!("10.{}.{}.{}", r % 256, (r >> 8) % 256, 1 + (r >> 16) % 254);
        let text = match (line % 25, r % 6) {
            (0, _) => match (r >> 3) % 5 {
                0 => format!("{time} INFO  auth: login ok user=ana.silva{}@example.com ip={ip}", id % 1000),
                1 => format!("{time} DEBUG http: > Authorization: Bearer {:016x}{:016x}", id, r),
                2 => format!("{time} WARN  config: DATABASE_URL=postgres://app:Pw{:08x}@db.internal:5432/app", id),
                3 => format!("{time} INFO  notify: sms sent to +49 30 {:04} {:04}", id % 10_000, r % 10_000),
                _ => {
                    format!("{time} DEBUG payments: {{\"customer\":\"cus_{id:x}\",\"email\":\"billing@shop.example\"}}")
                }
            },
            (_, 0) => format!(
                "{time} INFO  http: GET /api/v1/orders/{} 200 {}ms req_id={:016x} ip={ip}",
                id % 1_000_000,
                r % 900,
                id
            ),
            (_, 1) => format!(
                "{time} WARN  db: slow query ({}ms): SELECT id, status FROM orders WHERE customer_id = {} LIMIT 50",
                200 + r % 3000,
                id % 100_000
            ),
            (_, 2) => format!(
                "{time} DEBUG worker: {{\"event\":\"job.done\",\"job_id\":\"{:012x}\",\"attempt\":{},\"queue\":\"emails\",\"elapsed_ms\":{}}}",
                id,
                1 + r % 3,
                r % 5000
            ),
            (_, 3) => format!(
                "{time} ERROR payment: card declined for order {} (code 51), retrying in {}s",
                id % 1_000_000,
                r % 30
            ),
            (_, 4) => format!(
                "{time} INFO  cache: hit ratio {}.{}% over {} keys, evicted {}",
                r % 100,
                id % 10,
                id % 100_000,
                r % 500
            ),
            _ => format!(
                "{time} INFO  k8s: pod api-{:08x}-{:05x} ready in {}ms on node ip-{}",
                id,
                r % 0xfffff,
                r % 4000,
                ip.replace('.', "-")
            ),
        };
        out.push_str(&text);
        out.push('\n');
        line += 1;
    }
    out
}

fn redact(c: &mut Criterion) {
    let r = Redactor::new();
    let mut group = c.benchmark_group("redact_50MB");
    group.sample_size(10).measurement_time(Duration::from_secs(20)).throughput(Throughput::Bytes(SIZE as u64));
    let mixed = corpus();
    group.bench_function("corpus", |b| b.iter(|| black_box(r.redact(black_box(&mixed))).len()));
    let logs = logs();
    group.bench_function("logs", |b| b.iter(|| black_box(r.redact(black_box(&logs))).len()));
    let prose = repeat("The quarterly report was sent to the team on Monday; revenue grew 12% to 4.2 million. ");
    group.bench_function("prose", |b| b.iter(|| black_box(r.redact(black_box(&prose))).len()));
    group.finish();
}

criterion_group!(benches, redact);
criterion_main!(benches);
