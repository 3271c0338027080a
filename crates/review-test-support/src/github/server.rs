//! The HTTP side of the fake: what GitHub's GraphQL endpoint answers before and around running
//! a document (authentication, malformed bodies, rate-limit headers, injected faults).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::{Map, Value as Json, json};
use wiremock::{Request, Respond, ResponseTemplate};

use super::depth::Timing;
use super::document::{self, Document, Operation, Selection};
use super::exec;
use super::state::{self, POINTS_PER_HOUR, State};
use super::{Fault, Recorded};

pub(super) const SECONDARY_LIMIT: &str = "You have exceeded a secondary rate limit. Please \
     wait a few minutes before you try again. If you reach out to GitHub Support for help, \
     please include the request ID FAKE:0000:0000.";

/// The wiremock responder: one per fake, sharing the fake's state.
#[derive(Debug)]
pub(crate) struct Responder {
    pub state: Arc<Mutex<State>>,
}

impl Respond for Responder {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        // Arrival, before waiting for the state: requests sent together arrive together.
        let start = Instant::now();
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let (status, template, delay) = handle(&mut st, request);
        if let Some(last) = st.requests.last_mut() {
            last.status = status;
        }
        let answered = Instant::now();
        st.timings.push(Timing {
            start,
            end: answered.checked_add(delay).unwrap_or(answered),
        });
        template
    }
}

pub(super) fn header(request: &Request, name: &str) -> Option<String> {
    request
        .headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

/// A JSON answer with GitHub's rate-limit headers.
fn json_answer(st: &State, status: u16, body: &Json) -> (u16, ResponseTemplate) {
    let remaining = POINTS_PER_HOUR.saturating_sub(st.points);
    let template = ResponseTemplate::new(status)
        .insert_header("content-type", "application/json; charset=utf-8")
        .insert_header("x-github-request-id", format!("FAKE:{}", st.requests.len()))
        .insert_header("x-ratelimit-limit", POINTS_PER_HOUR.to_string())
        .insert_header("x-ratelimit-remaining", remaining.to_string())
        .insert_header("x-ratelimit-used", st.points.to_string())
        .insert_header("x-ratelimit-reset", st.reset_at.to_string())
        .insert_header("x-ratelimit-resource", "graphql")
        .set_body_raw(
            body.to_string().into_bytes(),
            "application/json; charset=utf-8",
        );
    (status, template)
}

/// GitHub's HTML error page for a 5xx from its front end.
pub(super) fn html_answer(status: u16) -> (u16, ResponseTemplate) {
    let body = format!(
        "<!DOCTYPE html>\n<html>\n<head><title>{status} &middot; GitHub</title></head>\n\
         <body><h1>We couldn't respond to your request in time.</h1>\n\
         <p>Sorry about that. Please try refreshing and contact us if the problem persists.</p>\n\
         </body>\n</html>\n"
    );
    let template =
        ResponseTemplate::new(status).set_body_raw(body.into_bytes(), "text/html; charset=utf-8");
    (status, template)
}

/// The operation a document runs: the one named, or the only one.
fn pick<'d>(doc: &'d Document, name: Option<&str>) -> Result<&'d Operation, String> {
    match name {
        Some(name) => doc
            .operations
            .iter()
            .find(|o| o.name.as_deref() == Some(name))
            .ok_or_else(|| format!("No operation named \"{name}\"")),
        None if doc.operations.len() == 1 => Ok(&doc.operations[0]),
        None if doc.operations.is_empty() => Err("No operations in query document".to_owned()),
        None => Err("An operation name is required".to_owned()),
    }
}

/// The top-level response keys of an operation, and how many of them are aliased.
fn top_level(op: &Operation) -> (Vec<String>, usize) {
    let fields: Vec<_> = op
        .selection
        .iter()
        .filter_map(|s| match s {
            Selection::Field(f) => Some(f),
            _ => None,
        })
        .collect();
    let aliased = fields.iter().filter(|f| f.alias.is_some()).count();
    (fields.iter().map(|f| f.key().to_owned()).collect(), aliased)
}

