//! The labelled corpus and its evaluation, shared by the regression test (`tests/test_corpus.rs`),
//! `examples/evaluate.rs` and `benches/classify.rs` (both include this file with `#[path]`).
//!
//! A case is one file under `tests/fixtures/corpus/`: a front matter between `+++` lines with
//! flat `key = value` pairs (strings in double quotes, `true`/`false`), then the comment body.
//! See `tests/fixtures/corpus/README.md` for the keys.

#![allow(
    dead_code,
    reason = "each including target uses a different part of this module"
)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use review_classify::{Family, fingerprint, identify, read_finding};
use review_core::gate::AutomationSettings;
use review_core::model::{Author, AuthorKind};
use review_core::rules::classify;

/// The corpus directory.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

/// The automation settings the corpus is labelled under: the default header, and one
/// configured automation account.
pub fn settings() -> AutomationSettings {
    AutomationSettings {
        accounts: vec!["qa-runner".to_owned()],
        ..AutomationSettings::default()
    }
}

/// The login of the PR's author when a case's author is not the PR author.
const OTHER_PR_AUTHOR: &str = "pr-owner";

/// One labelled comment.
#[derive(Debug, Clone)]
pub struct Case {
    /// The file name without `.md`.
    pub name: String,
    /// The author, `None` for a deleted account (`login = ""`).
    pub author: Option<Author>,
    /// Whether the author is the PR's author.
    pub pr_author: bool,
    /// The file the thread is on.
    pub path: String,
    /// Expected family name (`Family::as_str`), or `human`.
    pub family: String,
    /// Expected severity (`Severity::as_str`), for automated comments.
    pub severity: Option<String>,
    /// Expected class (`Class::as_str`), for automated comments.
    pub class: Option<String>,
    /// The fingerprint group: same group if and only if same fingerprint.
    pub group: String,
    /// Why the case carries its class (one line), for cases labelled by the guide in
    /// `docs/classification.md`.
    pub reason: Option<String>,
    /// The public source the case was modelled on (`owner/name:path`): the one place the
    /// project names an outside source. No text is copied from it.
    pub modelled_on: Option<String>,
    /// The language of the comment (`en` when absent).
    pub lang: String,
    /// For a person's comment written in a bot family's format (a tool posting through a user
    /// account), the family the report should hint at.
    pub hint: Option<String>,
    /// The comment body.
    pub body: String,
}

impl Case {
    /// The PR's author for this case.
    pub fn pr_author(&self) -> Author {
        match (&self.author, self.pr_author) {
            (Some(author), true) => author.clone(),
            _ => Author::new(OTHER_PR_AUTHOR, AuthorKind::User),
        }
    }
}

fn kind(name: &str) -> Result<AuthorKind, String> {
    Ok(match name {
        "Bot" => AuthorKind::Bot,
        "User" => AuthorKind::User,
        "Organization" => AuthorKind::Organization,
        "Mannequin" => AuthorKind::Mannequin,
        "Unknown" => AuthorKind::Unknown,
        other => return Err(format!("unknown author kind {other:?}")),
    })
}

/// Parses one case file.
pub fn parse_case(name: &str, text: &str) -> Result<Case, String> {
    let rest = text
        .strip_prefix("+++\n")
        .ok_or_else(|| format!("{name}: no front matter"))?;
    let (front, body) = rest
        .split_once("\n+++\n")
        .ok_or_else(|| format!("{name}: unterminated front matter"))?;
    let mut fields = BTreeMap::new();
    for line in front.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("{name}: bad line {line:?}"))?;
        let value = value.trim();
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .unwrap_or(value);
        fields.insert(key.trim().to_owned(), value.to_owned());
    }
    let mut take = |key: &str| fields.remove(key);
    let login = take("login").ok_or_else(|| format!("{name}: no login"))?;
    let kind = kind(&take("kind").ok_or_else(|| format!("{name}: no kind"))?)?;
    let case = Case {
        name: name.to_owned(),
        author: (!login.is_empty()).then(|| Author::new(login, kind)),
        pr_author: take("pr_author").is_some_and(|v| v == "true"),
        path: take("path").ok_or_else(|| format!("{name}: no path"))?,
        family: take("family").ok_or_else(|| format!("{name}: no family"))?,
        severity: take("severity"),
        class: take("class"),
        group: take("group").ok_or_else(|| format!("{name}: no group"))?,
        reason: take("reason"),
        modelled_on: take("modelled-on"),
        lang: take("lang").unwrap_or_else(|| "en".to_owned()),
        hint: take("hint"),
        body: body.trim_end_matches('\n').to_owned(),
    };
    if let Some(key) = fields.keys().next() {
        return Err(format!("{name}: unknown key {key:?}"));
    }
    if case.family != "human" && (case.severity.is_none() || case.class.is_none()) {
        return Err(format!("{name}: automated cases need severity and class"));
    }
    if case.modelled_on.is_some() && case.reason.is_none() {
        return Err(format!(
            "{name}: a modelled case needs a reason for its label"
        ));
    }
    Ok(case)
}

