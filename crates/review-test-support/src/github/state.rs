//! What the fake GitHub holds: repositories, pull requests and their history, the request log,
//! the rate-limit budget and the queued faults. Plain data and look-ups; the GraphQL semantics
//! live in `exec`.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use review_core::model::{
    Comment, CommentId, IssueComment, PullRequest, RepoId, Review, ReviewState, Thread,
};

use super::rest::{FakeCheck, RestRecorded};
use super::{Fault, Recorded};
use crate::Mutation;

/// The login replies are posted as until [`super::FakeGitHub::set_viewer`] says otherwise: the
/// author of the pull requests [`crate::PrBuilder`] builds, as with a person's own token.
pub(crate) const DEFAULT_VIEWER: &str = "dana";

/// GitHub's primary GraphQL budget for a user token, in points per hour.
pub(crate) const POINTS_PER_HOUR: u64 = 5_000;

/// A pull request and what the fake knows about it beyond the model.
#[derive(Debug)]
pub(crate) struct PrEntry {
    pub pr: PullRequest,
    /// The login owning the head repository (differs from the base owner for forks).
    pub head_owner: String,
    /// Replies absorbed into the viewer's pending review: (thread, comment). Nobody else sees
    /// them, so they are not in `pr.threads`.
    pub drafts: Vec<(review_core::model::ThreadId, Comment)>,
    /// Minimized comments and the classifier given.
    pub minimized: BTreeMap<CommentId, String>,
    /// When the pull request last changed in a way GitHub's REST API shows, as a tick of
    /// [`State::clock`]: its `updated_at` derives from it. Thread resolution does not move it.
    pub revision: u64,
}

impl PrEntry {
    /// The repository the PR's branch lives in: the model's, else the head owner's namesake.
    pub fn head_repo(&self) -> RepoId {
        match &self.pr.head_repo {
            Some(h) => h.repo.clone(),
            None => RepoId {
                owner: self.head_owner.clone(),
                name: self.pr.repo.name.clone(),
            },
        }
    }
}

/// The most of a blob's content GitHub returns as `text` in the fake (larger ones are
/// truncated: `text` null, `isTruncated` true).
pub(crate) const BLOB_TEXT_LIMIT: usize = 512 * 1024;

/// A file in a commit's tree.
#[derive(Debug, Clone)]
pub(crate) struct FakeFile {
    pub bytes: Vec<u8>,
    /// The git mode: `0o100644` a regular file, `0o120000` a symbolic link (its bytes are the
    /// target).
    pub mode: u32,
}

/// An entry of a directory, as `Tree.entries` lists it.
#[derive(Debug, Clone)]
pub(crate) struct TreeEntry {
    pub name: String,
    pub mode: u32,
    pub kind: &'static str,
    pub size: usize,
}

/// What `Repository.object(expression: "COMMIT:PATH")` finds.
#[derive(Debug)]
pub(crate) enum GitObject<'a> {
    Blob(&'a FakeFile),
    Tree(Vec<TreeEntry>),
}

/// All the fake's state, behind one mutex.
#[derive(Debug)]
pub(crate) struct State {
    /// Repositories and their default branch.
    pub repos: BTreeMap<RepoId, String>,
    pub prs: Vec<PrEntry>,
    pub viewer: String,
    /// The only token accepted, if one was required.
    pub token: Option<String>,
    /// Tokens that may read but not write (a workflow's token on a fork's pull request).
    pub read_only: std::collections::BTreeSet<String>,
    /// Points spent this hour.
    pub points: u64,
    /// When the budget resets, seconds since the epoch.
    pub reset_at: u64,
    pub requests: Vec<Recorded>,
    /// When each of `requests` arrived and was answered, in the same order.
    pub timings: Vec<super::depth::Timing>,
    pub mutations: Vec<Mutation>,
    pub faults: Vec<Fault>,
    /// A counter for the ids of created objects.
    pub next_id: u64,
    /// When the fake started, seconds since the epoch: REST `updated_at` times count from it.
    pub started: u64,
    /// Ticks once per change a REST reader would see; see [`PrEntry::revision`].
    pub clock: u64,
    /// Named checks by repository and commit, as [`super::FakeGitHub::set_checks`] set them.
    pub checks: BTreeMap<(RepoId, String), Vec<FakeCheck>>,
    /// The bodies of the commit statuses posted, in order.
    pub posted_statuses: Vec<serde_json::Value>,
    /// The bodies of the check runs created, in order.
    pub posted_check_runs: Vec<serde_json::Value>,
    /// Whether check runs are refused (403), as for a token that is not a GitHub App's.
    pub check_runs_refused: bool,
    /// Who posted each commit status through the REST route, by repository, commit and
    /// context (the viewer at the time); a status set with the checks has none and is shown as
    /// the CI's.
    pub status_creators: BTreeMap<(RepoId, String, String), String>,
    /// The app that created each check run through the REST route, by repository, commit and
    /// name (the viewer's login, as the Actions token's app is `github-actions`); a run set
    /// with the checks is shown as the CI's app.
    pub check_run_apps: BTreeMap<(RepoId, String, String), String>,
    /// The bots a review is requested from, by pull request id, as `requestReviewsByLogin`
    /// recorded them (logins without `[bot]`), in order.
    pub requested: BTreeMap<String, Vec<String>>,
    /// Whether review requests are accepted and then dropped, as GitHub does for a bot that
    /// is not enabled (Copilot code review off for the repository or the account).
    pub requests_dropped: bool,
    /// Every REST request received, in order.
    pub rest: Vec<RestRecorded>,
    /// Files by repository and commit, then path: what `Repository.object` serves.
    pub files: BTreeMap<(RepoId, String), BTreeMap<String, FakeFile>>,
    /// The issues opened, by repository, oldest first.
    pub issues: BTreeMap<RepoId, Vec<super::issues::FakeIssue>>,
    /// The repositories with their issues turned off.
    pub issues_off: std::collections::BTreeSet<RepoId>,
    /// The fields and arguments this server's schema lacks, as an older GitHub Enterprise
    /// Server's does.
    pub lacking: Lacking,
}

