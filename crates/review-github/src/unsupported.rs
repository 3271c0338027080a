//! What a server's GraphQL schema lacks: an older GitHub Enterprise Server answers a field, a
//! mutation or an argument added since with HTTP 200, no `data`, and an error whose
//! `extensions` name it (`undefinedField` with `typeName` and `fieldName`; `argumentNotAccepted`
//! with `name`, the field, and `argumentName`). [`Unsupported::from_errors`] reads it, so that
//! the run stops saying what is missing instead of "not found" or an empty answer.

use std::fmt;

use crate::client::ApiError;

/// A field, mutation or argument the server's API does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    /// The type that lacks it: `PullRequest`, or `Mutation` for a mutation. For an argument,
    /// GitHub names no type (`Field`); the field's name is in [`Unsupported::field`].
    pub type_name: String,
    /// The field or mutation missing, or the one refusing [`Unsupported::argument`].
    pub field: String,
    /// The argument refused, for `argumentNotAccepted`.
    pub argument: Option<String>,
}

impl Unsupported {
    /// The first schema error among `errors`, if any: `undefinedField` or
    /// `argumentNotAccepted`, with its names (an entry missing them is not one).
    pub fn from_errors(errors: &[ApiError]) -> Option<Self> {
        errors.iter().find_map(Self::from_error)
    }

    fn from_error(e: &ApiError) -> Option<Self> {
        let ext = e.extensions.as_ref()?;
        let text = |key: &str| {
            ext.get(key)
                .and_then(serde_json::Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        match text("code")?.as_str() {
            "undefinedField" => Some(Self {
                type_name: text("typeName")?,
                field: text("fieldName")?,
                argument: None,
            }),
            "argumentNotAccepted" => Some(Self {
                type_name: text("typeName").unwrap_or_else(|| "Field".to_owned()),
                field: text("name")?,
                argument: Some(text("argumentName")?),
            }),
            _ => None,
        }
    }

    /// Whether this is `type_name.field` missing (not one of its arguments).
    pub fn is_field(&self, type_name: &str, field: &str) -> bool {
        self.argument.is_none() && self.type_name == type_name && self.field == field
    }

    /// What is missing, as a person reads it: `PullRequest.statusCheckRollup`, the mutation
    /// `requestReviewsByLogin`, or the argument `botIds` of `requestReviews`.
    pub fn what(&self) -> String {
        match (&self.argument, self.type_name.as_str()) {
            (Some(arg), _) => format!("the argument `{arg}` of `{}`", self.field),
            (None, "Mutation") => format!("the mutation `{}`", self.field),
            (None, ty) => format!("`{ty}.{}`", self.field),
        }
    }
}

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "this GitHub server's API lacks {} (an older GitHub Enterprise Server?)",
            self.what()
        )
    }
}

/// What to do about a server lacking `missing`, for the CLI's `hint:`.
pub fn advice(missing: &Unsupported) -> String {
    format!(
        "GitHub.com and current GitHub Enterprise Server releases have {}; upgrade the server, \
         or run against one that has it (docs/github.md lists what each command needs)",
        missing.what()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(json: serde_json::Value) -> Vec<ApiError> {
        serde_json::from_value(json).unwrap_or_default()
    }

    #[test]
    fn reads_a_missing_field_a_mutation_and_an_argument() {
        let field = errors(serde_json::json!([{
            "message": "Field 'statusCheckRollup' doesn't exist on type 'PullRequest'",
            "extensions": {"code": "undefinedField", "typeName": "PullRequest",
                           "fieldName": "statusCheckRollup"},
            "path": ["query PullRequestFirstPage", "repository", "pullRequest", "statusCheckRollup"],
        }]));
        let missing = Unsupported::from_errors(&field);
        assert!(
            missing
                .as_ref()
                .is_some_and(|m| m.is_field("PullRequest", "statusCheckRollup"))
        );
        assert_eq!(
            missing.map(|m| m.to_string()).unwrap_or_default(),
            "this GitHub server's API lacks `PullRequest.statusCheckRollup` (an older GitHub \
             Enterprise Server?)"
        );

        let mutation = errors(serde_json::json!([{
            "message": "Field 'requestReviewsByLogin' doesn't exist on type 'Mutation'",
            "extensions": {"code": "undefinedField", "typeName": "Mutation",
                           "fieldName": "requestReviewsByLogin"},
        }]));
        assert_eq!(
            Unsupported::from_errors(&mutation).map(|m| m.what()),
            Some("the mutation `requestReviewsByLogin`".to_owned())
        );

        let argument = errors(serde_json::json!([
            {"message": "Variable $x is declared by Q but not used",
             "extensions": {"code": "variableNotUsed"}},
            {"message": "Field 'requestReviews' doesn't accept argument 'botIds'",
             "extensions": {"code": "argumentNotAccepted", "name": "requestReviews",
                            "typeName": "Field", "argumentName": "botIds"}},
        ]));
        let missing = Unsupported::from_errors(&argument);
        assert_eq!(
            missing.as_ref().map(Unsupported::what),
            Some("the argument `botIds` of `requestReviews`".to_owned())
        );
        assert!(!missing.is_some_and(|m| m.is_field("Field", "requestReviews")));
    }

    #[test]
    fn an_error_without_its_names_is_not_a_schema_gap() {
        let odd = errors(serde_json::json!([
            {"message": "x", "extensions": {"code": "undefinedField"}},
            {"message": "x", "extensions": {"code": "undefinedField", "typeName": 3,
                                            "fieldName": "f"}},
            {"message": "x", "extensions": {"code": "undefinedField", "typeName": "",
                                            "fieldName": "f"}},
            {"message": "x", "extensions": {"code": "argumentNotAccepted", "name": "f"}},
            {"message": "x", "extensions": null},
            {"message": "x", "type": "NOT_FOUND"},
        ]));
        assert_eq!(odd.len(), 6);
        assert_eq!(Unsupported::from_errors(&odd), None);
        let advice = advice(&Unsupported {
            type_name: "PullRequest".to_owned(),
            field: "isDraft".to_owned(),
            argument: None,
        });
        assert!(advice.contains("`PullRequest.isDraft`"), "{advice}");
    }
}