/// Whether a case was modelled on a public source (and labelled by the guide in
/// `docs/classification.md`), as opposed to the first cases, written for the first reader.
impl Case {
    /// Whether the case names the public source it was modelled on.
    pub fn is_modelled(&self) -> bool {
        self.modelled_on.is_some()
    }

    /// Whether the case is in the held-back quarter of the modelled cases, chosen by a hash of
    /// its id: no rule is tuned on these, and figures are reported on both parts. The first
    /// cases, written with the first reader, are never held back.
    pub fn is_held_back(&self) -> bool {
        if !self.is_modelled() {
            return false;
        }
        // FNV-1a, 64 bits: stable across builds and platforms.
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in self.name.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
        hash.is_multiple_of(4)
    }
}

/// A repository pattern of the reserved list: `owner/*`, `owner/name`, or a name in any owner
/// (a project "and its forks").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reserved {
    /// Every repository of an owner.
    Owner(String),
    /// One repository.
    Repo(String),
    /// A repository name under any owner.
    Name(String),
}

/// Reads the reserved list (a markdown page naming `owner/*`, `owner/name` and "NAME and its
/// forks" after the line that says which repositories are reserved).
pub fn reserved_patterns(text: &str) -> Vec<Reserved> {
    let body = text
        .split_once("any path, any pull request).")
        .map_or(text, |(_, rest)| rest);
    let mut out = Vec::new();
    for item in body.split([',', '\n']) {
        let item = item.trim().trim_end_matches('.').trim();
        if item.is_empty() {
            continue;
        }
        if let Some(name) = item.strip_suffix(" and its forks") {
            out.push(Reserved::Name(name.trim().to_lowercase()));
        } else if let Some(owner) = item.strip_suffix("/*") {
            out.push(Reserved::Owner(owner.to_lowercase()));
        } else if item.contains('/') && !item.contains(' ') {
            out.push(Reserved::Repo(item.to_lowercase()));
        }
    }
    out
}

/// Whether `source` (`owner/name:path`) is in a reserved repository.
pub fn is_reserved(source: &str, reserved: &[Reserved]) -> bool {
    let repo = source.split(':').next().unwrap_or("").to_lowercase();
    let (owner, name) = repo.split_once('/').unwrap_or((repo.as_str(), ""));
    reserved.iter().any(|r| match r {
        Reserved::Owner(o) => o == owner,
        Reserved::Repo(full) => *full == repo,
        Reserved::Name(n) => n == name,
    })
}

/// Loads every case of the corpus, sorted by name.
pub fn load(dir: &Path) -> Result<Vec<Case>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .filter(|p| p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            parse_case(&name, &text)
        })
        .collect()
}

/// What the reader made of one case.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case.
    pub case: Case,
    /// The family found, or `human`.
    pub family: String,
    /// The severity found (`none` for human comments).
    pub severity: String,
    /// The class the core gives, or `human`.
    pub class: String,
    /// The title read.
    pub title: String,
    /// The fingerprint.
    pub fingerprint: String,
}

impl Outcome {
    /// Whether the family is right.
    pub fn family_ok(&self) -> bool {
        self.family == self.case.family
    }
    /// Whether the severity is right (human cases: the family decides).
    pub fn severity_ok(&self) -> bool {
        match &self.case.severity {
            Some(want) => *want == self.severity,
            None => self.family_ok(),
        }
    }
    /// Whether the class is right (human cases: the family decides).
    pub fn class_ok(&self) -> bool {
        match &self.case.class {
            Some(want) => *want == self.class,
            None => self.family_ok(),
        }
    }
}