/// What an older server's GraphQL schema lacks: fields by `(type, field)` (a mutation is a
/// field of `Mutation`) and arguments by `(type, field, argument)`.
#[derive(Debug, Default)]
pub(crate) struct Lacking {
    pub fields: std::collections::BTreeSet<(String, String)>,
    pub args: std::collections::BTreeSet<(String, String, String)>,
}

impl Lacking {
    /// Whether `ty.field` is missing.
    pub fn field(&self, ty: &str, field: &str) -> bool {
        self.fields.contains(&(ty.to_owned(), field.to_owned()))
    }

    /// Whether `ty.field(arg:)` is missing.
    pub fn arg(&self, ty: &str, field: &str, arg: &str) -> bool {
        self.args
            .contains(&(ty.to_owned(), field.to_owned(), arg.to_owned()))
    }
}

impl State {
    pub fn new() -> Self {
        Self {
            repos: BTreeMap::new(),
            prs: Vec::new(),
            viewer: DEFAULT_VIEWER.to_owned(),
            token: None,
            read_only: std::collections::BTreeSet::new(),
            points: 0,
            reset_at: now() + 3_600,
            requests: Vec::new(),
            timings: Vec::new(),
            mutations: Vec::new(),
            faults: Vec::new(),
            next_id: 0,
            started: now(),
            clock: 0,
            checks: BTreeMap::new(),
            posted_statuses: Vec::new(),
            posted_check_runs: Vec::new(),
            check_runs_refused: false,
            status_creators: BTreeMap::new(),
            check_run_apps: BTreeMap::new(),
            requested: BTreeMap::new(),
            requests_dropped: false,
            rest: Vec::new(),
            files: BTreeMap::new(),
            issues: BTreeMap::new(),
            issues_off: std::collections::BTreeSet::new(),
            lacking: Lacking::default(),
        }
    }

