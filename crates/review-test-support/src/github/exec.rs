//! Validation and execution of one GraphQL operation against the fake's state, with GitHub's
//! semantics: validation errors fail the whole document; an execution error nulls its field
//! (and, through non-null fields, its nearest nullable parent) and is reported with its `path`;
//! mutation fields run one after the other.

use std::cell::RefCell;
use std::collections::BTreeSet;

use review_core::model::{
    Author, AuthorKind, Comment, CommentId, PrState, Review, ReviewId, ReviewState, SubjectType,
    Thread, ThreadId,
};
use serde_json::{Map, Value as Json, json};

use super::document::{
    Directive, Document, Field, OpKind, Operation, Pos, Selection, TypeRef, Value,
};
use super::schema::{self, Kind};
use super::state::{
    self, BLOB_TEXT_LIMIT, FakeFile, GitObject, Lacking, POINTS_PER_HOUR, PrEntry, State, TreeEntry,
};
use crate::Mutation;

/// GitHub's limit on a comment body, in characters.
const MAX_BODY: usize = 65_536;

/// The most items a connection hands out at once.
const MAX_PAGE: i64 = 100;

/// An error raised while resolving one field.
#[derive(Debug)]
pub(crate) struct FieldErr {
    kind: Option<&'static str>,
    message: String,
}

impl FieldErr {
    fn new(kind: &'static str, message: impl Into<String>) -> Self {
        Self {
            kind: Some(kind),
            message: message.into(),
        }
    }

    fn node_not_found(id: &str) -> Self {
        Self::new(
            "NOT_FOUND",
            format!("Could not resolve to a node with the global id of '{id}'"),
        )
    }
}

/// An error entry of a response.
fn error_json(kind: Option<&str>, message: &str, path: &[Json], pos: Pos) -> Json {
    let mut m = Map::new();
    if let Some(kind) = kind {
        m.insert("type".into(), kind.into());
    }
    m.insert("path".into(), Json::Array(path.to_vec()));
    m.insert("locations".into(), locations(pos));
    m.insert("message".into(), message.into());
    Json::Object(m)
}

pub(crate) fn locations(pos: Pos) -> Json {
    json!([{"line": pos.line, "column": pos.column}])
}

/// The error GitHub gives when something broke inside it while running one field.
fn internal_error(path: &[Json], pos: Pos) -> Json {
    error_json(
        None,
        "Something went wrong while executing your query. This may be the result of a timeout, \
         or it could be a GitHub bug. Please include `FAKE:0000:0000` when reporting this issue.",
        path,
        pos,
    )
}

// ---------------------------------------------------------------------------------------------
// Input values

/// An input value with variables replaced by their values (absent variables read as null).
fn literal_json(v: &Value, vars: &Map<String, Json>) -> Json {
    match v {
        Value::Var(n) => vars.get(n).cloned().unwrap_or(Json::Null),
        Value::Int(i) => json!(i),
        Value::Float(x) => json!(x),
        Value::Str(s) | Value::Enum(s) => json!(s),
        Value::Bool(b) => json!(b),
        Value::Null => Json::Null,
        Value::List(items) => items.iter().map(|i| literal_json(i, vars)).collect(),
        Value::Object(fields) => Json::Object(
            fields
                .iter()
                .map(|(k, v)| (k.clone(), literal_json(v, vars)))
                .collect(),
        ),
    }
}

/// A field's arguments; an argument given as an absent variable is left out, as GraphQL does.
fn args_json(field: &Field, vars: &Map<String, Json>) -> Map<String, Json> {
    field
        .args
        .iter()
        .filter(|(_, v)| !matches!(v, Value::Var(n) if !vars.contains_key(n)))
        .map(|(k, v)| (k.clone(), literal_json(v, vars)))
        .collect()
}

/// Checks a JSON value against an input type; the problem, worded as GitHub words it.
fn check_json(v: &Json, ty: &TypeRef) -> Result<(), String> {
    match ty {
        TypeRef::NonNull(t) => {
            if v.is_null() {
                Err("Expected value to not be null".to_owned())
            } else {
                check_json(v, t)
            }
        }
        _ if v.is_null() => Ok(()),
        TypeRef::List(t) => match v {
            Json::Array(items) => items.iter().try_for_each(|i| check_json(i, t)),
            other => check_json(other, t),
        },
        TypeRef::Named(n) => match schema::kind(n) {
            Some(Kind::Scalar) => {
                let ok = match n.as_str() {
                    "Int" => v.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
                    "Float" => v.is_number(),
                    "Boolean" => v.is_boolean(),
                    "ID" => v.is_string() || v.is_i64(),
                    _ => v.is_string(),
                };
                if ok {
                    Ok(())
                } else {
                    Err(format!("Could not coerce value {v} to {n}"))
                }
            }
            Some(Kind::Enum(values)) => match v.as_str() {
                Some(s) if values.contains(&s) => Ok(()),
                _ => Err(format!("Expected {v} to be one of: {}", values.join(", "))),
            },
            Some(Kind::Input(fields)) => {
                let Some(obj) = v.as_object() else {
                    return Err(format!("Expected {v} to be a key-value object."));
                };
                for key in obj.keys() {
                    if !fields.iter().any(|(f, _)| f == key) {
                        return Err(format!("Field is not defined on {n}: {key}"));
                    }
                }
                for (name, fty) in fields {
                    let fty = TypeRef::parse(fty).unwrap_or(TypeRef::Named((*fty).to_owned()));
                    check_json(obj.get(*name).unwrap_or(&Json::Null), &fty)
                        .map_err(|e| format!("{name}: {e}"))?;
                }
                Ok(())
            }
            _ => Err(format!("{n} isn't a defined input type")),
        },
    }
}

fn is_input_type(name: &str) -> bool {
    matches!(
        schema::kind(name),
        Some(Kind::Scalar | Kind::Enum(_) | Kind::Input(_))
    )
}

// ---------------------------------------------------------------------------------------------
// Validation

/// The name GitHub gives an operation in validation error paths (`query PullRequestFirstPage`).
fn op_label(op: &Operation) -> String {
    let kind = match op.kind {
        OpKind::Query => "query",
        OpKind::Mutation => "mutation",
        OpKind::Subscription => "subscription",
    };
    match &op.name {
        Some(n) => format!("{kind} {n}"),
        None => kind.to_owned(),
    }
}

struct Validator<'d> {
    doc: &'d Document,
    op: &'d Operation,
    vars: &'d Map<String, Json>,
    used: BTreeSet<String>,
    errors: Vec<Json>,
    depth: usize,
    /// What this server's schema lacks beyond the fake's slice.
    lacking: &'d Lacking,
}

