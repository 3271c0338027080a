//! Where a finding of the review loop was raised, and so where its answer goes: a review
//! thread, a review (whose findings on lines outside the diff have no thread and are answered
//! with one comment on the pull request), or a diagnostics report comment (answered by none).
//!
//! The loop's files write a site as the id it stands for: a thread's or a review's node id, or
//! `report:` and the tool's name ([`Site::REPORT_PREFIX`]), as releases before this type did. A
//! review's id reads back as a thread's, since nothing in the text tells them apart: the store
//! places it ([`crate::decisions::Decisions::place_reviews`]) with the reviews the watcher
//! recorded, once, when the file is loaded.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::{ReviewId, ThreadId};

/// Where a finding was raised.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Site {
    /// A review thread: its answer is a reply in it.
    Thread(ThreadId),
    /// A review whose body lists the finding outside the diff: its answer is part of one
    /// comment on the pull request for the review.
    Review(ReviewId),
    /// A diagnostics report comment (React Doctor's errors), by its id: `report:` and the
    /// tool's name ([`Site::report`]). Its findings are fixed like the others, and get no reply.
    Report(String),
}

impl Site {
    /// What stands before a report's tool name in the files.
    pub const REPORT_PREFIX: &'static str = "report:";

    /// The site of a thread.
    pub fn thread(id: impl Into<String>) -> Self {
        Self::Thread(ThreadId(id.into()))
    }

    /// The site of the report comment of the tool `tool`.
    pub fn report(tool: &str) -> Self {
        Self::Report(format!("{}{tool}", Self::REPORT_PREFIX))
    }

    /// The site of a review's out-of-diff findings.
    pub fn review(id: impl Into<String>) -> Self {
        Self::Review(ReviewId(id.into()))
    }

    /// Reads an id as the files write it: `report:TOOL` is a report, anything else a thread (a
    /// review's id reads as a thread's until placed: see the module's documentation).
    pub fn read(id: &str) -> Self {
        if id.starts_with(Self::REPORT_PREFIX) {
            Self::Report(id.to_owned())
        } else {
            Self::thread(id)
        }
    }

    /// The id, as the files and the reports write it.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Thread(t) => &t.0,
            Self::Review(r) => &r.0,
            Self::Report(id) => id,
        }
    }

    /// The thread, when the finding is in one.
    pub fn as_thread(&self) -> Option<&ThreadId> {
        match self {
            Self::Thread(t) => Some(t),
            Self::Review(_) | Self::Report(_) => None,
        }
    }

    /// Whether this is the thread `id`.
    pub fn is_thread(&self, id: &ThreadId) -> bool {
        self.as_thread() == Some(id)
    }

    /// Whether this is a diagnostics report, which is owed no reply.
    pub fn is_report(&self) -> bool {
        matches!(self, Self::Report(_))
    }
}

impl From<ThreadId> for Site {
    fn from(id: ThreadId) -> Self {
        Self::Thread(id)
    }
}

impl From<&str> for Site {
    /// The site an id stands for, read as the files read it ([`Site::read`]).
    fn from(id: &str) -> Self {
        Self::read(id)
    }
}

impl From<ReviewId> for Site {
    fn from(id: ReviewId) -> Self {
        Self::Review(id)
    }
}

/// A site equals the id the files write for it.
impl PartialEq<str> for Site {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Site {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Site {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Site {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = String::deserialize(deserializer)?;
        Ok(Self::read(&id))
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for Site {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Site".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_report_reads_back_as_a_report_and_a_thread_as_a_thread() {
        assert_eq!(
            Site::read("report:React Doctor"),
            Site::report("React Doctor")
        );
        assert_eq!(Site::read("PRRT_x"), Site::thread("PRRT_x"));
        assert_eq!(Site::report("React Doctor").as_str(), "report:React Doctor");
        assert_eq!(
            serde_json::to_string(&Site::review("PRR_y")).unwrap(),
            "\"PRR_y\""
        );
        assert!(Site::report("x").as_thread().is_none());
        assert!(Site::review("PRR_y").as_thread().is_none());
    }

    proptest! {
        /// A thread or a report is written and read back as itself, as a map key too; a
        /// review is written as its id (and placed on load).
        #[test]
        fn sites_keep_their_id_through_the_files(id in "\\PC{0,20}") {
            for site in [Site::read(&id), Site::report(&id)] {
                let text = serde_json::to_string(&site).unwrap();
                prop_assert_eq!(&serde_json::from_str::<Site>(&text).unwrap(), &site);
                let map: std::collections::BTreeMap<Site, bool> = [(site.clone(), true)].into();
                let text = serde_json::to_string(&map).unwrap();
                let back: std::collections::BTreeMap<Site, bool> =
                    serde_json::from_str(&text).unwrap();
                prop_assert_eq!(back, map);
            }
            let review = Site::review(id.clone());
            prop_assert_eq!(serde_json::to_string(&review).unwrap(), serde_json::to_string(&id).unwrap());
        }
    }
}
