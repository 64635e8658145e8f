//! JSON Schema documents as such, below the tool spec: resolving references inside one
//! document ([`refs`]) and the one-line rendering used in error messages and docs
//! ([`render`]). What is done with a [`ToolSpec`](crate::spec::ToolSpec)'s schema for a
//! provider (exports, checks, docs) is in [`schema`](crate::schema).

pub(crate) mod refs;
pub(crate) mod render;