impl Validator<'_> {
    fn error(&mut self, message: &str, path: &[Json], pos: Pos, code: &str) {
        self.errors.push(json!({
            "path": path,
            "extensions": {"code": code},
            "locations": locations(pos),
            "message": message,
        }));
    }

    fn op_name(&self) -> String {
        self.op
            .name
            .clone()
            .unwrap_or_else(|| "anonymous operation".to_owned())
    }

    /// Checks an argument's value at a place of type `ty`; records the variables it uses.
    fn literal(&mut self, v: &Value, ty: &TypeRef, pos: Pos, path: &[Json]) -> Result<(), String> {
        match v {
            Value::Var(name) => {
                self.used.insert(name.clone());
                let Some(def) = self.op.vars.iter().find(|d| &d.name == name) else {
                    let op = self.op_name();
                    self.error(
                        &format!("Variable ${name} is used by {op} but not declared"),
                        path,
                        pos,
                        "variableNotDefined",
                    );
                    return Ok(());
                };
                let place_non_null = matches!(ty, TypeRef::NonNull(_));
                let var_non_null = matches!(def.ty, TypeRef::NonNull(_)) || def.default.is_some();
                if def.ty.base() != ty.base() {
                    return Err(format!(
                        "Type mismatch on variable ${name} and argument ({} / {ty})",
                        def.ty
                    ));
                }
                if place_non_null && !var_non_null {
                    return Err(format!(
                        "Nullability mismatch on variable ${name} and argument ({} / {ty})",
                        def.ty
                    ));
                }
                Ok(())
            }
            Value::Null => match ty {
                TypeRef::NonNull(_) => Err("Expected value to not be null".to_owned()),
                _ => Ok(()),
            },
            Value::List(items) => {
                let inner = match ty {
                    TypeRef::NonNull(t) => t.as_ref(),
                    t => t,
                };
                match inner {
                    TypeRef::List(t) => {
                        items.iter().try_for_each(|i| self.literal(i, t, pos, path))
                    }
                    _ => Err(format!(
                        "Expected a single value of type {inner}, not a list"
                    )),
                }
            }
            Value::Object(fields) => {
                let base = ty.base();
                let Some(Kind::Input(defs)) = schema::kind(base) else {
                    return Err(format!("Expected a value of type {ty}, not an object"));
                };
                for (k, _) in fields {
                    if !defs.iter().any(|(d, _)| d == k) {
                        return Err(format!("Field is not defined on {base}: {k}"));
                    }
                }
                for (name, fty) in defs {
                    let fty = TypeRef::parse(fty).unwrap_or(TypeRef::Named((*fty).to_owned()));
                    match fields.iter().find(|(k, _)| k == name) {
                        Some((_, fv)) => self
                            .literal(fv, &fty, pos, path)
                            .map_err(|e| format!("{name}: {e}"))?,
                        None if matches!(fty, TypeRef::NonNull(_)) => {
                            return Err(format!("{name}: Expected value to not be null"));
                        }
                        None => {}
                    }
                }
                Ok(())
            }
            scalar => check_json(&literal_json(scalar, self.vars), ty),
        }
    }

    fn directives(&mut self, directives: &[Directive], pos: Pos, path: &[Json]) {
        for d in directives {
            if d.name != "skip" && d.name != "include" {
                self.error(
                    &format!("Directive @{} is not defined", d.name),
                    path,
                    pos,
                    "undefinedDirective",
                );
                continue;
            }
            for (name, v) in &d.args {
                let ty = TypeRef::NonNull(Box::new(TypeRef::Named("Boolean".into())));
                if name != "if" {
                    self.error(
                        &format!("Directive @{} doesn't accept argument '{name}'", d.name),
                        path,
                        pos,
                        "argumentNotAccepted",
                    );
                } else if let Err(e) = self.literal(v, &ty, pos, path) {
                    self.error(
                        &format!(
                            "Argument 'if' on Directive '{}' has an invalid value. {e}",
                            d.name
                        ),
                        path,
                        pos,
                        "argumentLiteralsIncompatible",
                    );
                }
            }
        }
    }

    fn selection(&mut self, ty: &str, sels: &[Selection], path: &mut Vec<Json>) {
        for sel in sels {
            match sel {
                Selection::Field(f) => {
                    path.push(json!(f.key()));
                    self.directives(&f.directives, f.pos, path);
                    self.field(ty, f, path);
                    path.pop();
                }
                Selection::Inline {
                    on,
                    directives,
                    selection,
                    pos,
                } => {
                    let on = on.as_deref().unwrap_or(ty);
                    path.push(json!(format!("... on {on}")));
                    self.directives(directives, *pos, path);
                    if schema::is_composite(on) {
                        self.selection(on, selection, path);
                    } else {
                        self.error(
                            &format!("No such type {on}, so it can't be a fragment condition"),
                            path,
                            *pos,
                            "undefinedType",
                        );
                    }
                    path.pop();
                }
                Selection::Spread {
                    name,
                    directives,
                    pos,
                } => {
                    path.push(json!(format!("... {name}")));
                    self.directives(directives, *pos, path);
                    match self.doc.fragments.get(name) {
                        None => self.error(
                            &format!("Fragment {name} was used, but not defined"),
                            path,
                            *pos,
                            "useAndDefineFragment",
                        ),
                        Some(_) if self.depth > 16 => self.error(
                            &format!("Fragment {name} contains an infinite loop"),
                            path,
                            *pos,
                            "infiniteLoop",
                        ),
                        Some(frag) if !schema::is_composite(&frag.on) => self.error(
                            &format!(
                                "No such type {}, so it can't be a fragment condition",
                                frag.on
                            ),
                            path,
                            *pos,
                            "undefinedType",
                        ),
                        Some(frag) => {
                            self.depth += 1;
                            self.selection(&frag.on, &frag.selection, path);
                            self.depth -= 1;
                        }
                    }
                    path.pop();
                }
            }
        }
    }

    fn field(&mut self, ty: &str, f: &Field, path: &mut Vec<Json>) {
        if f.name == "__typename" {
            if !f.args.is_empty() || !f.selection.is_empty() {
                self.error(
                    "Field '__typename' takes no arguments and no selections",
                    path,
                    f.pos,
                    "argumentNotAccepted",
                );
            }
            return;
        }
        if self.lacking.field(ty, &f.name) {
            // As an older server answers a field its schema does not have yet.
            self.errors.push(json!({
                "path": path,
                "extensions": {"code": "undefinedField", "typeName": ty, "fieldName": f.name},
                "locations": locations(f.pos),
                "message": format!("Field '{}' doesn't exist on type '{ty}'", f.name),
            }));
            return;
        }
        let Some(def) = schema::field(ty, &f.name) else {
            self.errors.push(json!({
                "path": path,
                "extensions": {
                    "code": "undefinedField",
                    "typeName": ty,
                    "fieldName": f.name,
                    "fake": "FakeGitHub serves a slice of GitHub's schema; add the field to \
                             review-test-support's github/schema.rs if GitHub has it",
                },
                "locations": locations(f.pos),
                "message": format!("Field '{}' doesn't exist on type '{ty}'", f.name),
            }));
            return;
        };
        for (name, value) in &f.args {
            if self.lacking.arg(ty, &f.name, name) {
                self.errors.push(json!({
                    "path": path,
                    "extensions": {
                        "code": "argumentNotAccepted",
                        "name": f.name,
                        "typeName": "Field",
                        "argumentName": name,
                    },
                    "locations": locations(f.pos),
                    "message": format!("Field '{}' doesn't accept argument '{name}'", f.name),
                }));
                continue;
            }
            match def.args.iter().find(|(a, _)| a == name) {
                None => self.error(
                    &format!("Field '{}' doesn't accept argument '{name}'", f.name),
                    path,
                    f.pos,
                    "argumentNotAccepted",
                ),
                Some((_, aty)) => {
                    let aty = TypeRef::parse(aty).unwrap_or(TypeRef::Named((*aty).to_owned()));
                    if let Err(problem) = self.literal(value, &aty, f.pos, path) {
                        self.error(
                            &format!(
                                "Argument '{name}' on Field '{}' has an invalid value. Expected type '{aty}'. {problem}",
                                f.name
                            ),
                            path,
                            f.pos,
                            "argumentLiteralsIncompatible",
                        );
                    }
                }
            }
        }
        let missing: Vec<&str> = def
            .args
            .iter()
            .filter(|(a, t)| t.ends_with('!') && f.arg(a).is_none())
            .map(|(a, _)| *a)
            .collect();
        if !missing.is_empty() {
            self.error(
                &format!(
                    "Field '{}' is missing required arguments: {}",
                    f.name,
                    missing.join(", ")
                ),
                path,
                f.pos,
                "missingRequiredArguments",
            );
        }
        let fty = def.type_ref();
        let base = fty.base();
        if schema::is_composite(base) {
            if f.selection.is_empty() {
                self.error(
                    &format!(
                        "Field must have selections (field '{}' returns {base} but has no selections. Did you mean '{} {{ ... }}'?)",
                        f.name, f.name
                    ),
                    path,
                    f.pos,
                    "selectionMismatch",
                );
            } else {
                self.selection(base, &f.selection, path);
            }
        } else if !f.selection.is_empty() {
            self.error(
                &format!(
                    "Selections can't be made on scalars (field '{}' returns {base} but has selections)",
                    f.name
                ),
                path,
                f.pos,
                "selectionMismatch",
            );
        }
    }
}