/// Reads one case as `analyze` reads a thread's first comment.
pub fn run(case: &Case) -> Outcome {
    let settings = settings();
    let pr_author = case.pr_author();
    let found = identify(
        case.author.as_ref(),
        &case.body,
        Some(&pr_author),
        &settings,
    );
    match found {
        Some(family) => {
            let finding = read_finding(family, &case.body, &case.path);
            let signals = finding.signals(family, &case.path);
            Outcome {
                case: case.clone(),
                family: family.as_str().to_owned(),
                severity: finding.severity.as_str().to_owned(),
                class: classify(&signals, false).class.as_str().to_owned(),
                title: finding.title,
                fingerprint: signals.fingerprint,
            }
        }
        None => {
            let title = read_finding(Family::OtherBot, &case.body, &case.path).title;
            Outcome {
                case: case.clone(),
                family: "human".to_owned(),
                severity: "none".to_owned(),
                class: "human".to_owned(),
                fingerprint: fingerprint(None, &case.path, &title),
                title,
            }
        }
    }
}

/// Per-family counts.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Cases.
    pub cases: usize,
    /// Family right.
    pub family: usize,
    /// Severity right.
    pub severity: usize,
    /// Class right.
    pub class: usize,
}

/// The evaluation of a corpus.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every outcome, in corpus order.
    pub outcomes: Vec<Outcome>,
    /// Per expected family.
    pub families: BTreeMap<String, Tally>,
    /// Human comments read as automated.
    pub humans_as_automated: Vec<String>,
    /// Cases that share a fingerprint but not a group (a false merge: one would follow the
    /// other's decision), one line each.
    pub group_errors: Vec<String>,
    /// Cases that share a group but not a fingerprint (a re-post read as a new finding: safe,
    /// it is triaged again), one line each.
    pub split_reposts: Vec<String>,
    /// `(expected class, found class) -> count` over automated cases.
    pub confusion: BTreeMap<(String, String), usize>,
}

/// The classes in matrix order.
pub const CLASSES: [&str; 4] = ["actionable", "nit", "ambiguous", "human"];

impl Report {
    /// Evaluates every case.
    pub fn new(cases: &[Case]) -> Self {
        let outcomes: Vec<Outcome> = cases.iter().map(run).collect();
        let mut families: BTreeMap<String, Tally> = BTreeMap::new();
        let mut confusion = BTreeMap::new();
        let mut humans_as_automated = Vec::new();
        for o in &outcomes {
            let t = families.entry(o.case.family.clone()).or_default();
            t.cases += 1;
            t.family += usize::from(o.family_ok());
            t.severity += usize::from(o.severity_ok());
            t.class += usize::from(o.class_ok());
            if o.case.family == "human" && o.family != "human" {
                humans_as_automated.push(o.case.name.clone());
            }
            if let Some(want) = &o.case.class {
                *confusion
                    .entry((want.clone(), o.class.clone()))
                    .or_insert(0) += 1;
            }
        }
        let mut group_errors = Vec::new();
        let mut split_reposts = Vec::new();
        for (i, a) in outcomes.iter().enumerate() {
            for b in outcomes.iter().skip(i + 1) {
                let same_group = a.case.group == b.case.group;
                let same_key = a.fingerprint == b.fingerprint;
                if same_group && !same_key {
                    split_reposts.push(format!(
                        "{} and {} share group {} but not a fingerprint ({:?} vs {:?})",
                        a.case.name, b.case.name, a.case.group, a.title, b.title
                    ));
                } else if same_key && !same_group {
                    group_errors.push(format!(
                        "{} and {} share a fingerprint but not a group ({:?})",
                        a.case.name, b.case.name, a.title
                    ));
                }
            }
        }
        Self {
            outcomes,
            families,
            humans_as_automated,
            group_errors,
            split_reposts,
            confusion,
        }
    }

    fn total(&self, pick: impl Fn(&Tally) -> usize, automated_only: bool) -> (usize, usize) {
        self.families
            .iter()
            .filter(|(f, _)| !automated_only || f.as_str() != "human")
            .fold((0, 0), |(ok, n), (_, t)| (ok + pick(t), n + t.cases))
    }

    /// `(right, cases)` for the family, over every case.
    pub fn family_score(&self) -> (usize, usize) {
        self.total(|t| t.family, false)
    }

    /// `(right, cases)` for the severity, over automated cases.
    pub fn severity_score(&self) -> (usize, usize) {
        self.total(|t| t.severity, true)
    }

