//! A small GraphQL document parser: the executable part of the language (operations, variable
//! definitions, fields with aliases and arguments, inline fragments, named fragments and the
//! `@skip`/`@include` directives), enough for any document a client would send to GitHub.

use std::collections::BTreeMap;
use std::fmt;

/// A place in the document, 1-based, as GraphQL errors report it in `locations`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Pos {
    pub line: usize,
    pub column: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Int(i64),
    Float(f64),
    Punct(char),
    Spread,
    End,
}

impl fmt::Display for Tok {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Name(n) => write!(f, "\"{n}\" (IDENTIFIER)"),
            Self::Str(s) => write!(f, "\"{s}\" (STRING)"),
            Self::Int(i) => write!(f, "\"{i}\" (INT)"),
            Self::Float(x) => write!(f, "\"{x}\" (FLOAT)"),
            Self::Punct(c) => write!(f, "\"{c}\""),
            Self::Spread => f.write_str("\"...\" (ELLIPSIS)"),
            Self::End => f.write_str("end of file"),
        }
    }
}

/// A parse error, worded as GitHub's GraphQL endpoint words one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub message: String,
    pub pos: Pos,
}

fn lex(src: &str) -> Result<Vec<(Tok, Pos)>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1usize, 1usize);
    let at = |line, column| Pos { line, column };
    while i < chars.len() {
        let c = chars[i];
        let pos = at(line, col);
        match c {
            '\n' => {
                i += 1;
                line += 1;
                col = 1;
            }
            ' ' | '\t' | '\r' | ',' | '\u{feff}' => {
                i += 1;
                col += 1;
            }
            '#' => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '.' => {
                if chars.get(i..i + 3) == Some(&['.', '.', '.']) {
                    out.push((Tok::Spread, pos));
                    i += 3;
                    col += 3;
                } else {
                    return Err(ParseError {
                        message: format!("Parse error on \".\" at [{line}, {col}]"),
                        pos,
                    });
                }
            }
            '!' | '$' | '&' | '(' | ')' | ':' | '=' | '@' | '[' | ']' | '{' | '|' | '}' => {
                out.push((Tok::Punct(c), pos));
                i += 1;
                col += 1;
            }
            '"' => {
                let (s, used, lines) = lex_string(&chars[i..]).ok_or_else(|| ParseError {
                    message: format!("Parse error on bad Unicode escape sequence or unterminated string at [{line}, {col}]"),
                    pos,
                })?;
                out.push((Tok::Str(s), pos));
                i += used;
                if lines > 0 {
                    line += lines;
                    col = 1;
                } else {
                    col += used;
                }
            }
            c if c == '_' || c.is_ascii_alphabetic() => {
                let start = i;
                while i < chars.len() && (chars[i] == '_' || chars[i].is_ascii_alphanumeric()) {
                    i += 1;
                }
                out.push((Tok::Name(chars[start..i].iter().collect()), pos));
                col += i - start;
            }
            c if c == '-' || c.is_ascii_digit() => {
                let start = i;
                i += 1;
                let mut float = false;
                while i < chars.len() {
                    let d = chars[i];
                    if d.is_ascii_digit() {
                        i += 1;
                    } else if matches!(d, '.' | 'e' | 'E')
                        || (matches!(d, '+' | '-') && matches!(chars[i - 1], 'e' | 'E'))
                    {
                        float = true;
                        i += 1;
                    } else {
                        break;
                    }
                }
                let text: String = chars[start..i].iter().collect();
                col += i - start;
                let bad = || ParseError {
                    message: format!(
                        "Parse error on \"{text}\" at [{}, {}]",
                        pos.line, pos.column
                    ),
                    pos,
                };
                let tok = if float {
                    Tok::Float(text.parse().map_err(|_| bad())?)
                } else {
                    Tok::Int(text.parse().map_err(|_| bad())?)
                };
                out.push((tok, pos));
            }
            other => {
                return Err(ParseError {
                    message: format!("Parse error on \"{other}\" (error) at [{line}, {col}]"),
                    pos,
                });
            }
        }
    }
    out.push((Tok::End, at(line, col)));
    Ok(out)
}