/// Validates `op` and its variables; returns the variables with defaults filled in, or the
/// errors that fail the whole document.
pub(crate) fn validate(
    doc: &Document,
    op: &Operation,
    given: &Map<String, Json>,
    lacking: &Lacking,
) -> Result<Map<String, Json>, Vec<Json>> {
    let mut errors = Vec::new();
    let mut vars = Map::new();
    let label = op_label(op);
    for def in &op.vars {
        if !is_input_type(def.ty.base()) {
            errors.push(json!({
                "path": [label],
                "extensions": {"code": "variableRequiresValidType"},
                "locations": locations(def.pos),
                "message": format!("{} isn't a defined input type (on ${})", def.ty.base(), def.name),
            }));
            continue;
        }
        let value = given
            .get(&def.name)
            .cloned()
            .or_else(|| def.default.as_ref().map(|d| literal_json(d, &Map::new())));
        let checked = value.clone().unwrap_or(Json::Null);
        if let Err(problem) = check_json(&checked, &def.ty) {
            errors.push(json!({
                "extensions": {
                    "value": checked,
                    "problems": [{"path": [], "explanation": problem}],
                },
                "locations": locations(def.pos),
                "message": format!("Variable ${} of type {} was provided invalid value", def.name, def.ty),
            }));
        }
        if let Some(value) = value {
            vars.insert(def.name.clone(), value);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let root = match op.kind {
        OpKind::Query => "Query",
        OpKind::Mutation => "Mutation",
        OpKind::Subscription => {
            return Err(vec![json!({
                "locations": locations(op.pos),
                "message": "Schema is not configured for subscriptions",
            })]);
        }
    };
    let mut v = Validator {
        doc,
        op,
        vars: &vars,
        used: BTreeSet::new(),
        errors: Vec::new(),
        depth: 0,
        lacking,
    };
    v.selection(root, &op.selection, &mut vec![json!(label)]);
    for def in &op.vars {
        if !v.used.contains(&def.name) {
            let op_name = v.op_name();
            v.error(
                &format!(
                    "Variable ${} is declared by {op_name} but not used",
                    def.name
                ),
                &[json!(label)],
                def.pos,
                "variableNotUsed",
            );
        }
    }
    let errors = v.errors;
    if errors.is_empty() {
        Ok(vars)
    } else {
        Err(errors)
    }
}

// ---------------------------------------------------------------------------------------------
// Execution

/// An object being resolved.
#[derive(Debug, Clone)]
enum Obj<'a> {
    Query,
    Repo(&'a review_core::model::RepoId, &'a str),
    Pr(&'a PrEntry),
    Thread(&'a PrEntry, &'a Thread),
    ReviewComment(&'a PrEntry, Option<&'a Thread>, &'a Comment),
    Review(&'a Review),
    /// A review a comment names but the PR's reviews do not hold.
    ReviewStub(&'a ReviewId),
    IssueComment(&'a PrEntry, &'a review_core::model::IssueComment),
    Actor(&'a str, &'static str),
    Owner(&'a str),
    Commit(&'a str),
    /// A directory of a commit's tree: its entries.
    Tree(Vec<TreeEntry>),
    TreeEntry(TreeEntry),
    Blob(&'a FakeFile),
    /// A repository the fake holds no pull requests for (a fork's head repository).
    ForeignRepo(review_core::model::RepoId),
    Ref(&'a str),
    /// An edge of a connection, holding its node.
    Edge(Box<Self>),
    /// The checks state of a PR's head, as GitHub spells it.
    Rollup(&'a str, &'static str),
    Conn {
        ty: &'static str,
        items: Vec<Self>,
        start: usize,
        total: usize,
    },
    PageInfo {
        start: usize,
        len: usize,
        total: usize,
    },
    RateLimit,
    Payload {
        ty: &'static str,
        client: Option<String>,
        target: Option<Box<Self>>,
    },
}

impl Obj<'_> {
    /// The node id of a thread, review comment, review or top-level comment.
    fn node_id(&self) -> Option<&str> {
        match self {
            Self::Thread(_, t) => Some(&t.id.0),
            Self::ReviewComment(_, _, c) => Some(&c.id.0),
            Self::Review(r) => Some(&r.id.0),
            Self::ReviewStub(id) => Some(&id.0),
            Self::IssueComment(_, c) => Some(&c.id.0),
            _ => None,
        }
    }

    fn typename(&self) -> &'static str {
        match self {
            Self::Query => "Query",
            Self::Repo(..) => "Repository",
            Self::Pr(_) => "PullRequest",
            Self::Thread(..) => "PullRequestReviewThread",
            Self::ReviewComment(..) => "PullRequestReviewComment",
            Self::Review(_) | Self::ReviewStub(_) => "PullRequestReview",
            Self::IssueComment(..) => "IssueComment",
            Self::Actor(_, ty) => ty,
            Self::Owner(_) => "User",
            Self::Commit(_) => "Commit",
            Self::Tree(_) => "Tree",
            Self::TreeEntry(_) => "TreeEntry",
            Self::Blob(_) => "Blob",
            Self::ForeignRepo(_) => "Repository",
            Self::Ref(_) => "Ref",
            Self::Rollup(..) => "StatusCheckRollup",
            Self::Edge(_) => "IssueCommentEdge",
            Self::Conn { ty, .. } | Self::Payload { ty, .. } => ty,
            Self::PageInfo { .. } => "PageInfo",
            Self::RateLimit => "RateLimit",
        }
    }
}

/// What a field resolved to, before it is shaped by its selection.
#[derive(Debug)]
enum Out<'a> {
    Null,
    Leaf(Json),
    Obj(Obj<'a>),
    List(Vec<Self>),
}

fn leaf<'a>(v: impl Into<Json>) -> Result<Out<'a>, FieldErr> {
    Ok(Out::Leaf(v.into()))
}

fn opt<'a, T: Into<Json>>(v: Option<T>) -> Result<Out<'a>, FieldErr> {
    Ok(v.map_or(Out::Null, |v| Out::Leaf(v.into())))
}

/// A comment author's `authorAssociation` as GitHub writes it (`NONE` for none).
fn association(author: Option<&Author>) -> &'static str {
    use review_core::model::Association as A;
    match author.and_then(|a| a.association) {
        None => "NONE",
        Some(A::Owner) => "OWNER",
        Some(A::Member) => "MEMBER",
        Some(A::Collaborator) => "COLLABORATOR",
        Some(A::Contributor) => "CONTRIBUTOR",
        Some(A::FirstTimer) => "FIRST_TIMER",
        Some(A::FirstTimeContributor) => "FIRST_TIME_CONTRIBUTOR",
        Some(A::Mannequin) => "MANNEQUIN",
    }
}

fn actor(author: Option<&Author>) -> Out<'_> {
    author.map_or(Out::Null, |a| {
        Out::Obj(Obj::Actor(&a.login, actor_type(a.kind)))
    })
}

/// The `__typename` GitHub gives an account of this kind.
fn actor_type(kind: AuthorKind) -> &'static str {
    match kind {
        AuthorKind::User => "User",
        AuthorKind::Bot => "Bot",
        AuthorKind::Organization => "Organization",
        AuthorKind::Mannequin => "Mannequin",
        AuthorKind::Unknown => "EnterpriseUserAccount",
    }
}

fn pr_state(state: PrState) -> &'static str {
    match state {
        PrState::Open => "OPEN",
        PrState::Closed => "CLOSED",
        PrState::Merged => "MERGED",
    }
}

fn review_state(state: ReviewState) -> &'static str {
    match state {
        ReviewState::Approved => "APPROVED",
        ReviewState::ChangesRequested => "CHANGES_REQUESTED",
        ReviewState::Commented => "COMMENTED",
        ReviewState::Dismissed => "DISMISSED",
        ReviewState::Pending => "PENDING",
    }
}

/// `(originalLine, originalStartLine)` of a thread: its `original_lines` (the lines it was
/// written on, kept when it is outdated); `None` for file threads and when the model has none.
fn original_thread_lines(t: &Thread) -> (Option<u32>, Option<u32>) {
    if t.subject_type == SubjectType::File {
        return (None, None);
    }
    match t.original_lines {
        Some(r) => (Some(r.end), (r.start != r.end).then_some(r.start)),
        None => (None, None),
    }
}

/// `(line, startLine)` of a thread: `None` for outdated and file threads; `startLine` only for a
/// range of several lines.
fn thread_lines(t: &Thread) -> (Option<u32>, Option<u32>) {
    if t.is_outdated || t.subject_type == SubjectType::File {
        return (None, None);
    }
    match t.lines {
        Some(r) => (Some(r.end), (r.start != r.end).then_some(r.start)),
        None => (None, None),
    }
}

/// How GitHub reports a classifier in `minimizedReason` (`OFF_TOPIC` reads `off-topic`).
fn minimized_reason(classifier: &str) -> String {
    classifier.to_lowercase().replace('_', "-")
}

fn str_arg<'m>(args: &'m Map<String, Json>, name: &str) -> &'m str {
    args.get(name).and_then(Json::as_str).unwrap_or("")
}

