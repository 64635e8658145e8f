//! A tool result's parts over MCP, both ways: `McpServer` sends `image`, `audio`,
//! `resource` (embedded, the bytes in `blob` or a text file's `text`) and
//! `resource_link` content blocks with their annotations, as the official Python client
//! reads them (both protocol eras); `McpTools` imports them back as parts. The bytes are
//! checked by SHA-256 on every path.

mod support;

use serde_json::json;
use support::media::{PDF, PNG, WAV, hashes, sha, sha64};
use support::python_client;
use toolkit::mcp::{McpServer, McpTools};
use toolkit::parts::{Audio, ContentAnnotations, File, Image, Part, PartKind, ResourceLink};
use toolkit::prelude::*;

/// The quarterly report: a summary, the chart (for the user, first), the PDF, a
/// recording, the figures as CSV and a link to the spreadsheet.
#[tool(read_only)]
fn report() -> Output {
    let for_user = ContentAnnotations { audience: vec!["user".into()], priority: Some(1.0), ..Default::default() };
    Output::text("Q3: revenue 120")
        .with_part(Image::png(PNG).with_annotations(for_user))
        .with_part(File::pdf("q3.pdf", PDF))
        .with_part(Audio::wav(WAV))
        .with_part(File::new("q3.csv", "text/csv", "region,revenue\nwest,120\n"))
        .with_part(
            ResourceLink::new("file:///reports/q3.xlsx", "q3.xlsx")
                .with_mime_type("application/vnd.ms-excel")
                .with_description("The figures")
                .with_size(2048),
        )
}

/// Just the chart.
#[tool(read_only)]
fn chart() -> Image {
    Image::png(PNG)
}

#[test]
fn the_python_client_reads_each_block_with_its_bytes() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let http = runtime.block_on(McpServer::new(toolbox![report, chart]).bind_http("127.0.0.1:0")).unwrap();
    let target = ["--url".to_owned(), http.url()];
    runtime.spawn(http.run());
    let calls = json!([["report", {}], ["chart", {}]]);
    for mode in ["modern", "legacy"] {
        let Some(report) = python_client(mode, &calls, &target) else { return };
        let result = &report["calls"][0]["result"];
        assert_eq!(result["isError"], false, "{result}");
        let blocks = result["content"].as_array().unwrap();
        assert_eq!(blocks[0], json!({"type": "text", "text": "Q3: revenue 120"}));
        assert_eq!((blocks[1]["type"].as_str(), blocks[1]["mimeType"].as_str()), (Some("image"), Some("image/png")));
        assert_eq!(sha64(&blocks[1]["data"]), sha(PNG));
        assert_eq!(blocks[1]["annotations"], json!({"audience": ["user"], "priority": 1.0}));
        assert_eq!(blocks[2]["type"], "resource");
        assert_eq!(blocks[2]["resource"]["uri"], "toolkit:attachment/q3.pdf");
        assert_eq!(blocks[2]["resource"]["mimeType"], "application/pdf");
        assert_eq!(sha64(&blocks[2]["resource"]["blob"]), sha(PDF));
        assert_eq!((blocks[3]["type"].as_str(), blocks[3]["mimeType"].as_str()), (Some("audio"), Some("audio/wav")));
        assert_eq!(sha64(&blocks[3]["data"]), sha(WAV));
        assert_eq!(blocks[4]["resource"]["text"], "region,revenue\nwest,120\n", "a text file goes as text");
        assert_eq!(
            blocks[5],
            json!({"type": "resource_link", "uri": "file:///reports/q3.xlsx", "name": "q3.xlsx",
                   "description": "The figures", "mimeType": "application/vnd.ms-excel", "size": 2048})
        );
        // An image alone: no empty text block before it.
        let chart = report["calls"][1]["result"]["content"].as_array().unwrap().clone();
        assert_eq!(chart.len(), 1, "{chart:?}");
        assert_eq!(sha64(&chart[0]["data"]), sha(PNG));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imported_tools_bring_their_parts_back_unchanged() {
    let http = McpServer::new(toolbox![report, chart]).bind_http("127.0.0.1:0").await.unwrap();
    let url = http.url();
    tokio::spawn(http.run());
    let remote = McpTools::connect_http(&url).await.expect("connects");
    let mut tools = Toolbox::new();
    remote.add_to(&mut tools).unwrap();
    let r = tools.call(ToolCall::new("1", "report", "{}")).await;
    assert!(!r.is_error(), "{r:?}");
    assert_eq!(r.content, "Q3: revenue 120");
    let kinds: Vec<PartKind> = r.parts.iter().map(Part::kind).collect();
    assert_eq!(kinds, [PartKind::Image, PartKind::File, PartKind::Audio, PartKind::File, PartKind::ResourceLink]);
    assert_eq!(hashes(&r.parts)[..3], [Some(sha(PNG)), Some(sha(PDF)), Some(sha(WAV))]);
    let Part::Image(image) = &r.parts[0] else { unreachable!() };
    assert_eq!(image.annotations().unwrap().audience, ["user"]);
    let Part::File(pdf) = &r.parts[1] else { unreachable!() };
    assert_eq!((pdf.name(), pdf.mime_type(), pdf.uri()), ("q3.pdf", "application/pdf", None));
    let Part::File(csv) = &r.parts[3] else { unreachable!() };
    assert_eq!(
        (csv.name(), csv.mime_type(), csv.as_text()),
        ("q3.csv", "text/csv", Some("region,revenue\nwest,120\n"))
    );
    let Part::ResourceLink(link) = &r.parts[4] else { unreachable!() };
    assert_eq!((link.size, link.description.as_deref()), (Some(2048), Some("The figures")));

    let chart = tools.call(ToolCall::new("2", "chart", "{}")).await;
    assert_eq!((chart.content.as_str(), chart.parts.len()), ("", 1));
    remote.close().await;
}
