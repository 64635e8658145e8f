//! The macros expand and run with `toolkit` depended on as `tk`.

use tk::ToolCall;

#[tokio::test]
async fn tools_and_hooks_work_under_a_renamed_dependency() {
    let tools = toolkit_renamed_test::toolbox();
    assert_eq!(tools.names(), ["add", "read_note"]);
    assert_eq!(tools.hooks().names(), ["no_negative", "observe"]);
    let r = tools.call(ToolCall::new("1", "add", r#"{"a": 2, "b": 40}"#)).await;
    assert_eq!(r.content, "42");
    let r = tools.call(ToolCall::new("2", "add", r#"{"a": -2, "b": 40}"#)).await;
    assert_eq!(r.content, "blocked: negative numbers are not allowed");
    let r = tools.call(ToolCall::new("3", "read_note", r#"{"title": "plans"}"#)).await;
    assert_eq!(r.content, "the note `plans`");
}