/// Reads a string literal at the start of `chars`: its value, the characters used and the
/// newlines crossed (block strings only).
fn lex_string(chars: &[char]) -> Option<(String, usize, usize)> {
    if chars.get(..3) == Some(&['"', '"', '"']) {
        let mut i = 3;
        let mut lines = 0;
        let mut s = String::new();
        while i < chars.len() {
            if chars.get(i..i + 3) == Some(&['"', '"', '"']) {
                return Some((s.trim().to_owned(), i + 3, lines));
            }
            if chars[i] == '\n' {
                lines += 1;
            }
            s.push(chars[i]);
            i += 1;
        }
        return None;
    }
    let mut i = 1;
    let mut s = String::new();
    while i < chars.len() {
        match chars[i] {
            '"' => return Some((s, i + 1, 0)),
            '\n' => return None,
            '\\' => {
                let e = *chars.get(i + 1)?;
                i += 2;
                match e {
                    '"' | '\\' | '/' => s.push(e),
                    'b' => s.push('\u{8}'),
                    'f' => s.push('\u{c}'),
                    'n' => s.push('\n'),
                    'r' => s.push('\r'),
                    't' => s.push('\t'),
                    'u' => {
                        let hex: String = chars.get(i..i + 4)?.iter().collect();
                        s.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                        i += 4;
                    }
                    _ => return None,
                }
            }
            c => {
                s.push(c);
                i += 1;
            }
        }
    }
    None
}

/// An input value as written in the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Var(String),
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    Null,
    Enum(String),
    List(Vec<Self>),
    Object(Vec<(String, Self)>),
}

/// A type reference (`ID!`, `[PullRequestState!]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TypeRef {
    Named(String),
    List(Box<Self>),
    NonNull(Box<Self>),
}

impl TypeRef {
    /// The named type at the bottom of the lists and non-nulls.
    pub fn base(&self) -> &str {
        match self {
            Self::Named(n) => n,
            Self::List(t) | Self::NonNull(t) => t.base(),
        }
    }

    /// Parses the type notation of the schema table (`[PullRequestReviewThread]`, `Int!`).
    pub fn parse(text: &str) -> Option<Self> {
        let toks = lex(text).ok()?;
        let mut p = Parser { toks, at: 0 };
        let t = p.type_ref().ok()?;
        matches!(p.peek(), Tok::End).then_some(t)
    }
}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Named(n) => f.write_str(n),
            Self::List(t) => write!(f, "[{t}]"),
            Self::NonNull(t) => write!(f, "{t}!"),
        }
    }
}

/// A directive on a field or fragment (`@include(if: $x)`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Directive {
    pub name: String,
    pub args: Vec<(String, Value)>,
}

/// A field selection.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Field {
    pub alias: Option<String>,
    pub name: String,
    pub args: Vec<(String, Value)>,
    pub directives: Vec<Directive>,
    pub selection: Vec<Selection>,
    pub pos: Pos,
}

impl Field {
    /// The key of this field in the response: its alias, or else its name.
    pub fn key(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.name)
    }

    /// The argument written as `name`, if any.
    pub fn arg(&self, name: &str) -> Option<&Value> {
        self.args.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }
}

/// One entry of a selection set.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Selection {
    Field(Field),
    Inline {
        on: Option<String>,
        directives: Vec<Directive>,
        selection: Vec<Self>,
        pos: Pos,
    },
    Spread {
        name: String,
        directives: Vec<Directive>,
        pos: Pos,
    },
}

/// `query` or `mutation`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OpKind {
    Query,
    Mutation,
    Subscription,
}

/// A variable definition of an operation.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VarDef {
    pub name: String,
    pub ty: TypeRef,
    pub default: Option<Value>,
    pub pos: Pos,
}

/// An operation of the document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Operation {
    pub kind: OpKind,
    pub name: Option<String>,
    pub vars: Vec<VarDef>,
    pub selection: Vec<Selection>,
    pub pos: Pos,
}

/// A named fragment.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fragment {
    pub on: String,
    pub selection: Vec<Selection>,
}

/// A parsed document.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Document {
    pub operations: Vec<Operation>,
    pub fragments: BTreeMap<String, Fragment>,
}

