//! The use-cases against in-memory ports.

mod test_architecture;
mod test_commit_round;
mod test_decide;
mod test_defer;
mod test_followup;
mod test_rereview;
mod test_respond;
mod test_review_loop;
mod test_triage;
mod test_watch;
