//! A byte-level HTTP/1.1 proxy in front of the fake, so that [`super::Fault::CutOff`] can drop
//! a connection in the middle of an answer, which a wiremock responder cannot do.
//!
//! It forwards each request to the fake with [`VIA_PROXY`] added, and each answer back as it
//! came, until an answer carries [`CUT_HERE`]: of that one it sends the status line, the
//! headers (without the marker, and with the whole body's `Content-Length`) and the first half
//! of the body, then closes the connection. Plain threads, one per connection: it serves a
//! test's few requests, and needs no runtime.

use std::io::{self, BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The request header the proxy adds, telling the fake that a cut can be made for real.
pub(crate) const VIA_PROXY: &str = "x-fake-via-proxy";

/// The answer header asking the proxy to drop the connection half-way through the body.
pub(crate) const CUT_HERE: &str = "x-fake-cut-off";

/// A running proxy; it stops accepting connections when dropped.
#[derive(Debug)]
pub(crate) struct Proxy {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    /// Starts a proxy on a free local port, forwarding to `upstream`.
    pub(crate) fn start(upstream: SocketAddr) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0))?;
        let addr = listener.local_addr()?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        std::thread::Builder::new()
            .name("fake-github-proxy".to_owned())
            .spawn(move || {
                for client in listener.incoming() {
                    if stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(client) = client else { continue };
                    let _ = std::thread::Builder::new()
                        .name("fake-github-proxy-conn".to_owned())
                        .spawn(move || {
                            let _ = serve(client, upstream);
                        });
                }
            })?;
        Ok(Self { addr, stop })
    }

    /// `http://127.0.0.1:PORT`.
    pub(crate) fn uri(&self) -> String {
        format!("http://{}", self.addr)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread so that it sees the flag.
        let _ = TcpStream::connect(self.addr);
    }
}

/// One client connection: requests forwarded one at a time (HTTP/1.1 without pipelining, as
/// reqwest and hyper send them), answers returned, until either side closes or an answer is cut.
fn serve(client: TcpStream, upstream: SocketAddr) -> io::Result<()> {
    let server = TcpStream::connect(upstream)?;
    let mut from_client = BufReader::new(client.try_clone()?);
    let mut from_server = BufReader::new(server.try_clone()?);
    let mut to_client = client;
    let mut to_server = server;
    loop {
        let Some(request) = read_message(&mut from_client, None)? else {
            return Ok(());
        };
        let method = request
            .head
            .split(|&b| b == b' ')
            .next()
            .unwrap_or_default();
        let head_only = method.eq_ignore_ascii_case(b"HEAD");
        to_server.write_all(&with_header(&request.head, VIA_PROXY))?;
        to_server.write_all(&request.body)?;
        to_server.flush()?;
        let Some(answer) = read_message(&mut from_server, Some(head_only))? else {
            return Ok(());
        };
        if header_value(&answer.head, CUT_HERE).is_some() {
            to_client.write_all(&without_header(&answer.head, CUT_HERE))?;
            to_client.write_all(&answer.body[..answer.body.len() / 2])?;
            to_client.flush()?;
            let _ = to_client.shutdown(Shutdown::Both);
            let _ = to_server.shutdown(Shutdown::Both);
            return Ok(());
        }
        to_client.write_all(&answer.head)?;
        to_client.write_all(&answer.body)?;
        to_client.flush()?;
        let closing = |head: &[u8]| {
            header_value(head, "connection").is_some_and(|v| v.eq_ignore_ascii_case("close"))
        };
        if closing(&request.head) || closing(&answer.head) {
            let _ = to_client.shutdown(Shutdown::Both);
            let _ = to_server.shutdown(Shutdown::Both);
            return Ok(());
        }
    }
}

/// An HTTP/1.1 message as it was on the wire: the head (start line and headers, up to and
/// including the blank line) and the body bytes (chunk framing included).
struct Message {
    head: Vec<u8>,
    body: Vec<u8>,
}

