//! `review decide` over this clone's loop files and GitHub: the verdicts recorded, shared by the
//! command and `review mcp`'s `record_verdicts`. The work is `review_app::decide`'s.

use std::collections::BTreeMap;

use review_app::decide::{Answers, Recorded};

use crate::commands::common;
use crate::error::CliError;
use crate::output;

/// A batch of answers as JSON gives them (fingerprint to the triager's answer, an object or
/// text), each as the raw text the decision reads: an object's JSON, a string's text, nothing
/// for null.
pub fn batch(answers: impl IntoIterator<Item = (String, serde_json::Value)>) -> Answers {
    Answers::Batch(
        answers
            .into_iter()
            .map(|(fp, v)| {
                let raw = match v {
                    serde_json::Value::Null => String::new(),
                    serde_json::Value::String(s) => s,
                    other => other.to_string(),
                };
                (fp, raw)
            })
            .collect::<BTreeMap<_, _>>(),
    )
}

/// Records `answers` for the pull request `pr` and `repo` name, in the decisions of `round`
/// (the current one when `None`): the deny list is the flags' (`deny_paths`), the user's file
/// and the repository's. Narrates the answers ignored and the pending findings left out.
pub async fn decide(
    pr: Option<&str>,
    repo: Option<&str>,
    answers: &Answers,
    round: Option<u32>,
    deny_paths: &[String],
    config: &crate::config::Config,
) -> Result<Vec<Recorded>, CliError> {
    let conn = common::connect(pr, repo, config).await?;
    let (repo, number) = (conn.repo.clone(), conn.number);
    let files = common::loop_files_here(&repo, number)?;
    let watch = files.require_watch(number)?;
    let denied = crate::config::repository_of(&conn.client, &repo, number)
        .await?
        .denied(deny_paths, config);
    let decided = review_app::decide::decide(&files, &watch, answers, round, &denied)?;
    for fp in &decided.ignored {
        output::narrate(&format!(
            "[decide] {fp} is not a pending finding; its answer is ignored"
        ));
    }
    if decided.left > 0 {
        output::narrate(&format!(
            "[decide] {} pending finding(s) are not in this batch: what was recorded for them stays",
            decided.left
        ));
    }
    Ok(decided.recorded)
}
