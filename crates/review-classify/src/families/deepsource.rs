//! DeepSource: a hidden `<!-- DeepSource: ... -->` marker, then a heading whose severity is an
//! image (`severity_indicator_critical.svg`, `_major`, `_minor`) followed by the title.

use review_core::signals::Severity;

use super::{Reading, image_name};
use crate::Family;
use crate::doc::Doc;
use crate::markup::title;
use crate::severity::stated;

/// The severity indicator image: its line and severity.
fn indicator(doc: &Doc) -> Option<(usize, Severity)> {
    doc.images.iter().find_map(|img| {
        let name = image_name(&img.src);
        let level = name.strip_prefix("severity_indicator_")?;
        stated(Family::DeepSource, level).map(|s| (img.line, s))
    })
}

/// Whether the body is DeepSource's.
pub(crate) fn detect(doc: &Doc, lower: &str) -> bool {
    lower.contains("<!-- deepsource") || indicator(doc).is_some()
}

/// Reads a DeepSource finding.
pub(crate) fn read(doc: &Doc) -> Reading {
    let Some((line, severity)) = indicator(doc) else {
        return Reading::default();
    };
    let title = doc
        .nonempty()
        .find(|(i, _)| *i >= line)
        .map(|(i, _)| title(doc.plain_of(i)))
        .filter(|t| !t.is_empty());
    Reading {
        known: true,
        title,
        severity: Some(severity),
        ..Reading::default()
    }
}

#[cfg(test)]
mod tests {
    use review_core::signals::Severity;

    use crate::Family;
    use crate::families::fixture::read;

    #[test]
    fn severity_indicator_and_title() {
        let body = "<!-- DeepSource: id=x -->\n<h3><picture>\n<img src=\"https://static.deepsource.com/comment_artifacts/light/severity_indicator_major.svg?v=2\" height=\"14\"/>\n</picture>Possible SQL injection vector.</h3>\n\nUse parameterised queries.";
        let f = read(Family::DeepSource, body);
        assert!(f.format_known);
        assert_eq!(f.severity, Severity::High);
        assert_eq!(f.title, "Possible SQL injection vector");
        let minor = body.replace("_major", "_minor");
        assert_eq!(read(Family::DeepSource, &minor).severity, Severity::Medium);
    }
}