    /// `(right, cases)` for the class, over automated cases.
    pub fn class_score(&self) -> (usize, usize) {
        self.total(|t| t.class, true)
    }

    /// The fingerprint groups and how many have two or more cases.
    pub fn groups(&self) -> (usize, usize) {
        let mut sizes: BTreeMap<&str, usize> = BTreeMap::new();
        for o in &self.outcomes {
            *sizes.entry(o.case.group.as_str()).or_insert(0) += 1;
        }
        (sizes.len(), sizes.values().filter(|&&n| n > 1).count())
    }

    /// Every case with what was read: name, family, severity, class and title.
    pub fn render_titles(&self) -> String {
        let mut out = String::new();
        for o in &self.outcomes {
            let _ = writeln!(
                out,
                "{:<40} {:<10} {:<8} {:<10} {}",
                o.case.name, o.family, o.severity, o.class, o.title
            );
        }
        out
    }

    /// The printed report: the class confusion matrix, per-family figures, totals and every
    /// mismatch.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let pct = |(ok, n): (usize, usize)| {
            if n == 0 {
                100.0
            } else {
                ok as f64 * 100.0 / n as f64
            }
        };
        let _ = writeln!(
            out,
            "corpus: {} cases ({} automated, {} human)\n",
            self.outcomes.len(),
            self.class_score().1,
            self.families.get("human").map_or(0, |t| t.cases)
        );
        let _ = writeln!(out, "class confusion (rows: expected, columns: found)");
        let _ = write!(out, "{:<12}", "");
        for c in CLASSES {
            let _ = write!(out, "{c:>11}");
        }
        let _ = writeln!(out);
        for want in CLASSES.iter().take(3) {
            let _ = write!(out, "{want:<12}");
            for got in CLASSES {
                let n = self
                    .confusion
                    .get(&((*want).to_owned(), got.to_owned()))
                    .copied()
                    .unwrap_or(0);
                let _ = write!(out, "{n:>11}");
            }
            let _ = writeln!(out);
        }
        let _ = writeln!(
            out,
            "\n{:<12}{:>6}{:>10}{:>10}{:>10}",
            "family", "cases", "family", "severity", "class"
        );
        for (family, t) in &self.families {
            let _ = writeln!(
                out,
                "{family:<12}{:>6}{:>10}{:>10}{:>10}",
                t.cases,
                format!("{}/{}", t.family, t.cases),
                format!("{}/{}", t.severity, t.cases),
                format!("{}/{}", t.class, t.cases),
            );
        }
        let (groups, shared) = self.groups();
        let _ = writeln!(
            out,
            "\nfamily right:   {:5.1}% ({}/{})\nseverity right: {:5.1}% ({}/{}, automated)\nclass right:    {:5.1}% ({}/{}, automated)\nhuman comments read as automated: {}\nfingerprint groups: {} ({} with re-posts), false merges: {}, re-posts read as new: {}",
            pct(self.family_score()),
            self.family_score().0,
            self.family_score().1,
            pct(self.severity_score()),
            self.severity_score().0,
            self.severity_score().1,
            pct(self.class_score()),
            self.class_score().0,
            self.class_score().1,
            self.humans_as_automated.len(),
            groups,
            shared,
            self.group_errors.len(),
            self.split_reposts.len(),
        );
        let misses: Vec<&Outcome> = self
            .outcomes
            .iter()
            .filter(|o| !(o.family_ok() && o.severity_ok() && o.class_ok()))
            .collect();
        if !misses.is_empty() || !self.group_errors.is_empty() || !self.split_reposts.is_empty() {
            let _ = writeln!(out, "\nmismatches:");
        }
        for o in misses {
            let _ = writeln!(
                out,
                "  {}: family {} (want {}), severity {} (want {}), class {} (want {}); title {:?}",
                o.case.name,
                o.family,
                o.case.family,
                o.severity,
                o.case.severity.as_deref().unwrap_or("-"),
                o.class,
                o.case.class.as_deref().unwrap_or("-"),
                o.title
            );
        }
        for e in self.group_errors.iter().chain(&self.split_reposts) {
            let _ = writeln!(out, "  {e}");
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Outcomes in plan mode: what `review triage` would do with each case, as a one-thread PR.

use review_classify::{analyze, hint_family};
use review_core::model::{
    Comment, CommentId, CommitId, LineRange, PrState, PullRequest, RepoId, SubjectType, Thread,
    ThreadId,
};
use review_core::plan::{FixSettings, TriageSettings, plan};
use review_core::report::{DeferReason, Outcome as PlanOutcome};
use review_core::rules::{Class, LadderMode};

/// The line every case's thread is on.
pub const CASE_LINE: u32 = 40;

/// Which part of the corpus a case is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    /// Every case rules may be tuned on: the first cases and three quarters of the modelled ones.
    Tuned,
    /// The held-back quarter of the modelled cases: no rule is tuned on it.
    HeldBack,
}