/// Reads one message; `None` when the peer closed before sending one. `answer_to_head` is `None`
/// for a request, else whether the answer is to a `HEAD` request.
fn read_message(
    input: &mut impl BufRead,
    answer_to_head: Option<bool>,
) -> io::Result<Option<Message>> {
    let mut head = Vec::new();
    loop {
        let before = head.len();
        let n = input.read_until(b'\n', &mut head)?;
        if n == 0 {
            return if head.is_empty() {
                Ok(None)
            } else {
                Err(io::ErrorKind::UnexpectedEof.into())
            };
        }
        let line = &head[before..];
        if line == b"\r\n" || line == b"\n" {
            // A blank line before any start line is tolerated (RFC 9112, 2.2).
            if before == 0 {
                head.clear();
                continue;
            }
            break;
        }
    }
    let status = answer_to_head.map(|_| {
        head.split(|&b| b == b' ')
            .nth(1)
            .and_then(|s| std::str::from_utf8(s).ok())
            .and_then(|s| s.parse::<u16>().ok())
            .unwrap_or(0)
    });
    let bodiless = answer_to_head == Some(true)
        || status.is_some_and(|s| (100..200).contains(&s) || s == 204 || s == 304);
    let mut body = Vec::new();
    if bodiless {
        return Ok(Some(Message { head, body }));
    }
    let chunked = header_value(&head, "transfer-encoding")
        .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    if chunked {
        loop {
            let start = body.len();
            input.read_until(b'\n', &mut body)?;
            let size_line = String::from_utf8_lossy(&body[start..]).into_owned();
            let size_text = size_line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size_text, 16)
                .map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
            if size == 0 {
                // Trailers, then the blank line.
                loop {
                    let at = body.len();
                    if input.read_until(b'\n', &mut body)? == 0 {
                        return Err(io::ErrorKind::UnexpectedEof.into());
                    }
                    if &body[at..] == b"\r\n" || &body[at..] == b"\n" {
                        break;
                    }
                }
                break;
            }
            let at = body.len();
            body.resize(at + size + 2, 0);
            input.read_exact(&mut body[at..])?;
        }
    } else if let Some(length) = header_value(&head, "content-length") {
        let length: usize = length
            .trim()
            .parse()
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidData))?;
        body.resize(length, 0);
        input.read_exact(&mut body)?;
    } else if answer_to_head.is_some() {
        // An answer without a length ends with the connection.
        input.read_to_end(&mut body)?;
    }
    Ok(Some(Message { head, body }))
}

/// The value of header `name` in a message head, if present.
fn header_value(head: &[u8], name: &str) -> Option<String> {
    String::from_utf8_lossy(head)
        .split("\r\n")
        .skip(1)
        .find_map(|line| {
            let (k, v) = line.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
}

/// `head` with the header `name: 1` added before the blank line.
fn with_header(head: &[u8], name: &str) -> Vec<u8> {
    let end = head.len().saturating_sub(2);
    let mut out = head[..end].to_vec();
    out.extend_from_slice(format!("{name}: 1\r\n\r\n").as_bytes());
    out
}

/// `head` without the header `name`.
fn without_header(head: &[u8], name: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(head.len());
    for line in head.split_inclusive(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(line);
        let named = text
            .split_once(':')
            .is_some_and(|(k, _)| k.trim().eq_ignore_ascii_case(name));
        if !named {
            out.extend_from_slice(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_read_by_length_or_by_chunks() {
        let raw = b"POST /graphql HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcdGET / HTTP/1.1\r\n\r\n";
        let mut input = &raw[..];
        let first = read_message(&mut input, None).unwrap().unwrap();
        assert_eq!(first.body, b"abcd");
        let second = read_message(&mut input, None).unwrap().unwrap();
        assert!(second.head.starts_with(b"GET / "));
        assert!(second.body.is_empty());
        assert!(read_message(&mut input, None).unwrap().is_none());

        let raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        let mut input = &raw[..];
        let answer = read_message(&mut input, Some(false)).unwrap().unwrap();
        assert_eq!(answer.body, b"3\r\nabc\r\n0\r\n\r\n");

        let raw = b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n";
        let mut input = &raw[..];
        let answer = read_message(&mut input, Some(false)).unwrap().unwrap();
        assert!(answer.body.is_empty(), "a 304 has no body");
    }

    #[test]
    fn headers_are_added_found_and_removed() {
        let head = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-Fake-Cut-Off: 1\r\n\r\n";
        assert_eq!(header_value(head, CUT_HERE).as_deref(), Some("1"));
        let clean = without_header(head, CUT_HERE);
        assert_eq!(clean, b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n");
        let marked = with_header(&clean, VIA_PROXY);
        assert!(marked.ends_with(b"Content-Length: 2\r\nx-fake-via-proxy: 1\r\n\r\n"));
    }
}
