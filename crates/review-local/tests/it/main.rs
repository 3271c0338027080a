//! The local adapters against the in-memory fakes.

mod test_audited_host;