/// An `ID` value as text (GitHub accepts an integer where an ID is expected).
fn id_text(v: Option<&Json>) -> String {
    match v {
        Some(Json::String(s)) => s.clone(),
        Some(Json::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// A list argument's strings; a single value stands for a list of one, as GraphQL coerces it.
fn string_list(v: Option<&Json>) -> Option<Vec<String>> {
    match v? {
        Json::Array(items) => Some(
            items
                .iter()
                .filter_map(Json::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        Json::String(s) => Some(vec![s.clone()]),
        _ => None,
    }
}

/// One page of a connection, as `first`/`last`/`after`/`before` select it.
fn paginate<'a>(
    ty: &'static str,
    field: &str,
    items: Vec<Obj<'a>>,
    args: &Map<String, Json>,
) -> Result<Out<'a>, FieldErr> {
    let first = args.get("first").and_then(Json::as_i64);
    let last = args.get("last").and_then(Json::as_i64);
    if first.is_none() && last.is_none() {
        return Err(FieldErr::new(
            "MISSING_PAGINATION_BOUNDARIES",
            format!(
                "You must provide a `first` or `last` value to properly paginate the `{field}` connection."
            ),
        ));
    }
    for (name, n) in [("first", first), ("last", last)] {
        match n {
            Some(n) if n > MAX_PAGE => {
                return Err(FieldErr::new(
                    "EXCESSIVE_PAGINATION",
                    format!(
                        "Requesting {n} records on the `{field}` connection exceeds the `{name}` limit of {MAX_PAGE} records."
                    ),
                ));
            }
            Some(n) if n < 0 => {
                return Err(FieldErr::new(
                    "INVALID_ARGUMENTS",
                    format!("`{name}` on the `{field}` connection cannot be less than zero."),
                ));
            }
            _ => {}
        }
    }
    let cursor_at = |key: &str| -> Result<Option<usize>, FieldErr> {
        match args.get(key).and_then(Json::as_str) {
            None => Ok(None),
            Some(c) => state::decode_cursor(c).map(Some).ok_or_else(|| {
                FieldErr::new(
                    "INVALID_CURSOR_ARGUMENTS",
                    format!("`{c}` does not appear to be a valid cursor."),
                )
            }),
        }
    };
    let total = items.len();
    let mut start = cursor_at("after")?.unwrap_or(0).min(total);
    let mut end = cursor_at("before")?
        .map_or(total, |b| b.saturating_sub(1))
        .min(total)
        .max(start);
    if let Some(n) = first.and_then(|n| usize::try_from(n).ok()) {
        end = end.min(start + n);
    }
    if let Some(n) = last.and_then(|n| usize::try_from(n).ok()) {
        start = start.max(end.saturating_sub(n));
    }
    let items = items.into_iter().skip(start).take(end - start).collect();
    Ok(Out::Obj(Obj::Conn {
        ty,
        items,
        start,
        total,
    }))
}

/// Whether `@skip`/`@include` let a selection through.
fn included(directives: &[Directive], vars: &Map<String, Json>) -> bool {
    directives.iter().all(|d| {
        let cond = d
            .args
            .iter()
            .find(|(n, _)| n == "if")
            .is_some_and(|(_, v)| literal_json(v, vars) == Json::Bool(true));
        match d.name.as_str() {
            "skip" => !cond,
            "include" => cond,
            _ => true,
        }
    })
}

/// The fields of `sels` that apply to an object of type `ty`, grouped by response key in order
/// (GraphQL's CollectFields).
fn collect<'d>(
    doc: &'d Document,
    vars: &Map<String, Json>,
    ty: &str,
    sels: &[&'d [Selection]],
) -> Vec<(String, Vec<&'d Field>)> {
    fn walk<'d>(
        doc: &'d Document,
        vars: &Map<String, Json>,
        ty: &str,
        sel: &'d [Selection],
        out: &mut Vec<(String, Vec<&'d Field>)>,
        depth: usize,
    ) {
        for s in sel {
            match s {
                Selection::Field(f) if included(&f.directives, vars) => {
                    match out.iter_mut().find(|(k, _)| k == f.key()) {
                        Some((_, fields)) => fields.push(f),
                        None => out.push((f.key().to_owned(), vec![f])),
                    }
                }
                Selection::Inline {
                    on,
                    directives,
                    selection,
                    ..
                } if included(directives, vars)
                    && on.as_deref().is_none_or(|c| schema::matches(ty, c)) =>
                {
                    walk(doc, vars, ty, selection, out, depth);
                }
                Selection::Spread {
                    name, directives, ..
                } if included(directives, vars) && depth < 16 => {
                    if let Some(frag) = doc.fragments.get(name)
                        && schema::matches(ty, &frag.on)
                    {
                        walk(doc, vars, ty, &frag.selection, out, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for sel in sels {
        walk(doc, vars, ty, sel, &mut out, 0);
    }
    out
}

/// What injected faults ask of one document's run.
#[derive(Debug, Default)]
pub(crate) struct Injected {
    /// Top-level response keys that fail as GitHub's internal errors do.
    pub failing: BTreeSet<String>,
    /// Node ids that read `null`, with a `NOT_FOUND` error at their path.
    pub null: BTreeSet<String>,
    /// Node ids left out of their connection's `nodes` (its `totalCount` still counts them).
    pub missing: BTreeSet<String>,
    /// Node ids whose mutations fail as GitHub's internal errors do.
    pub failing_nodes: BTreeSet<String>,
    /// The token may not write: every mutation field fails with `FORBIDDEN`.
    pub read_only: bool,
}

struct Exec<'a> {
    st: &'a State,
    doc: &'a Document,
    vars: &'a Map<String, Json>,
    injected: &'a Injected,
    /// The ids of `injected.null` and `injected.missing` the answer held.
    hits: RefCell<BTreeSet<String>>,
    errors: Vec<Json>,
}

impl<'a> Exec<'a> {
    fn select(
        &mut self,
        obj: &Obj<'a>,
        sels: &[&'a [Selection]],
        path: &mut Vec<Json>,
    ) -> Result<Json, ()> {
        let ty = obj.typename();
        let mut out = Map::new();
        for (key, fields) in collect(self.doc, self.vars, ty, sels) {
            let field = fields[0];
            if field.name == "__typename" {
                out.insert(key, json!(ty));
                continue;
            }
            path.push(json!(key));
            let value = if path.len() == 1 && self.injected.failing.contains(&key) {
                self.errors.push(internal_error(path, field.pos));
                Ok(Json::Null)
            } else if let Some(def) = schema::field(ty, &field.name) {
                let args = args_json(field, self.vars);
                let resolved = self.resolve(obj, &field.name, &args);
                let subs: Vec<&'a [Selection]> =
                    fields.iter().map(|f| f.selection.as_slice()).collect();
                self.complete(resolved, &def.type_ref(), &subs, field, path)
            } else {
                self.errors.push(error_json(
                    None,
                    &format!("Field '{}' doesn't exist on type '{ty}'", field.name),
                    path,
                    field.pos,
                ));
                Ok(Json::Null)
            };
            path.pop();
            out.insert(key, value?);
        }
        Ok(Json::Object(out))
    }

    /// Shapes a resolved value by its type and selection; `Err` asks the parent to become null
    /// (a non-null field could not be given a value).
    fn complete(
        &mut self,
        resolved: Result<Out<'a>, FieldErr>,
        ty: &TypeRef,
        subs: &[&'a [Selection]],
        field: &Field,
        path: &mut Vec<Json>,
    ) -> Result<Json, ()> {
        let (non_null, inner) = match ty {
            TypeRef::NonNull(t) => (true, t.as_ref()),
            t => (false, t),
        };
        // A node a fault says GitHub cannot load reads null, with an error at its path.
        let resolved = match resolved {
            Ok(Out::Obj(o))
                if o.node_id()
                    .is_some_and(|id| self.injected.null.contains(id)) =>
            {
                let id = o.node_id().unwrap_or_default();
                self.hits.borrow_mut().insert(id.to_owned());
                Err(FieldErr::node_not_found(id))
            }
            other => other,
        };
        let value = match resolved {
            Err(e) => {
                self.errors
                    .push(error_json(e.kind, &e.message, path, field.pos));
                Err(())
            }
            Ok(Out::Null) => Ok(Json::Null),
            Ok(Out::Leaf(v)) => Ok(v),
            Ok(Out::Obj(o)) => self.select(&o, subs, path),
            Ok(Out::List(items)) => {
                let item_ty = match inner {
                    TypeRef::List(t) => t.as_ref(),
                    t => t,
                };
                let mut arr = Vec::with_capacity(items.len());
                for (i, item) in items.into_iter().enumerate() {
                    path.push(json!(i));
                    let v = self.complete(Ok(item), item_ty, subs, field, path);
                    path.pop();
                    arr.push(v?);
                }
                Ok(Json::Array(arr))
            }
        };
        match value {
            Ok(Json::Null) if non_null => {
                self.errors.push(error_json(
                    None,
                    &format!("Cannot return null for non-nullable field {}", field.name),
                    path,
                    field.pos,
                ));
                Err(())
            }
            Ok(v) => Ok(v),
            Err(()) if non_null => Err(()),
            Err(()) => Ok(Json::Null),
        }
    }

    fn node(&self, id: &str) -> Result<Out<'a>, FieldErr> {
        let st = self.st;
        let obj = if let Some((e, t)) = st.thread(id) {
            Obj::Thread(e, t)
        } else if let Some((e, t, c)) = st.review_comment(id) {
            Obj::ReviewComment(e, t, c)
        } else if let Some((e, c)) = st.issue_comment(id) {
            Obj::IssueComment(e, c)
        } else if let Some((_, r)) = st.review(id) {
            Obj::Review(r)
        } else if let Some(e) = st.pull_request_by_id(id) {
            Obj::Pr(e)
        } else {
            return Err(FieldErr::node_not_found(id));
        };
        Ok(Out::Obj(obj))
    }

    fn repo_of(&self, e: &'a PrEntry) -> Out<'a> {
        self.st
            .repos
            .get_key_value(&e.pr.repo)
            .map_or(Out::Null, |(r, b)| Out::Obj(Obj::Repo(r, b)))
    }

    fn minimized(e: &PrEntry, id: &CommentId, field: &str) -> Result<Out<'a>, FieldErr> {
        let reason = e.minimized.get(id);
        if field == "isMinimized" {
            leaf(reason.is_some())
        } else {
            opt(reason.map(|c| minimized_reason(c)))
        }
    }

    fn resolve(
        &self,
        obj: &Obj<'a>,
        name: &str,
        args: &Map<String, Json>,
    ) -> Result<Out<'a>, FieldErr> {
        let st = self.st;
        match (obj, name) {
            (Obj::Query, "repository") => {
                let (owner, repo) = (str_arg(args, "owner"), str_arg(args, "name"));
                match st.repo(owner, repo) {
                    Some((r, b)) => Ok(Out::Obj(Obj::Repo(r, b))),
                    None => Err(FieldErr::new(
                        "NOT_FOUND",
                        format!(
                            "Could not resolve to a Repository with the name '{owner}/{repo}'."
                        ),
                    )),
                }
            }
            (Obj::Query, "node") => self.node(&id_text(args.get("id"))),
            (Obj::Query, "rateLimit") => Ok(Out::Obj(Obj::RateLimit)),
            (Obj::Query, "viewer") => Ok(Out::Obj(Obj::Actor(&st.viewer, "User"))),

            (Obj::Repo(r, _), "id") => leaf(format!("R_fake_{}_{}", r.owner, r.name)),
            (Obj::Repo(r, _), "name") => leaf(r.name.clone()),
            (Obj::Repo(r, _), "nameWithOwner") => leaf(r.to_string()),
            (Obj::Repo(r, _), "url") => leaf(format!("https://github.com/{r}")),
            (Obj::Repo(r, _), "owner") => Ok(Out::Obj(Obj::Owner(&r.owner))),
            (Obj::Repo(_, b), "defaultBranchRef") => Ok(Out::Obj(Obj::Ref(b))),
            (Obj::Repo(r, _), "object") => {
                let expression = args.get("expression").and_then(Json::as_str).unwrap_or("");
                Ok(match expression.split_once(':') {
                    Some((commit, path)) => match st.git_object(r, commit, path) {
                        Some(GitObject::Blob(file)) => Out::Obj(Obj::Blob(file)),
                        Some(GitObject::Tree(entries)) => Out::Obj(Obj::Tree(entries)),
                        None => Out::Null,
                    },
                    None => Out::Null,
                })
            }
            (Obj::ForeignRepo(r), field) => match field {
                "id" => leaf(format!("R_fake_{}_{}", r.owner, r.name)),
                "name" => leaf(r.name.clone()),
                "nameWithOwner" => leaf(r.to_string()),
                "url" => leaf(format!("https://github.com/{r}")),
                _ => Err(unserved(obj, field)),
            },
            (Obj::Tree(entries), field) => match field {
                "id" | "oid" => leaf("f".repeat(40)),
                "entries" => Ok(Out::List(
                    entries
                        .iter()
                        .cloned()
                        .map(|e| Out::Obj(Obj::TreeEntry(e)))
                        .collect(),
                )),
                _ => Err(unserved(obj, field)),
            },
            (Obj::TreeEntry(e), field) => match field {
                "name" => leaf(e.name.clone()),
                "mode" => leaf(e.mode),
                "type" => leaf(e.kind),
                "size" => leaf(e.size),
                _ => Err(unserved(obj, field)),
            },
            (Obj::Blob(file), field) => match field {
                "id" | "oid" => leaf("b".repeat(40)),
                "byteSize" => leaf(file.bytes.len()),
                "isBinary" => leaf(std::str::from_utf8(&file.bytes).is_err()),
                "isTruncated" => leaf(file.bytes.len() > BLOB_TEXT_LIMIT),
                "text" => opt(std::str::from_utf8(&file.bytes)
                    .ok()
                    .filter(|_| file.bytes.len() <= BLOB_TEXT_LIMIT)
                    .map(str::to_owned)),
                _ => Err(unserved(obj, field)),
            },
            (Obj::Repo(r, _), "pullRequest") => {
                let number = args.get("number").and_then(Json::as_u64).unwrap_or(0);
                match st.pr(r, number) {
                    Some(e) => Ok(Out::Obj(Obj::Pr(e))),
                    None => Err(FieldErr::new(
                        "NOT_FOUND",
                        format!("Could not resolve to a PullRequest with the number of {number}."),
                    )),
                }
            }
            (Obj::Repo(r, _), "pullRequests") => {
                let states = string_list(args.get("states"));
                let head = args.get("headRefName").and_then(Json::as_str);
                let base = args.get("baseRefName").and_then(Json::as_str);
                let mut prs: Vec<&PrEntry> = st
                    .prs
                    .iter()
                    .filter(|e| &&e.pr.repo == r)
                    .filter(|e| head.is_none_or(|h| e.pr.head_ref == h))
                    .filter(|e| base.is_none_or(|b| e.pr.base_ref == b))
                    .filter(|e| {
                        states
                            .as_ref()
                            .is_none_or(|s| s.iter().any(|s| s == pr_state(e.pr.state)))
                    })
                    .collect();
                prs.sort_by_key(|e| e.pr.number);
                let items = prs.into_iter().map(Obj::Pr).collect();
                paginate("PullRequestConnection", name, items, args)
            }

            (Obj::Pr(e), field) => self.resolve_pr(e, field, args),

            (Obj::Thread(e, t), field) => {
                let (line, start) = thread_lines(t);
                let (original, original_start) = original_thread_lines(t);
                match field {
                    "id" => leaf(t.id.0.clone()),
                    "isResolved" | "isCollapsed" | "viewerCanUnresolve" => leaf(t.is_resolved),
                    "viewerCanResolve" => leaf(!t.is_resolved),
                    "viewerCanReply" => leaf(true),
                    "isOutdated" => leaf(t.is_outdated),
                    "path" => leaf(t.path.clone()),
                    "line" => opt(line),
                    "startLine" => opt(start),
                    "originalLine" => opt(original),
                    "originalStartLine" => opt(original_start),
                    "diffSide" => leaf("RIGHT"),
                    "subjectType" => leaf(match t.subject_type {
                        SubjectType::Line => "LINE",
                        SubjectType::File => "FILE",
                    }),
                    "comments" => {
                        let items = t
                            .comments
                            .iter()
                            .map(|c| Obj::ReviewComment(e, Some(t), c))
                            .collect();
                        paginate("PullRequestReviewCommentConnection", field, items, args)
                    }
                    "pullRequest" => Ok(Out::Obj(Obj::Pr(e))),
                    "repository" => Ok(self.repo_of(e)),
                    _ => Err(unserved(obj, field)),
                }
            }

            (Obj::ReviewComment(e, t, c), field) => match field {
                "id" => leaf(c.id.0.clone()),
                "author" => Ok(actor(c.author.as_ref())),
                "authorAssociation" => leaf(association(c.author.as_ref())),
                "body" => leaf(c.body.clone()),
                "createdAt" => leaf(c.created_at.clone()),
                "url" => leaf(c.url.clone()),
                // Non-null on GitHub: a comment without a recorded hunk reads as empty.
                "diffHunk" => leaf(c.diff_hunk.clone().unwrap_or_default()),
                "path" => leaf(t.map(|t| t.path.clone()).unwrap_or_default()),
                "outdated" => leaf(t.is_some_and(|t| t.is_outdated)),
                "pullRequestReview" => Ok(c.review_id.as_ref().map_or(Out::Null, |id| {
                    let review = e.pr.reviews.iter().find(|r| &r.id == id);
                    Out::Obj(review.map_or(Obj::ReviewStub(id), Obj::Review))
                })),
                "isMinimized" | "minimizedReason" => Self::minimized(e, &c.id, field),
                _ => Err(unserved(obj, field)),
            },

            (Obj::Review(r), field) => match field {
                "id" => leaf(r.id.0.clone()),
                "author" => Ok(actor(r.author.as_ref())),
                "state" => leaf(review_state(r.state)),
                "body" => leaf(r.body.clone()),
                "submittedAt" => opt(r.submitted_at.clone()),
                "commit" => Ok(r
                    .commit
                    .as_ref()
                    .map_or(Out::Null, |c| Out::Obj(Obj::Commit(&c.0)))),
                _ => Err(unserved(obj, field)),
            },
            (Obj::ReviewStub(id), field) => match field {
                "id" => leaf(id.0.clone()),
                "state" => leaf("COMMENTED"),
                "body" => leaf(""),
                "author" | "submittedAt" | "commit" => Ok(Out::Null),
                _ => Err(unserved(obj, field)),
            },

            (Obj::IssueComment(e, c), field) => match field {
                "id" => leaf(c.id.0.clone()),
                "author" => Ok(actor(c.author.as_ref())),
                "authorAssociation" => leaf(association(c.author.as_ref())),
                "body" => leaf(c.body.clone()),
                "createdAt" => leaf(c.created_at.clone()),
                "url" => leaf(c.url.clone()),
                "isMinimized" | "minimizedReason" => Self::minimized(e, &c.id, field),
                _ => Err(unserved(obj, field)),
            },

            (Obj::Actor(login, _) | Obj::Owner(login), "login") => leaf(*login),
            (Obj::Commit(oid), "oid") => leaf(*oid),
            (Obj::Ref(name), "name") => leaf(*name),
            (Obj::Rollup(head, _), "id") => leaf(format!("SCR_{head}")),
            (Obj::Rollup(_, state), "state") => leaf(*state),
            (Obj::Ref(_), "prefix") => leaf("refs/heads/"),

            (Obj::Conn { items, .. }, "nodes") => Ok(Out::List(
                items
                    .iter()
                    .filter(|item| {
                        let missing = item
                            .node_id()
                            .filter(|id| self.injected.missing.contains(*id));
                        if let Some(id) = missing {
                            self.hits.borrow_mut().insert(id.to_owned());
                        }
                        missing.is_none()
                    })
                    .cloned()
                    .map(Out::Obj)
                    .collect(),
            )),
            (Obj::Conn { total, .. }, "totalCount") => leaf(*total),
            (
                Obj::Conn {
                    items,
                    start,
                    total,
                    ..
                },
                "pageInfo",
            ) => Ok(Out::Obj(Obj::PageInfo {
                start: *start,
                len: items.len(),
                total: *total,
            })),
            (Obj::PageInfo { start, len, total }, field) => match field {
                "hasNextPage" => leaf(start + len < *total),
                "hasPreviousPage" => leaf(*start > 0),
                "startCursor" => opt((*len > 0).then(|| state::cursor(start + 1))),
                "endCursor" => opt((*len > 0).then(|| state::cursor(start + len))),
                _ => Err(unserved(obj, field)),
            },

            (Obj::RateLimit, field) => match field {
                "cost" => leaf(1),
                "limit" => leaf(POINTS_PER_HOUR),
                "remaining" => leaf(POINTS_PER_HOUR.saturating_sub(st.points)),
                "used" => leaf(st.points),
                "resetAt" => leaf(state::rfc3339(st.reset_at)),
                _ => Err(unserved(obj, field)),
            },

            (Obj::Payload { client, .. }, "clientMutationId") => opt(client.clone()),
            (Obj::Payload { target, .. }, "commentEdge") => Ok(target
                .as_deref()
                .map_or(Out::Null, |t| Out::Obj(Obj::Edge(Box::new(t.clone()))))),
            (Obj::Edge(node), "node") => Ok(Out::Obj((**node).clone())),
            (Obj::Edge(_), "cursor") => leaf("Y3Vyc29yOmVkZ2U="),
            (
                Obj::Payload { target, .. },
                "thread" | "comment" | "minimizedComment" | "pullRequest",
            ) => Ok(target.as_deref().map_or(Out::Null, |t| Out::Obj(t.clone()))),
            (_, field) => Err(unserved(obj, field)),
        }
    }

    fn resolve_pr(
        &self,
        e: &'a PrEntry,
        field: &str,
        args: &Map<String, Json>,
    ) -> Result<Out<'a>, FieldErr> {
        let pr = &e.pr;
        match field {
            "id" => leaf(pr.id.clone()),
            "number" => leaf(pr.number),
            "title" => leaf(pr.title.clone()),
            "body" => leaf(""),
            "url" => leaf(pr.url.clone()),
            "state" => leaf(pr_state(pr.state)),
            "isDraft" => leaf(pr.draft),
            "mergeable" => leaf(match pr.mergeable {
                Some(review_core::model::Mergeable::Conflicting) => "CONFLICTING",
                Some(review_core::model::Mergeable::Mergeable) => "MERGEABLE",
                None => "UNKNOWN",
            }),
            "headRefName" => leaf(pr.head_ref.clone()),
            "headRefOid" => leaf(pr.head_sha.0.clone()),
            "baseRefName" => leaf(pr.base_ref.clone()),
            "baseRefOid" => leaf(
                pr.base_sha
                    .as_ref()
                    .map_or_else(|| "0".repeat(40), |c| c.0.clone()),
            ),
            "author" => Ok(actor(pr.author.as_ref())),
            "headRepositoryOwner" => Ok(Out::Obj(Obj::Owner(&e.head_owner))),
            "headRepository" => {
                let head = e.head_repo();
                Ok(match self.st.repos.get_key_value(&head) {
                    Some((r, b)) => Out::Obj(Obj::Repo(r, b)),
                    None => Out::Obj(Obj::ForeignRepo(head)),
                })
            }
            "isCrossRepository" => leaf(e.head_repo() != pr.repo),
            "statusCheckRollup" => {
                use review_core::model::ChecksState as S;
                let state = pr.checks.and_then(|c| match c {
                    S::Error => Some("ERROR"),
                    S::Expected => Some("EXPECTED"),
                    S::Failure => Some("FAILURE"),
                    S::Pending => Some("PENDING"),
                    S::Success => Some("SUCCESS"),
                    // A reader's state, never GitHub's: no roll-up.
                    S::Unknown => None,
                });
                Ok(state.map_or(Out::Null, |s| Out::Obj(Obj::Rollup(&pr.head_sha.0, s))))
            }
            "repository" => Ok(self.repo_of(e)),
            "reviewThreads" => {
                let items = pr.threads.iter().map(|t| Obj::Thread(e, t)).collect();
                paginate("PullRequestReviewThreadConnection", field, items, args)
            }
            "reviews" => {
                let states = string_list(args.get("states"));
                let author = args.get("author").and_then(Json::as_str);
                let items = pr
                    .reviews
                    .iter()
                    .filter(|r| self.st.visible(r))
                    .filter(|r| {
                        states
                            .as_ref()
                            .is_none_or(|s| s.iter().any(|s| s == review_state(r.state)))
                    })
                    .filter(|r| {
                        author.is_none_or(|a| r.author.as_ref().is_some_and(|x| x.login == a))
                    })
                    .map(Obj::Review)
                    .collect();
                paginate("PullRequestReviewConnection", field, items, args)
            }
            "comments" => {
                let items = pr
                    .comments
                    .iter()
                    .map(|c| Obj::IssueComment(e, c))
                    .collect();
                paginate("IssueCommentConnection", field, items, args)
            }
            _ => Err(FieldErr::new(
                "NOT_SERVED",
                format!("FakeGitHub does not resolve PullRequest.{field}"),
            )),
        }
    }
}

fn unserved(obj: &Obj<'_>, field: &str) -> FieldErr {
    FieldErr::new(
        "NOT_SERVED",
        format!("FakeGitHub does not resolve {}.{field}", obj.typename()),
    )
}

// ---------------------------------------------------------------------------------------------
// Mutations

/// What a mutation field changed, to be looked up again for its payload.
enum Applied {
    Thread(String),
    ReviewComment(String),
    Minimized(String),
    IssueComment(String),
    PullRequest(String),
}

fn apply(st: &mut State, name: &str, input: &Json) -> Result<Applied, FieldErr> {
    match name {
        "resolveReviewThread" | "unresolveReviewThread" => {
            let id = id_text(input.get("threadId"));
            let resolve = name == "resolveReviewThread";
            let thread = st
                .prs
                .iter_mut()
                .find_map(|e| e.pr.threads.iter_mut().find(|t| t.id.0 == id))
                .ok_or_else(|| FieldErr::node_not_found(&id))?;
            thread.is_resolved = resolve;
            let id = ThreadId(id);
            st.mutations.push(if resolve {
                Mutation::Resolve(id.clone())
            } else {
                Mutation::Unresolve(id.clone())
            });
            Ok(Applied::Thread(id.0))
        }
        "addPullRequestReviewThreadReply" => reply(st, input),
        "addComment" => {
            let subject = id_text(input.get("subjectId"));
            let body = input
                .get("body")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned();
            if body.trim().is_empty() {
                return Err(FieldErr::new("UNPROCESSABLE", "Body can't be blank"));
            }
            let n = st.fresh();
            let now = state::rfc3339(state::now());
            let viewer = Author::new(st.viewer.clone(), AuthorKind::User);
            let idx = st
                .prs
                .iter()
                .position(|e| e.pr.id == subject)
                .ok_or_else(|| FieldErr::node_not_found(&subject))?;
            // A new conversation comment moves the pull request's `updated_at` on GitHub.
            st.touch(idx);
            let entry = &mut st.prs[idx];
            let id = format!("IC_fake{n}");
            let url = format!(
                "https://github.com/{}/pull/{}#issuecomment-{}",
                entry.pr.repo,
                entry.pr.number,
                800_000_000 + n
            );
            entry.pr.comments.push(review_core::model::IssueComment {
                id: CommentId(id.clone()),
                author: Some(viewer),
                body: body.clone(),
                created_at: now,
                url,
            });
            st.mutations.push(Mutation::Comment(body));
            Ok(Applied::IssueComment(id))
        }
        "requestReviewsByLogin" => request_reviews(st, input),
        "minimizeComment" => {
            let id = id_text(input.get("subjectId"));
            let classifier = input
                .get("classifier")
                .and_then(Json::as_str)
                .unwrap_or("")
                .to_owned();
            let entry = st
                .prs
                .iter_mut()
                .find(|e| {
                    e.pr.comments.iter().any(|c| c.id.0 == id)
                        || e.pr
                            .threads
                            .iter()
                            .flat_map(|t| &t.comments)
                            .any(|c| c.id.0 == id)
                })
                .ok_or_else(|| FieldErr::node_not_found(&id))?;
            entry.minimized.insert(CommentId(id.clone()), classifier);
            st.mutations.push(Mutation::Minimize(CommentId(id.clone())));
            Ok(Applied::Minimized(id))
        }
        other => Err(FieldErr::new(
            "NOT_SERVED",
            format!("FakeGitHub does not run the mutation {other}"),
        )),
    }
}

/// `requestReviewsByLogin` with `union: true`: each bot login (with its `[bot]` suffix, as
/// GitHub wants it) recorded as a review request. A user login, a team, a replacing request or
/// a bot login that is not one are refused as GitHub would refuse them.
fn request_reviews(st: &mut State, input: &Json) -> Result<Applied, FieldErr> {
    let subject = id_text(input.get("pullRequestId"));
    if input.get("union").and_then(Json::as_bool) != Some(true) {
        return Err(FieldErr::new(
            "NOT_SERVED",
            "FakeGitHub only adds reviewers (union: true)",
        ));
    }
    let strings = |name: &str| -> Vec<String> {
        input
            .get(name)
            .and_then(Json::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Json::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    if !strings("userLogins").is_empty() || !strings("teamSlugs").is_empty() {
        return Err(FieldErr::new(
            "NOT_SERVED",
            "FakeGitHub only requests reviews from bots",
        ));
    }
    let bots = strings("botLogins");
    if bots.is_empty() {
        return Err(FieldErr::new("UNPROCESSABLE", "No reviewers given"));
    }
    let mut logins = Vec::new();
    for login in &bots {
        match login.strip_suffix("[bot]") {
            Some(base) if review_core::ports::is_plain_login(base) => logins.push(base.to_owned()),
            _ => {
                return Err(FieldErr::new(
                    "NOT_FOUND",
                    format!("Could not resolve to a Bot with the login of '{login}'."),
                ));
            }
        }
    }
    let idx = st
        .prs
        .iter()
        .position(|e| e.pr.id == subject)
        .ok_or_else(|| FieldErr::node_not_found(&subject))?;
    st.touch(idx);
    for login in logins {
        if !st.requests_dropped {
            let requested = st.requested.entry(subject.clone()).or_default();
            if !requested.contains(&login) {
                requested.push(login.clone());
            }
        }
        st.mutations.push(Mutation::RequestReview(login));
    }
    Ok(Applied::PullRequest(subject))
}

/// `addPullRequestReviewThreadReply`: a visible reply in a new review, or, while the viewer has
/// a pending review, a draft comment nobody else sees.
fn reply(st: &mut State, input: &Json) -> Result<Applied, FieldErr> {
    let thread_id = id_text(input.get("pullRequestReviewThreadId"));
    let body = input.get("body").and_then(Json::as_str).unwrap_or("");
    let idx = st
        .prs
        .iter()
        .position(|e| e.pr.threads.iter().any(|t| t.id.0 == thread_id))
        .ok_or_else(|| FieldErr::node_not_found(&thread_id))?;
    if body.trim().is_empty() {
        return Err(FieldErr::new("UNPROCESSABLE", "Body can't be blank"));
    }
    if body.chars().count() > MAX_BODY {
        return Err(FieldErr::new(
            "UNPROCESSABLE",
            format!("Body is too long (maximum is {MAX_BODY} characters)"),
        ));
    }
    let pending = st.viewer_pending(&st.prs[idx]).map(|r| r.id.clone());
    if let Some(given) = input.get("pullRequestReviewId").filter(|v| !v.is_null()) {
        let given = id_text(Some(given));
        if pending.as_ref().is_none_or(|p| p.0 != given) {
            return Err(FieldErr::node_not_found(&given));
        }
    }
    let n = st.fresh();
    let now = state::rfc3339(state::now());
    let viewer = Author::new(st.viewer.clone(), AuthorKind::User);
    if pending.is_none() {
        // A visible reply moves the pull request's `updated_at`; a draft one is seen by nobody.
        st.touch(idx);
    }
    let entry = &mut st.prs[idx];
    let pr_url = if entry.pr.url.is_empty() {
        format!(
            "https://github.com/{}/pull/{}",
            entry.pr.repo, entry.pr.number
        )
    } else {
        entry.pr.url.clone()
    };
    let head = entry.pr.head_sha.clone();
    let Some(thread) = entry.pr.threads.iter_mut().find(|t| t.id.0 == thread_id) else {
        return Err(FieldErr::node_not_found(&thread_id));
    };
    let id = format!("PRRC_fake{n}");
    let mut comment = Comment {
        id: CommentId(id.clone()),
        author: Some(viewer.clone()),
        body: body.to_owned(),
        created_at: now.clone(),
        url: format!("{pr_url}#discussion_r{}", 900_000_000 + n),
        diff_hunk: thread.comments.first().and_then(|c| c.diff_hunk.clone()),
        review_id: None,
    };
    match pending {
        Some(review) => {
            comment.review_id = Some(review);
            entry.drafts.push((ThreadId(thread_id.clone()), comment));
        }
        None => {
            // GitHub wraps a lone reply in a review of its own, submitted at once.
            let review = ReviewId(format!("PRR_fake{n}"));
            comment.review_id = Some(review.clone());
            thread.comments.push(comment);
            entry.pr.reviews.push(Review {
                id: review,
                author: Some(viewer),
                state: ReviewState::Commented,
                body: String::new(),
                submitted_at: Some(now),
                commit: Some(head),
            });
        }
    }
    st.mutations
        .push(Mutation::Reply(ThreadId(thread_id), body.to_owned()));
    Ok(Applied::ReviewComment(id))
}

/// Finds what a mutation changed, for its payload.
fn locate<'a>(st: &'a State, applied: &Applied) -> Option<Obj<'a>> {
    match applied {
        Applied::Thread(id) => st.thread(id).map(|(e, t)| Obj::Thread(e, t)),
        Applied::ReviewComment(id) => st
            .review_comment(id)
            .map(|(e, t, c)| Obj::ReviewComment(e, t, c)),
        Applied::IssueComment(id) => st.issue_comment(id).map(|(e, c)| Obj::IssueComment(e, c)),
        Applied::PullRequest(id) => st.prs.iter().find(|e| &e.pr.id == id).map(Obj::Pr),
        Applied::Minimized(id) => st
            .review_comment(id)
            .map(|(e, t, c)| Obj::ReviewComment(e, t, c))
            .or_else(|| st.issue_comment(id).map(|(e, c)| Obj::IssueComment(e, c))),
    }
}

/// Runs a validated operation with the faults `injected` asks for: top-level response keys that
/// fail as GitHub's internal errors do, nodes that read null, nodes left out. Returns `data`,
/// the errors, and the ids of the null or missing nodes the answer held.
pub(crate) fn execute(
    st: &mut State,
    doc: &Document,
    op: &Operation,
    vars: &Map<String, Json>,
    injected: &Injected,
) -> (Json, Vec<Json>, BTreeSet<String>) {
    if op.kind != OpKind::Mutation {
        let mut ex = Exec {
            st,
            doc,
            vars,
            injected,
            hits: RefCell::default(),
            errors: Vec::new(),
        };
        let data = ex
            .select(&Obj::Query, &[op.selection.as_slice()], &mut Vec::new())
            .unwrap_or(Json::Null);
        return (data, ex.errors, ex.hits.into_inner());
    }
    let mut data = Map::new();
    let mut errors = Vec::new();
    let mut hits = BTreeSet::new();
    for (key, fields) in collect(doc, vars, "Mutation", &[op.selection.as_slice()]) {
        let field = fields[0];
        let path = vec![json!(key)];
        if field.name == "__typename" {
            data.insert(key, json!("Mutation"));
            continue;
        }
        let Some(def) = schema::field("Mutation", &field.name) else {
            continue;
        };
        if injected.failing.contains(&key) {
            errors.push(internal_error(&path, field.pos));
            data.insert(key, Json::Null);
            continue;
        }
        if injected.read_only {
            errors.push(error_json(
                Some("FORBIDDEN"),
                "Resource not accessible by integration",
                &path,
                field.pos,
            ));
            data.insert(key, Json::Null);
            continue;
        }
        let args = args_json(field, vars);
        let input = args.get("input").cloned().unwrap_or(Json::Null);
        let failing_node = input.as_object().and_then(|fields| {
            fields
                .values()
                .filter_map(Json::as_str)
                .find(|v| injected.failing_nodes.contains(*v))
        });
        if let Some(id) = failing_node {
            hits.insert(id.to_owned());
            errors.push(internal_error(&path, field.pos));
            data.insert(key, Json::Null);
            continue;
        }
        let applied = apply(st, &field.name, &input);
        let mut ex = Exec {
            st,
            doc,
            vars,
            injected,
            hits: RefCell::default(),
            errors: Vec::new(),
        };
        let resolved = applied.map(|a| {
            Out::Obj(Obj::Payload {
                ty: def.ty.trim_end_matches('!'),
                client: input
                    .get("clientMutationId")
                    .and_then(Json::as_str)
                    .map(str::to_owned),
                target: locate(st, &a).map(Box::new),
            })
        });
        let subs: Vec<&[Selection]> = fields.iter().map(|f| f.selection.as_slice()).collect();
        let value = ex
            .complete(resolved, &def.type_ref(), &subs, field, &mut path.clone())
            .unwrap_or(Json::Null);
        errors.append(&mut ex.errors);
        hits.append(&mut ex.hits.into_inner());
        data.insert(key, value);
    }
    (Json::Object(data), errors, hits)
}
