//! A tool result's parts as each model API gets them, against local servers speaking
//! each API: the agent runs a tool that returns text, a PNG, a PDF, a WAV recording and a
//! resource link, and the next request must carry each part in that API's shape, with
//! the bytes unchanged (checked by SHA-256 after decoding), and a line the model reads
//! for each part the API does not take.

mod support;

use std::time::Duration;

use serde_json::json;
use support::media::{PDF, PNG, WAV, sha, sha_url, sha64};
use support::provider::{Provider, ok};
use toolkit::agent::Agent;
use toolkit::model::{Anthropic, Gemini, OpenAiCompatible, OpenAiResponses};
use toolkit::parts::{Audio, File, Image, ResourceLink};
use toolkit::prelude::*;

/// The quarterly report: a summary, the chart, the PDF, a recording and a link.
#[tool(read_only)]
fn report() -> Output {
    Output::text("Q3: revenue 120")
        .with_part(Image::png(PNG))
        .with_part(File::pdf("q3.pdf", PDF))
        .with_part(Audio::wav(WAV))
        .with_part(ResourceLink::new("file:///reports/q3.xlsx", "q3.xlsx"))
}

#[tokio::test]
async fn anthropic_gets_image_and_document_blocks_in_the_tool_result() {
    let call = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "report", "input": {}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 5}});
    let done = json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "claude-opus-4-7",
        "content": [{"type": "text", "text": "Revenue was 120."}],
        "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 5}});
    let server = Provider::start("/v1/messages", [ok(call), ok(done)]).await;
    let model = Anthropic::builder()
        .base_url(&server.base_url)
        .api_key("sk-ant-test")
        .model("claude-opus-4-7")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let run = Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    assert_eq!(run.text, "Revenue was 120.");
    let body = &server.received()[1].body;
    let result = &body["messages"][2]["content"][0];
    assert_eq!((result["type"].as_str(), result["tool_use_id"].as_str()), (Some("tool_result"), Some("toolu_1")));
    let blocks = result["content"].as_array().unwrap();
    assert_eq!(blocks[0], json!({"type": "text", "text": "Q3: revenue 120"}));
    assert_eq!(blocks[1]["type"], "image");
    assert_eq!(blocks[1]["source"]["media_type"], "image/png");
    assert_eq!(sha64(&blocks[1]["source"]["data"]), sha(PNG));
    assert_eq!(blocks[2]["type"], "document");
    assert_eq!(blocks[2]["title"], "q3.pdf");
    assert_eq!(blocks[2]["source"]["media_type"], "application/pdf");
    assert_eq!(sha64(&blocks[2]["source"]["data"]), sha(PDF));
    // Audio: the Messages API takes none in a tool result; the model is told.
    assert_eq!(
        blocks[3],
        json!({"type": "text", "text": "[audio/wav audio, 1.6 KiB] (not shown: the Messages API takes no audio in a tool result)"})
    );
    assert_eq!(blocks[4], json!({"type": "text", "text": "[resource link: q3.xlsx <file:///reports/q3.xlsx>]"}));
}

#[tokio::test]
async fn openai_responses_gets_input_image_and_input_file_in_the_output() {
    let call = json!({"status": "completed", "output": [
        {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "report", "arguments": "{}"}]});
    let done = json!({"status": "completed", "output": [
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "120."}]}]});
    let server = Provider::start("/v1/responses", [ok(call), ok(done)]).await;
    let model = OpenAiResponses::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("sk-test")
        .model("gpt-5")
        .build()
        .unwrap();
    let run = Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    assert_eq!(run.text, "120.");
    let input = server.received()[1].body["input"].as_array().unwrap().clone();
    let output = input.iter().find(|i| i["type"] == "function_call_output").unwrap();
    assert_eq!(output["call_id"], "call_1");
    let items = output["output"].as_array().unwrap();
    assert_eq!(items[0], json!({"type": "input_text", "text": "Q3: revenue 120"}));
    assert_eq!(items[1]["type"], "input_image");
    assert_eq!(sha_url(&items[1]["image_url"]), ("image/png".to_owned(), sha(PNG)));
    assert_eq!((items[2]["type"].as_str(), items[2]["filename"].as_str()), (Some("input_file"), Some("q3.pdf")));
    assert_eq!(sha_url(&items[2]["file_data"]), ("application/pdf".to_owned(), sha(PDF)));
    assert_eq!(items[3]["type"], "input_text");
    assert!(items[3]["text"].as_str().unwrap().contains("not shown: the Responses API takes no audio"), "{}", items[3]);
    assert_eq!(items[4]["text"], "[resource link: q3.xlsx <file:///reports/q3.xlsx>]");
}