impl Part {
    /// The name printed.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Tuned => "tuned",
            Self::HeldBack => "held-back",
        }
    }
}

impl Case {
    /// The part the case is in.
    pub fn part(&self) -> Part {
        if self.is_held_back() {
            Part::HeldBack
        } else {
            Part::Tuned
        }
    }

    /// Whether a person wrote the case.
    pub fn is_person(&self) -> bool {
        self.family == "human"
    }
}

/// The settings every case is planned with: plan mode, a fixer configured, no judge, the
/// ladder as the command line's default (the reader's hints), the default deny list.
pub fn triage_settings() -> TriageSettings {
    TriageSettings {
        automation: settings(),
        ladder: LadderMode::Hints,
        fixes: FixSettings {
            fixer_available: true,
            ..FixSettings::default()
        },
        ..TriageSettings::default()
    }
}

/// A case as a one-thread pull request: the comment on [`CASE_LINE`] of its file.
pub fn case_pr(case: &Case) -> PullRequest {
    let comment = Comment {
        id: CommentId::from("PRRC_case"),
        author: case.author.clone(),
        body: case.body.clone(),
        created_at: "2026-11-30T10:00:00Z".to_owned(),
        url: String::new(),
        diff_hunk: None,
        review_id: None,
    };
    PullRequest {
        repo: RepoId {
            owner: "corpus".to_owned(),
            name: "cases".to_owned(),
        },
        number: 1,
        id: String::new(),
        title: case.name.clone(),
        url: String::new(),
        state: PrState::Open,
        author: Some(case.pr_author()),
        head_ref: "topic".to_owned(),
        base_ref: "main".to_owned(),
        head_sha: CommitId::from("0123456789abcdef0123456789abcdef01234567"),
        base_sha: None,
        head_repo: None,
        viewer: None,
        draft: false,
        mergeable: None,
        checks: None,
        reviews: vec![],
        comments: vec![],
        threads: vec![Thread {
            id: ThreadId::from("PRRT_case"),
            is_resolved: false,
            is_outdated: false,
            path: case.path.clone(),
            lines: Some(LineRange::new(CASE_LINE, CASE_LINE)),
            subject_type: SubjectType::Line,
            comments: vec![comment],
            all_comments_read: true,
            original_lines: None,
        }],
    }
}

/// What the planner would do with one case.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The case.
    pub case: Case,
    /// Whether the reader placed the author as automated.
    pub read_as_bot: bool,
    /// The class the core gives (`None` for a person's thread).
    pub class: Option<Class>,
    /// The outcome planned.
    pub outcome: PlanOutcome,
    /// Whether the planned action changes anything.
    pub mutates: bool,
    /// The report's reason.
    pub reason: String,
    /// The family the report's hint names for this comment's account, if any.
    pub hint: Option<String>,
    /// The hard gate that stopped the judge (its answer overridden, or not asked at all), when
    /// a judge took part.
    pub gate: Option<String>,
}

/// Who decides the judgement calls in an evaluation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Judging {
    /// No judge: the reader and the built-in ladder.
    None,
    /// A scripted judge that answers each case's label (an ambiguous one with stop-and-ask),
    /// asked as `review triage --judge-cmd` asks: only about the threads
    /// [`review_core::judge::candidates`] names.
    Scripted,
}

impl Judging {
    fn describe(self) -> &'static str {
        match self {
            Self::None => "no judge",
            Self::Scripted => "a scripted judge answering each label",
        }
    }
}

/// The answer a scripted judge gives `case`: its label.
fn scripted_answer(case: &Case) -> Option<review_core::judge::Verdict> {
    use review_core::judge::{Answer, Verdict};
    use review_core::signals::LadderHint;
    let class = match case.class.as_deref()? {
        "actionable" => Class::Actionable,
        "nit" => Class::Nit,
        "ambiguous" => Class::Ambiguous,
        _ => return None,
    };
    Some(Verdict::Answered(Answer {
        class,
        reason: case
            .reason
            .clone()
            .unwrap_or_else(|| "the label".to_owned()),
        rung: (class == Class::Ambiguous).then_some(LadderHint::StopAndAsk),
    }))
}