    /// The blob or tree at `path` of `commit` in `repo` (an empty path is the root).
    pub fn git_object(&self, repo: &RepoId, commit: &str, path: &str) -> Option<GitObject<'_>> {
        let files = self.files.get(&(repo.clone(), commit.to_owned()))?;
        let path = path.trim_matches('/');
        if let Some(file) = files.get(path) {
            return Some(GitObject::Blob(file));
        }
        let prefix = if path.is_empty() {
            String::new()
        } else {
            format!("{path}/")
        };
        let mut entries: Vec<TreeEntry> = Vec::new();
        for (p, file) in files {
            let Some(rest) = p.strip_prefix(&prefix) else {
                continue;
            };
            let entry = match rest.split_once('/') {
                Some((dir, _)) => TreeEntry {
                    name: dir.to_owned(),
                    mode: 0o040_000,
                    kind: "tree",
                    size: 0,
                },
                None => TreeEntry {
                    name: rest.to_owned(),
                    mode: file.mode,
                    kind: "blob",
                    size: file.bytes.len(),
                },
            };
            if !entries.iter().any(|e| e.name == entry.name) {
                entries.push(entry);
            }
        }
        (!entries.is_empty()).then_some(GitObject::Tree(entries))
    }

    /// The repository `owner/name` and its default branch; like GitHub, the names match
    /// whatever their case.
    pub fn repo(&self, owner: &str, name: &str) -> Option<(&RepoId, &str)> {
        self.repos
            .iter()
            .find(|(r, _)| r.owner.eq_ignore_ascii_case(owner) && r.name.eq_ignore_ascii_case(name))
            .map(|(r, b)| (r, b.as_str()))
    }

    pub fn pr(&self, repo: &RepoId, number: u64) -> Option<&PrEntry> {
        self.prs
            .iter()
            .find(|e| &e.pr.repo == repo && e.pr.number == number)
    }

    pub fn thread(&self, id: &str) -> Option<(&PrEntry, &Thread)> {
        self.prs
            .iter()
            .find_map(|e| e.pr.threads.iter().find(|t| t.id.0 == id).map(|t| (e, t)))
    }

    /// A review comment by id, in a thread or in a pending review's draft.
    pub fn review_comment(&self, id: &str) -> Option<(&PrEntry, Option<&Thread>, &Comment)> {
        self.prs.iter().find_map(|e| {
            let in_thread = e.pr.threads.iter().find_map(|t| {
                t.comments
                    .iter()
                    .find(|c| c.id.0 == id)
                    .map(|c| (e, Some(t), c))
            });
            in_thread.or_else(|| {
                e.drafts
                    .iter()
                    .find(|(_, c)| c.id.0 == id)
                    .map(|(t, c)| (e, e.pr.thread(t), c))
            })
        })
    }

    pub fn issue_comment(&self, id: &str) -> Option<(&PrEntry, &IssueComment)> {
        self.prs
            .iter()
            .find_map(|e| e.pr.comments.iter().find(|c| c.id.0 == id).map(|c| (e, c)))
    }

    pub fn review(&self, id: &str) -> Option<(&PrEntry, &Review)> {
        self.prs.iter().find_map(|e| {
            e.pr.reviews
                .iter()
                .find(|r| r.id.0 == id && self.visible(r))
                .map(|r| (e, r))
        })
    }

    pub fn pull_request_by_id(&self, id: &str) -> Option<&PrEntry> {
        self.prs
            .iter()
            .find(|e| !e.pr.id.is_empty() && e.pr.id == id)
    }

    /// Whether the viewer may see a review: a pending review only by its own author.
    pub fn visible(&self, review: &Review) -> bool {
        review.state != ReviewState::Pending
            || review
                .author
                .as_ref()
                .is_some_and(|a| a.login == self.viewer)
    }

    /// The viewer's pending review on a pull request.
    pub fn viewer_pending<'a>(&self, entry: &'a PrEntry) -> Option<&'a Review> {
        entry.pr.reviews.iter().find(|r| {
            r.state == ReviewState::Pending
                && r.author.as_ref().is_some_and(|a| a.login == self.viewer)
        })
    }

    /// A fresh tick of [`State::clock`], for a pull request that changed.
    pub fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Records that pull request `idx` changed as a REST reader sees it.
    pub fn touch(&mut self, idx: usize) {
        let tick = self.tick();
        if let Some(e) = self.prs.get_mut(idx) {
            e.revision = tick;
        }
    }

    /// A fresh number for a created object.
    pub fn fresh(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `secs` since the epoch as RFC 3339 UTC (`2026-11-30T10:00:00Z`), as GitHub writes times.
pub(crate) fn rfc3339(secs: u64) -> String {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3_600,
        rem % 3_600 / 60,
        rem % 60
    )
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(char::from(B64[(n >> (18 - 6 * k)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn unbase64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::new();
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let v = B64.iter().position(|&b| b == c)? as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// The opaque cursor of the `n`th item of a connection (1-based), shaped like GitHub's
/// (`Y3Vyc29yOnYyOjEwMA==` is `cursor:v2:100`).
pub(crate) fn cursor(n: usize) -> String {
    base64(format!("cursor:v2:{n}").as_bytes())
}

/// The position a cursor stands for, or `None` if the fake never made it.
pub(crate) fn decode_cursor(text: &str) -> Option<usize> {
    let bytes = unbase64(text)?;
    let decoded = std::str::from_utf8(&bytes).ok()?;
    let n: usize = decoded.strip_prefix("cursor:v2:")?.parse().ok()?;
    // Only the exact text the fake handed out: no leading zeros, no missing padding.
    (cursor(n) == text).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_anything_else() {
        assert_eq!(cursor(100), "Y3Vyc29yOnYyOjEwMA==");
        assert_eq!(decode_cursor(&cursor(100)), Some(100));
        assert_eq!(decode_cursor(&cursor(7)), Some(7));
        assert_eq!(decode_cursor("cursor:100"), None);
        assert_eq!(decode_cursor(&base64(b"cursor:v2:007")), None);
        assert_eq!(decode_cursor(""), None);
    }

    #[test]
    fn times_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_796_032_800), "2026-11-30T10:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
    }
}