/// Parses a GraphQL document.
pub(crate) fn parse(src: &str) -> Result<Document, ParseError> {
    let mut p = Parser {
        toks: lex(src)?,
        at: 0,
    };
    let mut doc = Document::default();
    while !matches!(p.peek(), Tok::End) {
        match p.peek().clone() {
            Tok::Punct('{') => {
                let pos = p.pos();
                let selection = p.selection_set()?;
                doc.operations.push(Operation {
                    kind: OpKind::Query,
                    name: None,
                    vars: Vec::new(),
                    selection,
                    pos,
                });
            }
            Tok::Name(n) if n == "fragment" => {
                p.next();
                let name = p.name()?;
                p.keyword("on")?;
                let on = p.name()?;
                p.directives()?;
                let selection = p.selection_set()?;
                doc.fragments.insert(name, Fragment { on, selection });
            }
            Tok::Name(n) if matches!(n.as_str(), "query" | "mutation" | "subscription") => {
                let pos = p.pos();
                p.next();
                let kind = match n.as_str() {
                    "query" => OpKind::Query,
                    "mutation" => OpKind::Mutation,
                    _ => OpKind::Subscription,
                };
                let name = match p.peek() {
                    Tok::Name(_) => Some(p.name()?),
                    _ => None,
                };
                let vars = p.var_defs()?;
                p.directives()?;
                let selection = p.selection_set()?;
                doc.operations.push(Operation {
                    kind,
                    name,
                    vars,
                    selection,
                    pos,
                });
            }
            _ => return Err(p.unexpected()),
        }
    }
    Ok(doc)
}

struct Parser {
    toks: Vec<(Tok, Pos)>,
    at: usize,
}

impl Parser {
    fn peek(&self) -> &Tok {
        self.toks.get(self.at).map_or(&Tok::End, |(t, _)| t)
    }

    fn pos(&self) -> Pos {
        self.toks
            .get(self.at)
            .or_else(|| self.toks.last())
            .map_or(Pos { line: 1, column: 1 }, |(_, p)| *p)
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        self.at += 1;
        t
    }

    fn unexpected(&self) -> ParseError {
        let pos = self.pos();
        ParseError {
            message: format!(
                "Parse error on {} at [{}, {}]",
                self.peek(),
                pos.line,
                pos.column
            ),
            pos,
        }
    }

