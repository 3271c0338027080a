//! Reads review comments (placeholder until the first version lands).