#[tokio::test]
async fn gemini_gets_inline_data_inside_the_function_response() {
    let call = json!({"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "report", "args": {}, "id": "fc_1"}, "thoughtSignature": "sig"}]},
        "finishReason": "STOP"}]});
    let done =
        json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "120."}]}, "finishReason": "STOP"}]});
    let server = Provider::start("/v1beta/models/gemini-3-test:generateContent", [ok(call), ok(done)]).await;
    let model = Gemini::builder()
        .base_url(format!("{}/v1beta", server.base_url))
        .api_key("g-test")
        .model("gemini-3-test")
        .backoff(Duration::from_millis(5), Duration::from_millis(20))
        .build()
        .unwrap();
    let run = Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    assert_eq!(run.text, "120.");
    let contents = server.received()[1].body["contents"].as_array().unwrap().clone();
    let response = &contents[2]["parts"][0]["functionResponse"];
    assert_eq!((response["name"].as_str(), response["id"].as_str()), (Some("report"), Some("fc_1")));
    assert_eq!(
        response["response"]["output"],
        "Q3: revenue 120\n[audio/wav audio, 1.6 KiB] (not shown: the Gemini API takes no audio in a tool result)\n\
         [resource link: q3.xlsx <file:///reports/q3.xlsx>]"
    );
    let inline = response["parts"].as_array().unwrap();
    assert_eq!(inline.len(), 2);
    assert_eq!(inline[0]["inlineData"]["mimeType"], "image/png");
    assert_eq!(inline[0]["inlineData"]["displayName"], "image_1.png");
    assert_eq!(sha64(&inline[0]["inlineData"]["data"]), sha(PNG));
    assert_eq!(inline[1]["inlineData"]["mimeType"], "application/pdf");
    assert_eq!(inline[1]["inlineData"]["displayName"], "q3.pdf");
    assert_eq!(sha64(&inline[1]["inlineData"]["data"]), sha(PDF));
}

#[tokio::test]
async fn chat_completions_gets_the_text_then_a_user_message_with_the_attachments() {
    let call = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "report", "arguments": "{}"}},
            {"id": "call_2", "type": "function", "function": {"name": "report", "arguments": "{\"x\": 1}"}}]}}]});
    let done = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "120."}}]});
    let server = Provider::start("/v1/chat/completions", [ok(call), ok(done)]).await;
    let model = OpenAiCompatible::builder().base_url(format!("{}/v1", server.base_url)).api_key("k").build().unwrap();
    let run = Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    assert_eq!(run.text, "120.");
    let messages = server.received()[1].body["messages"].as_array().unwrap().clone();
    // user, assistant (calls), tool, tool (the second call failed: an unknown argument),
    // then the attachments: nothing may come between the tool messages.
    let roles: Vec<&str> = messages.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "tool", "tool", "user"]);
    assert_eq!(
        messages[2]["content"],
        "Q3: revenue 120\n[image/png image, 98 B] (attached in the next user message)\n\
         [file q3.pdf (application/pdf), 438 B] (attached in the next user message)\n\
         [audio/wav audio, 1.6 KiB] (attached in the next user message)\n\
         [resource link: q3.xlsx <file:///reports/q3.xlsx>]"
    );
    let content = messages[4]["content"].as_array().unwrap();
    assert_eq!(content[0], json!({"type": "text", "text": "Attachments of the tool result call_1:"}));
    assert_eq!(content[1]["type"], "image_url");
    assert_eq!(sha_url(&content[1]["image_url"]["url"]), ("image/png".to_owned(), sha(PNG)));
    assert_eq!(content[2]["type"], "file");
    assert_eq!(content[2]["file"]["filename"], "q3.pdf");
    assert_eq!(sha_url(&content[2]["file"]["file_data"]), ("application/pdf".to_owned(), sha(PDF)));
    assert_eq!(content[3]["type"], "input_audio");
    assert_eq!(content[3]["input_audio"]["format"], "wav");
    assert_eq!(sha64(&content[3]["input_audio"]["data"]), sha(WAV));
    assert_eq!(content.len(), 4, "the link is in the text; the failed call has no parts");
}

