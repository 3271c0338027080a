//! Tests of the fake GitHub GraphQL server, driven over HTTP as the adapter drives it.
#![allow(clippy::unwrap_used, reason = "test helpers: a panic is a failed test")]

mod client;
mod queries;
mod test_contract;
mod test_depth;
mod test_faults;
mod test_old_server;
mod test_read;
mod test_rest;
mod test_write;