impl Planned {
    /// The label, for automated cases.
    fn label(&self) -> Option<&str> {
        if self.case.is_person() {
            None
        } else {
            self.case.class.as_deref()
        }
    }

    /// A harmful outcome: a labelled-actionable finding dismissed as a nit; a labelled-ambiguous
    /// one fixed or dismissed; a person's thread touched.
    pub fn harmful(&self) -> bool {
        if self.case.is_person() {
            return self.mutates;
        }
        match self.label() {
            Some("actionable") => self.outcome == PlanOutcome::Resolved,
            Some("ambiguous") => matches!(
                self.outcome,
                PlanOutcome::Resolved | PlanOutcome::Actioned | PlanOutcome::Promoted
            ),
            _ => false,
        }
    }

    /// For a bot thread labelled actionable or nit: whether it was handled without a person
    /// (actionable fixed; nit resolved or fixed). `None` for other cases.
    pub fn handled(&self) -> Option<bool> {
        let fixed = matches!(self.outcome, PlanOutcome::Actioned | PlanOutcome::Promoted);
        match self.label() {
            Some("actionable") => Some(fixed),
            Some("nit") => Some(fixed || self.outcome == PlanOutcome::Resolved),
            _ => None,
        }
    }
}

/// Plans one case as a one-thread pull request with [`triage_settings`].
pub fn plan_case(case: &Case) -> Planned {
    plan_case_judged(case, Judging::None)
}

/// Plans one case as a one-thread pull request with [`triage_settings`] and `judging`.
pub fn plan_case_judged(case: &Case, judging: Judging) -> Planned {
    let pr = case_pr(case);
    let mut settings = triage_settings();
    let signals = analyze(&pr, &settings.automation);
    let mut planned = plan(&pr, &signals, &settings);
    let mut gate = None;
    if judging == Judging::Scripted {
        let asked = review_core::judge::candidates(&planned, &signals);
        let thread = ThreadId::from("PRRT_case");
        match (asked.contains(&thread), scripted_answer(case)) {
            (true, Some(verdict)) => {
                settings.judged.insert(thread.clone(), verdict);
                planned = plan(&pr, &signals, &settings);
                gate = planned.threads.first().and_then(|p| {
                    p.report
                        .judge
                        .as_ref()
                        .and_then(|j| j.gate.clone())
                        .or_else(|| {
                            (p.report.deferred_because == Some(DeferReason::DenyListed))
                                .then(|| "a deny-listed path".to_owned())
                        })
                });
            }
            // Not asked: a person's thread, or one a hard gate (or the reader's "not a
            // finding") decides whatever a judge would say.
            _ if planned.threads.first().is_some_and(|p| p.report.human) => {
                gate = Some("read as a person's thread: never asked".to_owned());
            }
            _ => {
                gate = signals.threads.get(&thread).and_then(|sig| {
                    review_core::judge::hard_gate(sig).or_else(|| {
                        sig.non_finding
                            .map(|n| format!("not a finding ({}): never asked", n.as_str()))
                    })
                });
            }
        }
    }
    let read_as_bot = identify(
        case.author.as_ref(),
        &case.body,
        pr.author.as_ref(),
        &settings.automation,
    )
    .is_some();
    let hint = hint_family(
        case.author.as_ref(),
        &case.body,
        pr.author.as_ref(),
        &settings.automation,
    );
    let entry = planned.threads.into_iter().next();
    match entry {
        Some(p) => Planned {
            case: case.clone(),
            read_as_bot,
            class: p.report.class,
            outcome: p.report.outcome,
            mutates: p.action.mutates(),
            reason: p.report.reason,
            hint,
            gate,
        },
        None => Planned {
            case: case.clone(),
            read_as_bot,
            class: None,
            outcome: PlanOutcome::Deferred,
            mutates: false,
            reason: "no plan entry".to_owned(),
            hint,
            gate,
        },
    }
}

