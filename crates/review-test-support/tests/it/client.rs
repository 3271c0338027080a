//! A tiny HTTP/1.1 client over `std::net::TcpStream`: enough to post GraphQL to the fake.

use std::io::{Read, Write};
use std::net::TcpStream;

use review_test_support::github::FakeGitHub;
use serde_json::{Value, json};

/// An answer from the fake.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// Posts `body` to `url` with the given extra header lines.
pub fn post_raw(url: &str, headers: &[(&str, &str)], body: &str) -> Response {
    send_raw("POST", url, headers, body)
}

/// Sends `GET url` with the given extra header lines.
pub fn get_raw(url: &str, headers: &[(&str, &str)]) -> Response {
    send_raw("GET", url, headers, "")
}

fn send_raw(method: &str, url: &str, headers: &[(&str, &str)], body: &str) -> Response {
    let rest = url.strip_prefix("http://").expect("an http URL");
    let (host, path) = rest.split_once('/').expect("a path");
    let mut stream = TcpStream::connect(host).expect("connect to the fake");
    let mut request = format!(
        "{method} /{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read");
    let text = String::from_utf8(raw).expect("UTF-8 answer");
    let (head, body) = text.split_once("\r\n\r\n").expect("a header block");
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Response {
        status,
        headers,
        body,
    }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).expect("a chunk size");
        if n == 0 {
            break;
        }
        out.push_str(&rest[..n]);
        body = &rest[n + 2..];
    }
    out
}

/// Posts an operation as the adapter does: bearer token, user agent, `operationName`.
pub fn op(github: &FakeGitHub, name: &str, query: &str, variables: &Value) -> Response {
    let body = json!({"query": query, "variables": variables, "operationName": name});
    post_raw(
        &github.graphql_url(),
        &[
            ("Authorization", "Bearer t0ken"),
            ("User-Agent", "review-tests"),
        ],
        &body.to_string(),
    )
}

/// Like [`op`], and checks the answer is a 200 with JSON.
pub fn ok(github: &FakeGitHub, name: &str, query: &str, variables: &Value) -> Value {
    let response = op(github, name, query, variables);
    assert_eq!(response.status, 200, "{}", response.body);
    response.json()
}