/// Takes the faults that apply to a request known by the operation names `names` (a GraphQL
/// request by its one operation name, a REST request by [`super::REST_OPERATION`] and its
/// route's) with top-level keys `keys`: a delay, a replacement answer, and the aliases that must
/// fail. Spends one `times` of each.
pub(super) fn take_faults(
    st: &mut State,
    names: &[&str],
    keys: &[String],
) -> (Option<Duration>, Option<Fault>, BTreeSet<String>) {
    let mut delay = None;
    let mut answer = None;
    let mut failing = BTreeSet::new();
    let applies = |wanted: &Option<String>| wanted.as_deref().is_none_or(|w| names.contains(&w));
    for fault in &mut st.faults {
        let hit = match fault {
            Fault::Slow {
                operation,
                delay: d,
                times,
            } if *times > 0 && delay.is_none() && applies(operation) => {
                delay = Some(*d);
                Some(times)
            }
            Fault::AliasError { alias, times } if *times > 0 && keys.contains(alias) => {
                failing.insert(alias.clone());
                Some(times)
            }
            Fault::ServerError {
                operation, times, ..
            }
            | Fault::SecondaryLimit {
                operation, times, ..
            }
            | Fault::RateLimited {
                operation, times, ..
            }
            | Fault::ApplyThenFail {
                operation, times, ..
            }
            | Fault::CutOff { operation, times }
                if *times > 0 && answer.is_none() && applies(operation) =>
            {
                answer = Some(fault.clone());
                Some(fault.times_mut())
            }
            Fault::Flaky {
                operation,
                status,
                percent,
                seed,
                times,
            } if *times > 0 && answer.is_none() && applies(operation) => {
                // Drawn for every request it could hit, so the failures follow from the seed.
                (next_random(seed) % 100 < u64::from(*percent)).then(|| {
                    answer = Some(Fault::ServerError {
                        operation: operation.clone(),
                        status: *status,
                        times: 1,
                    });
                    times
                })
            }
            _ => None,
        };
        if let Some(times) = hit {
            *times -= 1;
        }
    }
    st.faults.retain(|f| f.times() > 0);
    (delay, answer, failing)
}

/// The node faults that apply to the next document: the ids that read null
/// ([`Fault::NullNode`]) and those left out ([`Fault::MissingNode`]). Spent by
/// [`spend_node_faults`] once the answer is known to hold them.
fn node_faults(st: &State) -> exec::Injected {
    let mut injected = exec::Injected::default();
    for fault in &st.faults {
        match fault {
            Fault::NullNode { id, times } if *times > 0 => {
                injected.null.insert(id.clone());
            }
            Fault::MissingNode { id, times } if *times > 0 => {
                injected.missing.insert(id.clone());
            }
            Fault::FailingNode { id, times } if *times > 0 => {
                injected.failing_nodes.insert(id.clone());
            }
            _ => {}
        }
    }
    injected
}

/// Spends one `times` of each node fault whose node the answer held (`hits`).
fn spend_node_faults(st: &mut State, hits: &BTreeSet<String>) {
    for fault in &mut st.faults {
        if let Fault::NullNode { id, times }
        | Fault::MissingNode { id, times }
        | Fault::FailingNode { id, times } = fault
            && *times > 0
            && hits.contains(id)
        {
            *times -= 1;
        }
    }
    st.faults.retain(|f| f.times() > 0);
}

/// The next number of a splitmix64 generator whose state is `state`.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// How the answer to a request hit by [`Fault::CutOff`] is cut: by the proxy in front of the
/// fake (the request came through it), or by the fake itself (a stand-in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cut {
    /// The answer goes whole to the proxy, marked, and the proxy drops the connection half-way.
    ByProxy,
    /// The fake answers the body cut in half.
    Here,
}

impl Cut {
    /// How to cut the answer to `request`, if `fault` is a [`Fault::CutOff`].
    pub(super) fn of(fault: Option<&Fault>, request: &Request) -> Option<Self> {
        matches!(fault, Some(Fault::CutOff { .. })).then(|| {
            if header(request, super::proxy::VIA_PROXY).is_some() {
                Self::ByProxy
            } else {
                Self::Here
            }
        })
    }