/// The figures of a group of cases.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Figures {
    /// Cases.
    pub cases: usize,
    /// People's comments.
    pub people: usize,
    /// People's comments read as automated.
    pub people_as_bots: usize,
    /// Automated comments.
    pub bots: usize,
    /// Automated comments read as automated.
    pub bots_as_bots: usize,
    /// Automated comments whose class (the core's, alone) is the label.
    pub class_agrees: usize,
    /// Automated comments labelled ambiguous.
    pub labelled_ambiguous: usize,
    /// Automated comments the core reads as ambiguous.
    pub read_ambiguous: usize,
    /// Harmful outcomes.
    pub harmful: usize,
    /// Bot threads labelled actionable or nit.
    pub eligible: usize,
    /// Of those, handled without a person.
    pub handled: usize,
    /// People's comments that should get a hint (a tool posting through a user account).
    pub hints_expected: usize,
    /// Of those, hinted at the right family.
    pub hints_right: usize,
    /// People's comments hinted at when they should not be.
    pub hints_unexpected: usize,
}

impl Figures {
    fn add(&mut self, p: &Planned) {
        self.cases += 1;
        if p.case.is_person() {
            self.people += 1;
            self.people_as_bots += usize::from(p.read_as_bot);
        } else {
            self.bots += 1;
            self.bots_as_bots += usize::from(p.read_as_bot);
            let label = p.case.class.as_deref();
            self.class_agrees += usize::from(p.class.map(Class::as_str) == label);
            self.labelled_ambiguous += usize::from(label == Some("ambiguous"));
            self.read_ambiguous += usize::from(p.class == Some(Class::Ambiguous));
        }
        self.harmful += usize::from(p.harmful());
        if let Some(handled) = p.handled() {
            self.eligible += 1;
            self.handled += usize::from(handled);
        }
        match (&p.case.hint, &p.hint) {
            (Some(want), got) => {
                self.hints_expected += 1;
                self.hints_right += usize::from(got.as_ref() == Some(want));
            }
            (None, Some(_)) => self.hints_unexpected += 1,
            (None, None) => {}
        }
    }

    /// The handled share, in percent (100 when nothing is eligible).
    pub fn handled_pct(&self) -> f64 {
        pct(self.handled, self.eligible)
    }
}

fn pct(ok: usize, n: usize) -> f64 {
    if n == 0 {
        100.0
    } else {
        ok as f64 * 100.0 / n as f64
    }
}

/// The plan-mode evaluation of a corpus: every case planned, figures per part and family.
#[derive(Debug, Clone)]
pub struct PlanReport {
    /// Every case's plan, in corpus order.
    pub planned: Vec<Planned>,
    /// Who decided the judgement calls.
    pub judging: Judging,
}

impl PlanReport {
    /// Plans every case, with no judge.
    pub fn new(cases: &[Case]) -> Self {
        Self::judged(cases, Judging::None)
    }

    /// Plans every case with `judging`.
    pub fn judged(cases: &[Case], judging: Judging) -> Self {
        Self {
            planned: cases.iter().map(|c| plan_case_judged(c, judging)).collect(),
            judging,
        }
    }

    /// [`Self::gated`] as lines: the tuned part's cases by name with their gate; the held-back
    /// part's by the gate's kind only.
    pub fn render_gated(&self, part: Part) -> String {
        let mut out = String::from("left to a person by a hard gate:\n");
        for (case, gate) in self.gated(part) {
            let gate = gate.unwrap_or("NO GATE");
            if part == Part::HeldBack {
                // Held-back cases are never named, nor what the reader read in them: the
                // gate's kind only.
                let kind = gate.split(" (").next().unwrap_or(gate);
                let _ = writeln!(out, "  a held-back case: {kind}");
            } else {
                let _ = writeln!(out, "  {case}: {gate}");
            }
        }
        out
    }

    /// The bot cases of `part` labelled actionable or nit that were not handled, each with the
    /// hard gate that stopped the judge (names only the cases: their text stays unread).
    pub fn gated(&self, part: Part) -> Vec<(&str, Option<&str>)> {
        self.part(part)
            .filter(|p| p.handled() == Some(false))
            .map(|p| (p.case.name.as_str(), p.gate.as_deref()))
            .collect()
    }

    /// The cases of one part.
    pub fn part(&self, part: Part) -> impl Iterator<Item = &Planned> {
        self.planned.iter().filter(move |p| p.case.part() == part)
    }

    /// The figures of one part, overall.
    pub fn overall(&self, part: Part) -> Figures {
        let mut f = Figures::default();
        for p in self.part(part) {
            f.add(p);
        }
        f
    }