    fn punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.peek() == &Tok::Punct(c) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.unexpected())
        }
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == &Tok::Punct(c);
        if hit {
            self.at += 1;
        }
        hit
    }

    fn name(&mut self) -> Result<String, ParseError> {
        match self.peek().clone() {
            Tok::Name(n) => {
                self.at += 1;
                Ok(n)
            }
            _ => Err(self.unexpected()),
        }
    }

    fn keyword(&mut self, word: &str) -> Result<(), ParseError> {
        match self.peek() {
            Tok::Name(n) if n == word => {
                self.at += 1;
                Ok(())
            }
            _ => Err(self.unexpected()),
        }
    }

    fn var_defs(&mut self) -> Result<Vec<VarDef>, ParseError> {
        let mut vars = Vec::new();
        if !self.eat('(') {
            return Ok(vars);
        }
        loop {
            let pos = self.pos();
            self.punct('$')?;
            let name = self.name()?;
            self.punct(':')?;
            let ty = self.type_ref()?;
            let default = if self.eat('=') {
                Some(self.value(true)?)
            } else {
                None
            };
            self.directives()?;
            vars.push(VarDef {
                name,
                ty,
                default,
                pos,
            });
            if self.eat(')') {
                return Ok(vars);
            }
        }
    }

    fn type_ref(&mut self) -> Result<TypeRef, ParseError> {
        let t = if self.eat('[') {
            let inner = self.type_ref()?;
            self.punct(']')?;
            TypeRef::List(Box::new(inner))
        } else {
            TypeRef::Named(self.name()?)
        };
        Ok(if self.eat('!') {
            TypeRef::NonNull(Box::new(t))
        } else {
            t
        })
    }

    fn value(&mut self, constant: bool) -> Result<Value, ParseError> {
        match self.peek().clone() {
            Tok::Punct('$') if !constant => {
                self.at += 1;
                Ok(Value::Var(self.name()?))
            }
            Tok::Int(i) => {
                self.at += 1;
                Ok(Value::Int(i))
            }
            Tok::Float(x) => {
                self.at += 1;
                Ok(Value::Float(x))
            }
            Tok::Str(s) => {
                self.at += 1;
                Ok(Value::Str(s))
            }
            Tok::Name(n) => {
                self.at += 1;
                Ok(match n.as_str() {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    "null" => Value::Null,
                    _ => Value::Enum(n),
                })
            }
            Tok::Punct('[') => {
                self.at += 1;
                let mut items = Vec::new();
                while !self.eat(']') {
                    items.push(self.value(constant)?);
                }
                Ok(Value::List(items))
            }
            Tok::Punct('{') => {
                self.at += 1;
                let mut fields = Vec::new();
                while !self.eat('}') {
                    let name = self.name()?;
                    self.punct(':')?;
                    fields.push((name, self.value(constant)?));
                }
                Ok(Value::Object(fields))
            }
            _ => Err(self.unexpected()),
        }
    }

    fn arguments(&mut self) -> Result<Vec<(String, Value)>, ParseError> {
        let mut args = Vec::new();
        if !self.eat('(') {
            return Ok(args);
        }
        loop {
            let name = self.name()?;
            self.punct(':')?;
            args.push((name, self.value(false)?));
            if self.eat(')') {
                return Ok(args);
            }
        }
    }

    fn directives(&mut self) -> Result<Vec<Directive>, ParseError> {
        let mut out = Vec::new();
        while self.eat('@') {
            let name = self.name()?;
            let args = self.arguments()?;
            out.push(Directive { name, args });
        }
        Ok(out)
    }

    fn selection_set(&mut self) -> Result<Vec<Selection>, ParseError> {
        self.punct('{')?;
        let mut out = Vec::new();
        loop {
            if self.peek() == &Tok::Punct('}') {
                if out.is_empty() {
                    return Err(self.unexpected());
                }
                self.at += 1;
                return Ok(out);
            }
            let pos = self.pos();
            if self.peek() == &Tok::Spread {
                self.at += 1;
                match self.peek().clone() {
                    Tok::Name(n) if n == "on" => {
                        self.at += 1;
                        let on = Some(self.name()?);
                        let directives = self.directives()?;
                        let selection = self.selection_set()?;
                        out.push(Selection::Inline {
                            on,
                            directives,
                            selection,
                            pos,
                        });
                    }
                    Tok::Name(name) => {
                        self.at += 1;
                        let directives = self.directives()?;
                        out.push(Selection::Spread {
                            name,
                            directives,
                            pos,
                        });
                    }
                    _ => {
                        let directives = self.directives()?;
                        let selection = self.selection_set()?;
                        out.push(Selection::Inline {
                            on: None,
                            directives,
                            selection,
                            pos,
                        });
                    }
                }
                continue;
            }
            let first = self.name()?;
            let (alias, name) = if self.eat(':') {
                (Some(first), self.name()?)
            } else {
                (None, first)
            };
            let args = self.arguments()?;
            let directives = self.directives()?;
            let selection = if self.peek() == &Tok::Punct('{') {
                self.selection_set()?
            } else {
                Vec::new()
            };
            out.push(Selection::Field(Field {
                alias,
                name,
                args,
                directives,
                selection,
                pos,
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_aliases_arguments_fragments_and_positions() {
        let doc = parse(
            "mutation M($a0: ID!, $c: [S!] = [X]) {\n  r0: resolve(input: {threadId: $a0}) { thread { id } }\n  r1: node(id: \"x\\n\") { __typename ... on T { n } }\n}",
        )
        .unwrap();
        let op = &doc.operations[0];
        assert_eq!(op.kind, OpKind::Mutation);
        assert_eq!(op.name.as_deref(), Some("M"));
        assert_eq!(op.vars[1].ty.to_string(), "[S!]");
        assert_eq!(
            op.vars[1].default,
            Some(Value::List(vec![Value::Enum("X".into())]))
        );
        let Selection::Field(f) = &op.selection[0] else {
            panic!("a field");
        };
        assert_eq!((f.key(), f.name.as_str()), ("r0", "resolve"));
        assert_eq!(f.pos, Pos { line: 2, column: 3 });
        assert_eq!(
            f.arg("input"),
            Some(&Value::Object(vec![(
                "threadId".into(),
                Value::Var("a0".into())
            )]))
        );
        let Selection::Field(g) = &op.selection[1] else {
            panic!("a field");
        };
        assert_eq!(g.arg("id"), Some(&Value::Str("x\n".into())));
        assert!(matches!(&g.selection[1], Selection::Inline { on: Some(t), .. } if t == "T"));
    }

    #[test]
    fn reports_where_parsing_failed() {
        let err = parse("query {\n  a {\n}").unwrap_err();
        assert_eq!(err.pos, Pos { line: 3, column: 1 });
        assert!(
            err.message.starts_with("Parse error on \"}\""),
            "{}",
            err.message
        );
    }

    #[test]
    fn type_notation_round_trips() {
        for t in ["Int", "ID!", "[PullRequestState!]", "[[A]!]!"] {
            assert_eq!(TypeRef::parse(t).unwrap().to_string(), t);
        }
        assert_eq!(TypeRef::parse("[A").map(|t| t.to_string()), None);
    }
}
