//! The first page of a pull request on a server whose API may lack
//! `PullRequest.statusCheckRollup`: asked with it, and on that server (once per run, remembered
//! by the [`Client`](crate::client::Client)) without it, the roll-up then marked unknown.

use super::{ReadError, Reader};
use crate::client::{ApiError, ClientError};
use crate::queries as q;
use cynic::QueryBuilder;

/// The one field a first page can do without: it feeds only the checks' roll-up, which the
/// REST probe's named checks stand beside.
const ROLLUP: (&str, &str) = ("PullRequest", "statusCheckRollup");

/// A first page, and whether its roll-up is unknown (the server lacks it).
pub(super) struct FirstPage {
    pub page: q::PullRequestFirstPage,
    pub errors: Vec<ApiError>,
    pub rollup_unknown: bool,
}

impl Reader<'_> {
    /// The first page of `vars`'s pull request, without the roll-up on a server lacking it.
    pub(super) async fn first_page(
        &self,
        vars: q::PullRequestVariables,
        what: &str,
    ) -> Result<FirstPage, ReadError> {
        let (type_name, field) = ROLLUP;
        if !self.client.lacks(type_name, field) {
            match self
                .fetch(q::PullRequestFirstPage::build(vars.clone()), what)
                .await
            {
                Err(ReadError::Request {
                    source: ClientError::Unsupported(missing),
                    ..
                }) if missing.is_field(type_name, field) => self.client.note_lacking(&missing),
                other => {
                    return other.map(|(page, errors)| FirstPage {
                        page,
                        errors,
                        rollup_unknown: false,
                    });
                }
            }
        }
        let (page, errors) = self
            .fetch(q::PullRequestFirstPageWithoutChecks::build(vars), what)
            .await?;
        Ok(FirstPage {
            page: page.into(),
            errors,
            rollup_unknown: true,
        })
    }
}