    /// `template` with body `body`, cut this way.
    pub(super) fn apply(
        self,
        template: ResponseTemplate,
        body: &[u8],
        mime: &str,
    ) -> ResponseTemplate {
        match self {
            Self::ByProxy => template
                .set_body_raw(body.to_vec(), mime)
                .insert_header(super::proxy::CUT_HERE, "1"),
            Self::Here => template.set_body_raw(body[..body.len() / 2].to_vec(), mime),
        }
    }
}

/// Answers one request, and records it; the answer's added delay beside it.
fn handle(st: &mut State, request: &Request) -> (u16, ResponseTemplate, Duration) {
    let (delay, answered) = answer(st, request);
    (answered.0, answered.1, delay.unwrap_or_default())
}

/// The answer to one request, recorded, and the delay it takes.
fn answer(st: &mut State, request: &Request) -> (Option<Duration>, (u16, ResponseTemplate)) {
    let body: Option<Json> = serde_json::from_slice(&request.body).ok();
    let query = body
        .as_ref()
        .and_then(|b| b.get("query"))
        .and_then(Json::as_str)
        .map(str::to_owned);
    let variables = body
        .as_ref()
        .and_then(|b| b.get("variables"))
        .cloned()
        .unwrap_or(Json::Null);
    let named = body
        .as_ref()
        .and_then(|b| b.get("operationName"))
        .and_then(Json::as_str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned);
    let parsed = query.as_deref().map(document::parse);
    let doc = parsed.as_ref().and_then(|p| p.as_ref().ok());
    let op = doc.and_then(|d| pick(d, named.as_deref()).ok());
    let operation = named.clone().or_else(|| op.and_then(|o| o.name.clone()));
    let (keys, aliases) = op.map(top_level).unwrap_or_default();
    let authorization = header(request, "authorization");
    st.requests.push(Recorded {
        operation: operation.clone(),
        variables,
        aliases,
        authorization,
        query: query.unwrap_or_default(),
        status: 0,
    });

    let names: Vec<&str> = operation.as_deref().into_iter().collect();
    let (delay, answer, failing) = take_faults(st, &names, &keys);
    let delayed = |(status, t): (u16, ResponseTemplate)| match delay {
        Some(d) => (delay, (status, t.set_delay(d))),
        None => (delay, (status, t)),
    };
    match answer {
        Some(Fault::ServerError { status, .. }) => return delayed(html_answer(status)),
        Some(Fault::SecondaryLimit {
            status,
            retry_after,
            ..
        }) => {
            let body = if status == 200 {
                json!({"errors": [{"message": SECONDARY_LIMIT}]})
            } else {
                json!({
                    "documentation_url": "https://docs.github.com/graphql/overview/rate-limits-and-node-limits-for-the-graphql-api#secondary-rate-limits",
                    "message": SECONDARY_LIMIT,
                })
            };
            let (status, mut t) = json_answer(st, status, &body);
            if let Some(secs) = retry_after {
                t = t.insert_header("retry-after", secs.to_string());
            }
            return delayed((status, t));
        }
        Some(Fault::RateLimited { reset_in_secs, .. }) => {
            let body = json!({"errors": [{
                "type": "RATE_LIMITED",
                "message": "API rate limit exceeded for user ID 1.",
            }]});
            let (status, t) = json_answer(st, 200, &body);
            let t = t
                .insert_header("x-ratelimit-remaining", "0")
                .insert_header("x-ratelimit-used", POINTS_PER_HOUR.to_string())
                .insert_header(
                    "x-ratelimit-reset",
                    (state::now() + reset_in_secs).to_string(),
                );
            return delayed((status, t));
        }
        _ => {}
    }

    let cut = Cut::of(answer.as_ref(), request);
    let injected = exec::Injected {
        failing,
        read_only: bearer(request).is_some_and(|t| st.read_only.contains(&t)),
        ..node_faults(st)
    };
    let answered = answer_document(st, request, &body, parsed, named.as_deref(), &injected, cut);
    match answer {
        Some(Fault::ApplyThenFail { status, .. }) => delayed(html_answer(status)),
        _ => delayed(answered),
    }
}

