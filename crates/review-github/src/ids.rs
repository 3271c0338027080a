//! The shapes of GitHub's identifiers, checked before an identifier from a user or a tool is
//! used: a GraphQL node id (`PRRT_kwDOKx7Ld86ZMsMf`, `MDExOlB1bGxSZXF1ZXN0...`).

/// Whether `text` has the shape of a GraphQL node id: 1 to 200 ASCII letters, digits, `_`, `-`
/// or `=` (the legacy base64 ids end in `=`). Anything else (a space, a leading `-` that a
/// command line would take for an option, a path) is not one.
///
/// ```
/// use review_github::ids::is_node_id;
///
/// assert!(is_node_id("PRRT_kwDOKx7Ld86ZMsMf"));
/// assert!(is_node_id("MDEyOklzc3VlQ29tbWVudDE="));
/// assert!(!is_node_id("--help"));
/// assert!(!is_node_id("../A"));
/// assert!(!is_node_id(""));
/// ```
pub fn is_node_id(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 200
        && !text.starts_with('-')
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '=')
}
