//! Tools that return more than text: images, audio, files and resource links, from the
//! `#[tool]` that returns them to what hooks, records, caches and transcripts see. Every
//! path checks the bytes by their SHA-256 against the fixtures in `tests/data/media`.
//! (The provider and MCP paths are in `parts_providers.rs` and `mcp_parts.rs`.)

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use support::media::{PDF, PNG, WAV, hashes, sha};
use toolkit::hooks::{Cache, Redactor, Truncate};
use toolkit::model::Message;
use toolkit::parts::{Audio, File, Image, Part, PartKind, ResourceLink};
use toolkit::prelude::*;
use toolkit::{Limits, Outcome};

/// Draw the revenue chart.
#[tool(read_only)]
fn chart() -> Image {
    Image::png(PNG)
}

/// The quarterly report: a summary, the chart, the PDF, a recording and a link.
#[tool(read_only)]
fn report() -> Output {
    Output::text("Q3: revenue 120")
        .with_part(Image::png(PNG))
        .with_part(File::pdf("q3.pdf", PDF))
        .with_part(Audio::wav(WAV))
        .with_part(ResourceLink::new("file:///reports/q3.xlsx", "q3.xlsx").with_mime_type("application/vnd.ms-excel"))
}

/// Two charts.
#[tool]
fn gallery() -> Vec<Part> {
    vec![Image::png(PNG).into(), Image::png(PNG).into()]
}

/// A chart, unless asked to fail.
#[tool]
async fn maybe_chart(fail: bool) -> Result<Image, String> {
    if fail { Err("no data for that quarter".into()) } else { Ok(Image::png(PNG)) }
}

/// A JPEG said to be a PNG.
#[tool]
fn mislabelled() -> Image {
    Image::png(&b"\xFF\xD8\xFF\xE0\0\x10JFIF\0"[..])
}

/// A file of `mib` MiB.
#[tool]
fn big(mib: usize) -> File {
    File::new("big.bin", "application/octet-stream", vec![0_u8; mib << 20])
}

/// Notes with a secret in their text and in an attached text file.
#[tool]
fn notes() -> Output {
    let secret = "sk_live_51Habcdefghijklmnopqrstuvwx";
    Output::text(format!("key: {secret}")).with_part(File::text("notes.txt", format!("key: {secret}")))
}