/// GitHub's front end refuses a request without a `User-Agent`, REST and GraphQL alike.
pub(super) fn refuse_without_user_agent(request: &Request) -> Option<(u16, ResponseTemplate)> {
    if header(request, "user-agent").is_some_and(|ua| !ua.trim().is_empty()) {
        return None;
    }
    let text = "Request forbidden by administrative rules. Please make sure your request has \
                a User-Agent header (https://docs.github.com/en/rest/overview/resources-in-the-rest-api#user-agent-required). \
                Check https://developer.github.com for other possible causes.\n";
    Some((
        403,
        ResponseTemplate::new(403).set_body_raw(text.as_bytes().to_vec(), "text/plain"),
    ))
}

/// The token of an `Authorization: Bearer <token>` (or `token <token>`) header.
pub(super) fn bearer(request: &Request) -> Option<String> {
    header(request, "authorization").and_then(|a| {
        a.strip_prefix("Bearer ")
            .or_else(|| a.strip_prefix("bearer "))
            .or_else(|| a.strip_prefix("token "))
            .map(|t| t.trim().to_owned())
    })
}

/// Authenticates, parses, validates and runs the document, as GitHub's endpoint does.
fn answer_document(
    st: &mut State,
    request: &Request,
    body: &Option<Json>,
    parsed: Option<Result<Document, document::ParseError>>,
    named: Option<&str>,
    injected: &exec::Injected,
    cut: Option<Cut>,
) -> (u16, ResponseTemplate) {
    if let Some(refused) = refuse_without_user_agent(request) {
        return refused;
    }
    let token = bearer(request);
    match (&token, &st.token) {
        (None, _) => {
            return json_answer(
                st,
                401,
                &json!({
                    "message": "This endpoint requires you to be authenticated.",
                    "documentation_url": "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql",
                }),
            );
        }
        (Some(given), Some(wanted)) if given != wanted => {
            return json_answer(
                st,
                401,
                &json!({
                    "message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/graphql",
                    "status": "401",
                }),
            );
        }
        _ => {}
    }
    let Some(body) = body else {
        return json_answer(
            st,
            400,
            &json!({
                "message": "Problems parsing JSON",
                "documentation_url": "https://docs.github.com/graphql",
            }),
        );
    };
    let doc = match parsed {
        None => {
            return json_answer(
                st,
                200,
                &json!({"errors": [{"message": "A query attribute must be specified and must be a string."}]}),
            );
        }
        Some(Err(e)) => {
            return json_answer(
                st,
                200,
                &json!({"errors": [{"message": e.message, "locations": exec::locations(e.pos)}]}),
            );
        }
        Some(Ok(doc)) => doc,
    };
    let op = match pick(&doc, named) {
        Ok(op) => op,
        Err(message) => return json_answer(st, 200, &json!({"errors": [{"message": message}]})),
    };
    let given: Map<String, Json> = match body.get("variables") {
        None | Some(Json::Null) => Map::new(),
        Some(Json::Object(m)) => m.clone(),
        Some(Json::String(s)) if s.trim().is_empty() => Map::new(),
        Some(other) => {
            return json_answer(
                st,
                200,
                &json!({"errors": [{"message": format!("Variables must be an object, not {other}")}]}),
            );
        }
    };
    let vars = match exec::validate(&doc, op, &given, &st.lacking) {
        Ok(vars) => vars,
        Err(errors) => return json_answer(st, 200, &json!({ "errors": errors })),
    };
    st.points += 1;
    let (data, errors, hits) = exec::execute(st, &doc, op, &vars, injected);
    spend_node_faults(st, &hits);
    let mut out = Map::new();
    out.insert("data".into(), data);
    if !errors.is_empty() {
        out.insert("errors".into(), Json::Array(errors));
    }
    let out = Json::Object(out);
    let (status, template) = json_answer(st, 200, &out);
    match cut {
        None => (status, template),
        Some(cut) => {
            let mime = "application/json; charset=utf-8";
            (
                status,
                cut.apply(template, out.to_string().as_bytes(), mime),
            )
        }
    }
}
