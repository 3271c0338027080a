//! The integration tests of `review-classify`, in one binary.

mod corpus_eval;
mod test_corpus;
mod test_properties;
mod test_threadless;
