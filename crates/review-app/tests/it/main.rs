//! The use-cases against in-memory ports.

use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Runs a future whose ports never wait (the fakes answer at once).
pub(crate) fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
    }
}

mod test_architecture;
mod test_commit_round;
mod test_decide;
mod test_defer;
mod test_followup;
mod test_rereview;
mod test_respond;
mod test_review_loop;
mod test_status;
mod test_triage;
mod test_watch;
