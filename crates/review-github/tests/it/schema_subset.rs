//! The schema subset in `schema/github.graphql` must be a true subset of GitHub's schema: every
//! type, field, argument and enum value it names exists in GitHub's with the same kind and type.
//!
//! The check runs against a full copy of GitHub's published schema when `REVIEW_GITHUB_SCHEMA`
//! names one (GitHub publishes it as `schema.docs.graphql`):
//!
//! ```sh
//! REVIEW_GITHUB_SCHEMA=/path/to/schema.docs.graphql cargo test -p review-github --test schema_subset
//! ```

use std::collections::BTreeMap;

use cynic_parser::type_system::{Definition, TypeDefinition};

/// A type as the check compares it: its kind, and its members with their types.
#[derive(Debug, Default)]
struct Shape {
    kind: &'static str,
    /// field or input field -> (type, argument -> type)
    fields: BTreeMap<String, (String, BTreeMap<String, String>)>,
    /// enum values, and interfaces implemented
    names: Vec<String>,
}

fn shapes(sdl: &str) -> BTreeMap<String, Shape> {
    let doc = cynic_parser::parse_type_system_document(sdl).expect("the SDL parses");
    let mut out = BTreeMap::new();
    for def in doc.definitions() {
        let Definition::Type(ty) = def else { continue };
        let mut shape = Shape::default();
        let field =
            |name: &str, ty: String, args: BTreeMap<String, String>| (name.to_owned(), (ty, args));
        match ty {
            TypeDefinition::Scalar(_) => shape.kind = "scalar",
            TypeDefinition::Union(_) => shape.kind = "union",
            TypeDefinition::Object(o) => {
                shape.kind = "type";
                shape.names = o.implements_interfaces().map(str::to_owned).collect();
                for f in o.fields() {
                    let args = f
                        .arguments()
                        .map(|a| (a.name().to_owned(), a.ty().to_string()))
                        .collect();
                    shape
                        .fields
                        .extend([field(f.name(), f.ty().to_string(), args)]);
                }
            }
            TypeDefinition::Interface(i) => {
                shape.kind = "interface";
                shape.names = i.implements_interfaces().map(str::to_owned).collect();
                for f in i.fields() {
                    let args = f
                        .arguments()
                        .map(|a| (a.name().to_owned(), a.ty().to_string()))
                        .collect();
                    shape
                        .fields
                        .extend([field(f.name(), f.ty().to_string(), args)]);
                }
            }
            TypeDefinition::Enum(e) => {
                shape.kind = "enum";
                shape.names = e.values().map(|v| v.value().to_owned()).collect();
            }
            TypeDefinition::InputObject(i) => {
                shape.kind = "input";
                for f in i.fields() {
                    shape
                        .fields
                        .extend([field(f.name(), f.ty().to_string(), BTreeMap::new())]);
                }
            }
        }
        out.insert(ty.name().to_owned(), shape);
    }
    out
}

/// Every way `subset` is not a subset of `full`, one line each.
fn differences(subset: &str, full: &str) -> Vec<String> {
    let (sub, full) = (shapes(subset), shapes(full));
    let mut problems = Vec::new();
    for (name, shape) in &sub {
        let Some(theirs) = full.get(name) else {
            problems.push(format!("type {name} does not exist"));
            continue;
        };
        if theirs.kind != shape.kind {
            problems.push(format!(
                "{name} is a {} there, not a {}",
                theirs.kind, shape.kind
            ));
            continue;
        }
        for n in &shape.names {
            if !theirs.names.contains(n) {
                problems.push(format!("{name}: {n} is not there"));
            }
        }
        for (field, (ty, args)) in &shape.fields {
            let Some((their_ty, their_args)) = theirs.fields.get(field) else {
                problems.push(format!("{name}.{field} does not exist"));
                continue;
            };
            if their_ty != ty {
                problems.push(format!("{name}.{field} is {their_ty} there, not {ty}"));
            }
            for (arg, arg_ty) in args {
                match their_args.get(arg) {
                    None => problems.push(format!("{name}.{field}({arg}:) does not exist")),
                    Some(t) if t != arg_ty => {
                        problems.push(format!("{name}.{field}({arg}:) is {t} there, not {arg_ty}"));
                    }
                    Some(_) => {}
                }
            }
        }
    }
    problems
}

const SUBSET: &str = include_str!("../../schema/github.graphql");

#[test]
fn the_checker_catches_what_it_must() {
    let full =
        "type Query { a(x: Int): String!  b: [Int!] }\nenum E { ONE TWO }\ninput I { f: ID! }";
    assert!(differences("type Query { a(x: Int): String! }\nenum E { ONE }", full).is_empty());
    let wrong = "type Query { a(x: String): String!  b: [Int]  c: Int }\nenum E { THREE }\ninput I { f: ID }\ntype Z { z: Int }";
    let found = differences(wrong, full);
    for expected in [
        "Query.a(x:) is Int there, not String",
        "Query.b is [Int!] there, not [Int]",
        "Query.c does not exist",
        "E: THREE is not there",
        "I.f is ID! there, not ID",
        "type Z does not exist",
    ] {
        assert!(
            found.iter().any(|p| p == expected),
            "missing {expected:?} in {found:?}"
        );
    }
}

#[test]
fn the_subset_is_valid_sdl() {
    assert!(shapes(SUBSET).contains_key("PullRequestReviewThread"));
}

#[test]
fn the_subset_exists_in_githubs_schema() {
    let Ok(path) = std::env::var("REVIEW_GITHUB_SCHEMA") else {
        eprintln!(
            "skipped: set REVIEW_GITHUB_SCHEMA to a copy of GitHub's schema.docs.graphql to run this check"
        );
        return;
    };
    let full = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let problems = differences(SUBSET, &full);
    assert!(
        problems.is_empty(),
        "schema/github.graphql differs from {path}:\n{}",
        problems.join("\n")
    );
}
