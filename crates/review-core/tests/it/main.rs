//! Integration tests of review-core against the in-memory fakes.

mod test_execute;
mod test_plan;
mod test_properties;
