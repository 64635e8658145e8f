//! The grammars of the checked string formats (`date-time`, `ipv6`, ...) are written
//! twice: the runtime checks arguments with them, and the macro crate checks a literal
//! `default` at compile time (a proc-macro crate cannot call the runtime, nor the
//! runtime a proc-macro crate). This test holds them to one text, so a fix to one that
//! misses the other fails here instead of letting a default pass the build and fail at
//! run time.

fn grammar(path: &str) -> String {
    let text = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap();
    let start = text.find("// grammar: begin").unwrap_or_else(|| panic!("{path}: no `grammar: begin`"));
    let end = text.find("// grammar: end").unwrap_or_else(|| panic!("{path}: no `grammar: end`"));
    text[start..end].to_owned()
}

#[test]
fn the_macro_and_the_runtime_check_formats_by_the_same_grammar() {
    let macros = grammar("toolkit-macros/src/tool/formats.rs");
    let runtime = grammar("toolkit/src/__private/formats.rs");
    assert!(macros.contains("fn is_date_time") && macros.contains("fn is_uuid"), "the region holds the grammars");
    if macros != runtime {
        let (m, r): (Vec<&str>, Vec<&str>) = (macros.lines().collect(), runtime.lines().collect());
        let at = m.iter().zip(&r).position(|(a, b)| a != b).unwrap_or(m.len().min(r.len()));
        panic!(
            "the grammars differ from line {} of the region:\n  macros:  {:?}\n  runtime: {:?}",
            at + 1,
            m.get(at),
            r.get(at)
        );
    }
}