#[tokio::test]
async fn each_return_type_becomes_text_and_parts_with_the_bytes_unchanged() {
    let tools = toolbox![chart, report, gallery, maybe_chart];
    let r = tools.call(ToolCall::new("1", "chart", "{}")).await;
    assert_eq!((r.content.as_str(), r.is_error()), ("", false));
    assert_eq!(hashes(&r.parts), [Some(sha(PNG))]);

    let r = tools.call(ToolCall::new("2", "report", "{}")).await;
    assert_eq!(r.content, "Q3: revenue 120");
    let kinds: Vec<PartKind> = r.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, [PartKind::Image, PartKind::File, PartKind::Audio, PartKind::ResourceLink]);
    assert_eq!(hashes(&r.parts), [Some(sha(PNG)), Some(sha(PDF)), Some(sha(WAV)), None]);

    assert_eq!(tools.call(ToolCall::new("3", "gallery", "{}")).await.parts.len(), 2);
    let ok = tools.call(ToolCall::new("4", "maybe_chart", r#"{"fail": false}"#)).await;
    assert_eq!(hashes(&ok.parts), [Some(sha(PNG))]);
    let failed = tools.call(ToolCall::new("5", "maybe_chart", r#"{"fail": true}"#)).await;
    assert_eq!((failed.content.as_str(), failed.parts.len()), ("no data for that quarter", 0));
    // No output schema: the model gets the parts, not JSON.
    assert!(report::spec().output_schema.is_none());
}

#[tokio::test]
async fn bytes_that_contradict_their_type_are_an_error_the_model_reads() {
    let tools = toolbox![mislabelled];
    let r = tools.call(ToolCall::new("1", "mislabelled", "{}")).await;
    assert_eq!(r.kind(), Some(ErrorKind::ToolFailed));
    assert_eq!(r.content, "the tool produced an image it could not send");
    assert!(r.parts.is_empty());
    let detail = r.error.unwrap().detail.unwrap();
    assert_eq!(detail, "part 1 of the result: the bytes of this image/png part are image/jpeg");
}

#[tokio::test]
async fn a_result_over_the_limit_is_refused_with_its_size() {
    let tools = toolbox![big];
    let r = tools.call(ToolCall::new("1", "big", r#"{"mib": 21}"#)).await;
    assert_eq!(r.kind(), Some(ErrorKind::ResultTooLarge));
    assert!(r.content.starts_with("the result is 21.0 MiB, over the 20.0 MiB a result may be"), "{}", r.content);
    assert!(r.parts.is_empty(), "nothing of it goes out");
    assert!(!tools.call(ToolCall::new("2", "big", r#"{"mib": 1}"#)).await.is_error());

    let small = toolbox![big].with_limits(Limits { max_result_bytes: 1000, ..Limits::default() });
    assert_eq!(small.call(ToolCall::new("3", "big", r#"{"mib": 1}"#)).await.kind(), Some(ErrorKind::ResultTooLarge));
}

/// Keeps only the images.
#[hook(after)]
fn images_only(out: &mut AfterCall) {
    let images: Vec<Part> = out.parts().iter().filter(|p| p.kind() == PartKind::Image).cloned().collect();
    out.set_parts(images);
}

/// Adds a caption file.
#[hook(after)]
fn caption(out: &mut AfterCall) {
    let n = out.parts().len();
    out.parts_mut().push(File::text("caption.txt", format!("{n} parts")).into());
}

#[tokio::test]
async fn after_hooks_read_and_replace_parts() {
    let tools = toolbox![report].with_hooks(hooks![images_only, caption]);
    let r = tools.call(ToolCall::new("1", "report", "{}")).await;
    assert_eq!(r.content, "Q3: revenue 120");
    assert_eq!(r.parts.len(), 2);
    assert_eq!(hashes(&r.parts)[0], Some(sha(PNG)));
    assert!(matches!(&r.parts[1], Part::File(f) if f.as_text() == Some("1 parts")));
}

#[tokio::test]
async fn truncation_and_redaction_touch_the_text_only() {
    let tools = toolbox![report].with_hook(Truncate::chars(2));
    let r = tools.call(ToolCall::new("1", "report", "{}")).await;
    assert!(r.content.starts_with("Q3\n…[truncated"), "{}", r.content);
    assert_eq!(r.parts.len(), 4, "truncation counts text");

    let tools = toolbox![notes].with_hook(Redactor::new());
    let r = tools.call(ToolCall::new("2", "notes", "{}")).await;
    assert!(!r.content.contains("sk_live_"), "{}", r.content);
    // As documented: a part's bytes are not redacted.
    assert!(matches!(&r.parts[0], Part::File(f) if f.as_text().unwrap().contains("sk_live_")));
}

#[tokio::test]
async fn records_and_audit_lines_carry_a_summary_never_the_bytes() {
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let log = Arc::new(Mutex::new(Vec::<u8>::new()));
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let audit = toolkit::hooks::AuditLog::to_writer(Shared(Arc::clone(&log)));
    let tools =
        toolbox![report].with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.clone())).with_sink(audit.clone());
    let r = tools.call(ToolCall::new("1", "report", "{}")).await;
    assert_eq!(r.parts.len(), 4, "the result keeps its parts when a sink keeps the record");
    let record = records.lock().unwrap()[0].clone();
    assert_eq!(record.parts.len(), 4);
    assert_eq!(record.parts[0].sha256.as_deref(), Some(sha(PNG).as_str()));
    assert_eq!((record.parts[1].bytes, record.parts[1].name.as_deref()), (PDF.len() as u64, Some("q3.pdf")));
    assert_eq!(record.parts[3].uri.as_deref(), Some("file:///reports/q3.xlsx"));
    assert!(!serde_json::to_string(&record).unwrap().contains(&toolkit::parts::base64(PNG)));

    audit.flush().unwrap();
    let line: serde_json::Value = serde_json::from_slice(&log.lock().unwrap()).unwrap();
    assert_eq!(line["parts"][2]["kind"], "audio");
    assert_eq!(line["parts"][2]["mime_type"], "audio/wav");
    assert_eq!(line["parts"][2]["sha256"], sha(WAV));
    assert!(!line.to_string().contains(&toolkit::parts::base64(WAV)));
}

#[tokio::test]
async fn a_cache_hit_answers_with_the_same_parts() {
    let tools = toolbox![report].with_hook(Cache::ttl(Duration::from_secs(60)));
    let first = tools.call(ToolCall::new("1", "report", "{}")).await;
    let records = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&records);
    let tools = tools.with_sink(move |r: &CallRecord| sink.lock().unwrap().push(r.outcome));
    let second = tools.call(ToolCall::new("2", "report", "{}")).await;
    assert_eq!(records.lock().unwrap()[0], Outcome::Cached);
    assert_eq!((second.content.as_str(), hashes(&second.parts)), (first.content.as_str(), hashes(&first.parts)));
}

#[tokio::test]
async fn a_result_with_parts_survives_json_as_a_transcript_does() {
    let tools = toolbox![report];
    let r = tools.call(ToolCall::new("1", "report", "{}")).await;
    let back: ToolResult = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    assert_eq!(back, r);
    let message = Message::tool(&r);
    let json = serde_json::to_value(&message).unwrap();
    assert_eq!(json["parts"][0]["type"], "image");
    assert_eq!(json["parts"][0]["data"], toolkit::parts::base64(PNG));
    let back: Message = serde_json::from_value(json).unwrap();
    assert_eq!(back, message);
    // A text result's message is plain Chat Completions, as before.
    let plain = Message::tool(&ToolResult::ok("2", "now", "12:00"));
    assert!(serde_json::to_value(&plain).unwrap().get("parts").is_none());
    // The Chat Completions form of a result, for code that speaks it itself, names them.
    let text = r.to_message()["content"].as_str().unwrap().to_owned();
    assert!(
        text.starts_with("Q3: revenue 120\n[image/png image, 98 B]\n[file q3.pdf (application/pdf), 438 B]"),
        "{text}"
    );
}

#[tokio::test]
async fn call_ref_gives_the_output_with_its_parts() {
    let tools = toolbox![report, chart];
    let out = tools.call_ref(ToolCallRef::new("1", "report", "{}")).await.unwrap();
    assert_eq!((out.as_str(), out.parts().len()), ("Q3: revenue 120", 4));
    let out = tools.call_ref(ToolCallRef::new("2", "chart", "{}")).await.unwrap();
    assert_eq!(hashes(out.parts()), [Some(sha(PNG))]);
}

/// Pay an amount.
#[tool(destructive)]
fn pay(cents: u32) -> String {
    format!("paid {cents}")
}

/// A run paused for an approval keeps an image an earlier call returned: the state's
/// JSON carries its bytes, and after the resume the model gets them, unchanged.
#[tokio::test]
async fn a_paused_run_keeps_its_parts_through_json_and_the_resume() {
    use toolkit::agent::{Agent, AgentError};
    use toolkit::durable::RunState;
    use toolkit::hooks::ApprovalGate;

    let tools = Arc::new(toolbox![chart, pay].with_hook(ApprovalGate::deferring().destructive()));
    let first = Agent::builder(
        ScriptedModel::new([Turn::calls([("chart", "{}"), ("pay", r#"{"cents": 500}"#)])]),
        Arc::clone(&tools),
    )
    .build()
    .unwrap();
    let state = match first.run("Chart, then pay").await {
        Err(AgentError::Paused { state, .. }) => *state,
        other => panic!("expected a pause, got {other:?}"),
    };
    let json = state.to_json();
    assert!(json.contains(&toolkit::parts::base64(PNG)), "the state carries the image's bytes");
    let state = RunState::from_json(&json).unwrap();
    let approve = state.pending()[0].approve();

    let seen = Arc::new(Mutex::new(Vec::new()));
    let saw = Arc::clone(&seen);
    let check = Turn::with(move |request| {
        for message in request.messages {
            if let Message::Tool { parts, .. } = message {
                saw.lock().unwrap().extend(hashes(parts));
            }
        }
        Turn::text("Charted and paid.")
    });
    let second = Agent::builder(ScriptedModel::new([check]), Arc::clone(&tools)).build().unwrap();
    let run = second.resume(state, [approve]).await.unwrap();
    assert_eq!(run.text, "Charted and paid.");
    assert_eq!(*seen.lock().unwrap(), [Some(sha(PNG))]);
}

static LABELS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Print a shipping label (once: it buys postage).
#[tool(destructive)]
fn label() -> Output {
    LABELS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    Output::text("label 1").with_part(File::pdf("label.pdf", PDF))
}

#[tokio::test]
async fn the_effect_ledger_replays_a_finished_call_with_its_parts() {
    use toolkit::hooks::{EffectLedger, MemoryStore};
    let tools = toolbox![label].with_hooks(EffectLedger::new(MemoryStore::new()));
    let first = tools.call(ToolCall::new("c1", "label", "{}")).await;
    let again = tools.call(ToolCall::new("c1", "label", "{}")).await;
    assert_eq!(LABELS.load(std::sync::atomic::Ordering::SeqCst), 1, "replayed, not run again");
    assert_eq!(again.content, "label 1");
    assert_eq!(hashes(&again.parts), [Some(sha(PDF))]);
    assert_eq!(again.parts, first.parts);
}
