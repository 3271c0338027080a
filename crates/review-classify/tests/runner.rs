//! The integration tests of `review-classify`, in one binary.

mod test_properties;
