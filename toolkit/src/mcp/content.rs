//! A result's [parts](crate::parts) as MCP content blocks, both ways: `image`, `audio`,
//! `resource` (an embedded resource: a [`File`]'s bytes, `blob` in base64 or `text`)
//! and `resource_link`, each with its annotations. Made through the blocks' JSON, which
//! the specification fixes, so rmcp's types stay an implementation detail.

use rmcp::model::ContentBlock;
use serde_json::{Value, json};

use crate::parts::{Audio, ContentAnnotations, File, Image, Part, ResourceLink, from_base64, is_text_type};

/// The URI of a file that has none: its name under a scheme that says it is a tool
/// result's attachment (the client takes the name back from it).
const ATTACHMENT: &str = "toolkit:attachment/";

/// The content blocks of a result: its text (when there is any, or when there is
/// nothing else), then each part in order.
pub(super) fn to_blocks(text: String, parts: &[Part]) -> Vec<ContentBlock> {
    let mut blocks = Vec::with_capacity(parts.len() + 1);
    if !text.is_empty() || parts.is_empty() {
        blocks.push(ContentBlock::text(text));
    }
    for part in parts {
        match serde_json::from_value::<ContentBlock>(block_json(part)) {
            Ok(block) => blocks.push(block),
            // Not expected (the JSON is the specification's); the model still hears of it.
            Err(e) => {
                tracing::warn!(error = %e, "a result part could not be made an MCP content block");
                blocks.push(ContentBlock::text(part.describe()));
            }
        }
    }
    blocks
}

fn block_json(part: &Part) -> Value {
    let mut block = match part {
        Part::Image(i) => json!({"type": "image", "data": i.base64(), "mimeType": i.mime_type()}),
        Part::Audio(a) => json!({"type": "audio", "data": a.base64(), "mimeType": a.mime_type()}),
        Part::File(f) => {
            let uri = f.uri().map_or_else(|| format!("{ATTACHMENT}{}", f.name()), str::to_owned);
            let resource = match f.as_text() {
                Some(text) => json!({"uri": uri, "mimeType": f.mime_type(), "text": text}),
                None => json!({"uri": uri, "mimeType": f.mime_type(), "blob": f.base64()}),
            };
            json!({"type": "resource", "resource": resource})
        }
        Part::ResourceLink(l) => {
            let mut link = serde_json::to_value(l).unwrap_or_else(|_| json!({"uri": l.uri, "name": l.name}));
            if let Some(map) = link.as_object_mut() {
                map.remove("annotations");
                if let Some(mime) = map.remove("mime_type") {
                    map.insert("mimeType".into(), mime);
                }
                map.insert("type".into(), Value::from("resource_link"));
            }
            link
        }
    };
    if let Some(annotations) = annotations_of(part).and_then(|a| serde_json::to_value(a).ok()) {
        block["annotations"] = annotations;
    }
    block
}

fn annotations_of(part: &Part) -> Option<&ContentAnnotations> {
    match part {
        Part::Image(p) => p.annotations(),
        Part::Audio(p) => p.annotations(),
        Part::File(p) => p.annotations(),
        Part::ResourceLink(p) => p.annotations.as_ref(),
    }
}

/// What one content block is to a toolbox: text, a part, or (for a block the
/// specification does not have, or bytes that are not base64) a line saying what it
/// was.
pub(super) enum Block {
    Text(String),
    Part(Part),
}

pub(super) fn from_block(block: &ContentBlock) -> Block {
    let value = match serde_json::to_value(block) {
        Ok(value) => value,
        Err(_) => return Block::Text("[content]".into()),
    };
    let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let annotations =
        value.get("annotations").and_then(|a| serde_json::from_value::<ContentAnnotations>(a.clone()).ok());
    let kind = str_of(&value, "type").unwrap_or_default();
    let mime = str_of(&value, "mimeType");
    let bytes = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(from_base64);
    let part = match kind.as_str() {
        "text" => return Block::Text(str_of(&value, "text").unwrap_or_default()),
        "image" | "audio" => match bytes(&value, "data") {
            Some(Ok(data)) => {
                let mime = mime.unwrap_or_default();
                if kind == "image" { Part::Image(Image::new(mime, data)) } else { Part::Audio(Audio::new(mime, data)) }
            }
            _ => return Block::Text(format!("[{kind} ({}): its data was not base64]", mime.unwrap_or_default())),
        },
        "resource" => {
            let resource = value.get("resource").cloned().unwrap_or(Value::Null);
            let uri = str_of(&resource, "uri").unwrap_or_default();
            let mime = str_of(&resource, "mimeType");
            let name =
                uri.strip_prefix(ATTACHMENT).unwrap_or_else(|| uri.rsplit('/').next().unwrap_or(&uri)).to_owned();
            let file = match (str_of(&resource, "text"), bytes(&resource, "blob")) {
                (Some(text), _) => {
                    let mime = mime.filter(|m| is_text_type(m)).unwrap_or_else(|| "text/plain".into());
                    File::new(name, mime, text)
                }
                (None, Some(Ok(data))) => {
                    File::new(name, mime.unwrap_or_else(|| "application/octet-stream".into()), data)
                }
                _ => return Block::Text(format!("[resource {uri}: its contents could not be read]")),
            };
            Part::File(if uri.starts_with(ATTACHMENT) { file } else { file.with_uri(uri) })
        }
        "resource_link" => {
            let mut link = ResourceLink::new(
                str_of(&value, "uri").unwrap_or_default(),
                str_of(&value, "name").unwrap_or_default(),
            );
            link.title = str_of(&value, "title");
            link.description = str_of(&value, "description");
            link.mime_type = mime;
            link.size = value.get("size").and_then(Value::as_u64);
            Part::ResourceLink(link)
        }
        other => return Block::Text(format!("[{other} content]")),
    };
    Block::Part(match (part, annotations) {
        (Part::Image(p), Some(a)) => Part::Image(p.with_annotations(a)),
        (Part::Audio(p), Some(a)) => Part::Audio(p.with_annotations(a)),
        (Part::File(p), Some(a)) => Part::File(p.with_annotations(a)),
        (Part::ResourceLink(p), Some(a)) => Part::ResourceLink(p.with_annotations(a)),
        (part, _) => part,
    })
}