#[tokio::test]
async fn a_text_only_result_is_sent_exactly_as_before() {
    let call = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "now", "arguments": "{}"}}]}}]});
    let done = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "noon"}}]});
    let server = Provider::start("/v1/chat/completions", [ok(call), ok(done)]).await;
    let model = OpenAiCompatible::builder().base_url(format!("{}/v1", server.base_url)).api_key("k").build().unwrap();
    Agent::builder(model, toolbox![now]).build().unwrap().run("Time?").await.unwrap();
    let messages = server.received()[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2], json!({"role": "tool", "tool_call_id": "call_1", "content": "12:00"}));
}

/// The time.
#[tool]
fn now() -> String {
    "12:00".into()
}

#[tokio::test]
async fn a_model_that_takes_fewer_kinds_reads_a_line_for_each_part_it_does_not_take() {
    use toolkit::parts::PartKind;
    // A text-only model behind Chat Completions: no attachments message at all.
    let call = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "report", "arguments": "{}"}}]}}]});
    let done = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "120."}}]});
    let server = Provider::start("/v1/chat/completions", [ok(call), ok(done)]).await;
    let model = OpenAiCompatible::builder()
        .base_url(format!("{}/v1", server.base_url))
        .api_key("k")
        .result_parts([])
        .build()
        .unwrap();
    Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    let messages = server.received()[1].body["messages"].as_array().unwrap().clone();
    assert_eq!(messages.len(), 3, "no user message of attachments: {messages:?}");
    let text = messages[2]["content"].as_str().unwrap();
    assert!(text.contains("[image/png image, 98 B] (not shown: this model takes no images)"), "{text}");
    assert!(text.contains("[file q3.pdf (application/pdf), 438 B] (not shown: this model takes no files)"), "{text}");

    // Images only, behind the Messages API: the PDF is named, the image sent.
    let call = json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "tool_use", "id": "toolu_1", "name": "report", "input": {}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 5, "output_tokens": 5}});
    let done = json!({"id": "msg_2", "type": "message", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": "120."}], "stop_reason": "end_turn", "usage": {"input_tokens": 5, "output_tokens": 5}});
    let server = Provider::start("/v1/messages", [ok(call), ok(done)]).await;
    let model = Anthropic::builder()
        .base_url(&server.base_url)
        .api_key("sk-ant-test")
        .result_parts([PartKind::Image, PartKind::ResourceLink])
        .build()
        .unwrap();
    Agent::builder(model, toolbox![report]).build().unwrap().run("Q3?").await.unwrap();
    let blocks = server.received()[1].body["messages"][2]["content"][0]["content"].as_array().unwrap().clone();
    let types: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["text", "image", "text"], "{blocks:?}");
    let text = blocks[0]["text"].as_str().unwrap();
    assert!(
        text.starts_with(
            "Q3: revenue 120\n[file q3.pdf (application/pdf), 438 B] (not shown: this model takes no files)\n"
        ),
        "{text}"
    );
    assert!(text.contains("[audio/wav audio, 1.6 KiB] (not shown: this model takes no audio)"), "{text}");
    assert_eq!(sha64(&blocks[1]["source"]["data"]), sha(PNG));
}
