//! The GitHub adapter (placeholder).