    /// The figures of one part, per expected family.
    pub fn by_family(&self, part: Part) -> BTreeMap<String, Figures> {
        let mut out: BTreeMap<String, Figures> = BTreeMap::new();
        for p in self.part(part) {
            out.entry(p.case.family.clone()).or_default().add(p);
        }
        out
    }

    /// The printed table of one part.
    pub fn render_part(&self, part: Part) -> String {
        let mut out = String::new();
        let overall = self.overall(part);
        let _ = writeln!(
            out,
            "{} part: {} cases ({} automated, {} people); plan mode, fixer configured, {}",
            part.as_str(),
            overall.cases,
            overall.bots,
            overall.people,
            self.judging.describe()
        );
        let _ = writeln!(
            out,
            "{:<12}{:>6}{:>11}{:>11}{:>11}{:>17}{:>9}{:>16}",
            "family",
            "cases",
            "people→bot",
            "bots→bot",
            "class ok",
            "ambiguous l/r",
            "harmful",
            "handled"
        );
        let row = |out: &mut String, name: &str, f: &Figures| {
            let people = if f.people == 0 {
                "-".to_owned()
            } else {
                format!("{}/{}", f.people_as_bots, f.people)
            };
            let bots = |n: usize| {
                if f.bots == 0 {
                    "-".to_owned()
                } else {
                    format!("{n}/{}", f.bots)
                }
            };
            let ambiguous = if f.bots == 0 {
                "-".to_owned()
            } else {
                format!(
                    "{:.0}%/{:.0}%",
                    pct(f.labelled_ambiguous, f.bots),
                    pct(f.read_ambiguous, f.bots)
                )
            };
            let handled = if f.eligible == 0 {
                "-".to_owned()
            } else {
                format!("{}/{} {:.0}%", f.handled, f.eligible, f.handled_pct())
            };
            let _ = writeln!(
                out,
                "{name:<12}{:>6}{:>11}{:>11}{:>11}{:>17}{:>9}{:>16}",
                f.cases,
                people,
                bots(f.bots_as_bots),
                bots(f.class_agrees),
                ambiguous,
                f.harmful,
                handled
            );
        };
        for (family, f) in self.by_family(part) {
            row(&mut out, &family, &f);
        }
        row(&mut out, "overall", &overall);
        let _ = writeln!(
            out,
            "people read as bots: {}; harmful: {}; handled without a person: {:.1}% ({}/{}); class agreement: {:.1}% ({}/{})",
            overall.people_as_bots,
            overall.harmful,
            overall.handled_pct(),
            overall.handled,
            overall.eligible,
            pct(overall.class_agrees, overall.bots),
            overall.class_agrees,
            overall.bots,
        );
        let _ = writeln!(
            out,
            "hints: {}/{} people's accounts posting in a tool's format hinted at the right family; {} other comments hinted at",
            overall.hints_right, overall.hints_expected, overall.hints_unexpected
        );
        out
    }

    /// Every case of the tuned part whose plan is harmful or not handled, or whose class is not
    /// its label, with the reason the report gives. The held-back part is never listed.
    pub fn render_tuned_misses(&self) -> String {
        self.render_tuned(false)
    }

    /// Every case of the tuned part, as [`Self::render_tuned_misses`] lists a miss. The held-back
    /// part is never listed.
    pub fn render_tuned_all(&self) -> String {
        self.render_tuned(true)
    }

    fn render_tuned(&self, all: bool) -> String {
        let mut out = String::new();
        for p in self.part(Part::Tuned) {
            let label = p.case.class.as_deref().unwrap_or("person");
            let class = p.class.map_or("-", Class::as_str);
            let miss = p.harmful()
                || p.handled() == Some(false)
                || (!p.case.is_person() && class != label)
                || (p.case.is_person() && p.read_as_bot)
                || p.hint != p.case.hint;
            if miss || all {
                let _ = writeln!(
                    out,
                    "  {}{}: label {label}, class {class}, {} — {}{}",
                    if p.harmful() { "HARMFUL " } else { "" },
                    p.case.name,
                    p.outcome.as_str(),
                    p.reason,
                    if p.hint == p.case.hint {
                        String::new()
                    } else {
                        format!(" [hint {:?}, want {:?}]", p.hint, p.case.hint)
                    }
                );
            }
        }
        out
    }
}
