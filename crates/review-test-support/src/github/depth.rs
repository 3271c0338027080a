//! The round-trip depth of a run of requests: how many answers a client had to wait for one
//! after another.

use std::time::Instant;

/// When one request arrived and when its answer was out (computed, plus any added delay).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Timing {
    /// When the request reached the fake.
    pub start: Instant,
    /// When its answer was sent.
    pub end: Instant,
}

/// The depth of `timings`: each request's level is 1 + the highest level among the requests
/// whose answer was out before it started (0 if none); the depth is the highest level. Requests
/// in flight together share a level; a run where each request waits for the last has a depth
/// equal to its number of requests; no requests, depth 0.
pub(super) fn depth(timings: &[Timing]) -> usize {
    let mut order: Vec<&Timing> = timings.iter().collect();
    order.sort_by_key(|t| t.start);
    let mut levels: Vec<(Instant, usize)> = Vec::with_capacity(order.len());
    let mut deepest = 0;
    for t in order {
        let level = 1 + levels
            .iter()
            .filter(|(end, _)| *end <= t.start)
            .map(|(_, level)| *level)
            .max()
            .unwrap_or(0);
        deepest = deepest.max(level);
        levels.push((t.end, level));
    }
    deepest
}

/// The most requests of `timings` in flight at once: started, their answer not yet out.
pub(super) fn peak(timings: &[Timing]) -> usize {
    timings
        .iter()
        .map(|t| {
            timings
                .iter()
                .filter(|o| o.start <= t.start && t.start < o.end)
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Requests from `(start, end)` in milliseconds after one instant.
    fn run(spans: &[(u64, u64)]) -> Vec<Timing> {
        let zero = Instant::now();
        spans
            .iter()
            .map(|&(s, e)| Timing {
                start: zero + Duration::from_millis(s),
                end: zero + Duration::from_millis(e),
            })
            .collect()
    }

    #[test]
    fn a_sequential_run_is_as_deep_as_it_is_long() {
        assert_eq!(depth(&run(&[(0, 10), (10, 20), (25, 30), (30, 31)])), 4);
    }

    #[test]
    fn requests_in_flight_together_share_a_level() {
        // One first request, then three at once, then one after the slowest of them.
        let spans = [(0, 10), (11, 20), (12, 40), (12, 21), (41, 50)];
        assert_eq!(depth(&run(&spans)), 3);
        assert_eq!(peak(&run(&spans)), 3);
        // A request after the fastest of the three, while the others run, sits one level below
        // them as well: its level follows what had completed when it started.
        let spans = [(0, 10), (11, 20), (12, 40), (21, 30), (31, 35)];
        assert_eq!(depth(&run(&spans)), 4);
    }

    #[test]
    fn the_order_of_the_log_does_not_matter() {
        let spans = [(41, 50), (12, 40), (0, 10), (11, 20)];
        assert_eq!(depth(&run(&spans)), 3);
        assert_eq!(depth(&[]), 0);
        assert_eq!(peak(&[]), 0);
        assert_eq!(
            peak(&run(&[(0, 10), (10, 20)])),
            1,
            "an answer out is no longer in flight"
        );
    }
}
